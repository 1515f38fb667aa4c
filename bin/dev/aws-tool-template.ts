/**
 * The files of a new read-only AWS audit tool (`etp dev new-tool aws_<what> --kind aws`),
 * written over the AWS audit framework of functions/tools/aws/shared: the spec
 * with `defineAwsReadOnlySpec`, a regional scan with `runRegionalAudit` (its
 * region scope: client config, stats, findings, `once`), `readPages` and
 * `newFinding`, the value, `truncated` and summary with `auditResult`; its test, which exports its API-call case, over the
 * suite's helpers. The scan reads EC2 VPCs, so the tool works as written: the
 * guide (docs/adding-a-tool.md) says what to replace for another service.
 */
import type { ToolNames } from './tool-names';

/** A file to write: its path relative to the repository root and its content. */
export interface GeneratedFile {
  readonly path: string;
  readonly content: string;
}

/** What generating a tool writes: new files, and existing ones it changes (a connector's scope table). */
export interface ToolFiles {
  readonly created: GeneratedFile[];
  readonly edited: GeneratedFile[];
}

/** The spec, implementation and test (which exports its API-call case) of an AWS audit tool named by `names`. */
export function awsToolFiles(names: ToolNames): GeneratedFile[] {
  const { tool, file, camel, pascal } = names;
  return [
    { path: `functions/tools/aws/${file}.meta.ts`, content: spec(tool, camel) },
    { path: `functions/tools/aws/${file}.ts`, content: implementation(tool, file, camel, pascal) },
    { path: `test/unit/tools/aws/${file}.test.ts`, content: test(tool, file, camel, pascal) },
  ];
}

function spec(tool: string, camel: string): string {
  return `import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** \`${tool}\`: the VPCs of the account, and a finding for each one without a Name tag. */
export const ${camel}Spec = defineAwsReadOnlySpec({
  name: '${tool}',
  description:
    'Inventory of the VPCs in the given regions (or "all" enabled regions): counts per region, and a finding ' +
    'with a stable id for each VPC without a Name tag. Read-only; DescribeVpcs per region (paginated), plus ' +
    'DescribeRegions for "all"; no cost. Regions that fail are reported in \`regions[].error\` without failing ' +
    'the others; \`truncated\` is set when the deadline or the page cap left regions or pages unread.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'ec2',
  iam: [{ actions: ['ec2:DescribeVpcs', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
});
`;
}

function implementation(tool: string, file: string, camel: string, pascal: string): string {
  return `import { EC2Client, paginateDescribeVpcs, type Vpc } from '@aws-sdk/client-ec2';
import { readPages, stopFields } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { ${camel}Spec } from './${file}.meta';
import { auditResult } from './shared/audit-parts';
import type { Finding } from './shared/findings';
import { type AuditValue, newFinding, runRegionalAudit } from './shared/regional-audit';

/**
 * Counts per region, added up over regions by \`runRegionalAudit\` (every key present in the empty stats;
 * \`duplicatesSkipped\` is set by it from the region's \`once\`).
 */
export type ${pascal}Stats = {
  vpcs: number;
  /** VPCs without a \`Name\` tag (each one a finding). */
  unnamed: number;
  /** VPCs EC2 listed twice (counted once). */
  duplicatesSkipped: number;
};

/** What \`${tool}\` returns: the totals, the findings (counts plus the top N), each region's counts or error. */
export type ${pascal}Value = AuditValue<${pascal}Stats>;

const emptyStats = (): ${pascal}Stats => ({ vpcs: 0, unnamed: 0, duplicatesSkipped: 0 });

/** Most DescribeVpcs pages read per region: 1,000 VPCs a page at most (EC2 API Reference, "DescribeVpcs"). */
const MAX_PAGES_PER_REGION = 10;

/** Adds one VPC to the region's stats; returns its finding when it has no Name tag. */
function auditVpc(vpc: Vpc, region: string, stats: ${pascal}Stats): Finding | undefined {
  stats.vpcs++;
  if (vpc.Tags?.some((tag) => tag.Key === 'Name' && tag.Value)) return undefined;
  stats.unnamed++;
  const id = vpc.VpcId ?? 'unknown';
  return newFinding({
    check: 'vpc_unnamed',
    severity: 'info',
    region,
    resource: id,
    title: \`VPC \${id} has no Name tag\`,
    details: { cidrBlock: vpc.CidrBlock ?? null, isDefault: vpc.IsDefault ?? false },
  });
}

/**
 * \`${tool}\` with its handler.
 *
 * API calls per run: 1 DescribeVpcs per page per region (at most
 * {@link MAX_PAGES_PER_REGION} pages); plus 1 DescribeRegions for "all".
 */
export const ${camel}Tool = defineTool(${camel}Spec, async (ctx, args) => {
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'ec2', emptyStats: emptyStats() },
    async ({ clientConfig, region, stats, findings, once }) => {
      const read = await readPages(
        paginateDescribeVpcs({ client: new EC2Client(clientConfig) }, {}),
        (page) =>
          once.each(
            page.Vpcs,
            (vpc) => vpc.VpcId,
            (vpc) => {
              const finding = auditVpc(vpc, region, stats);
              if (finding) findings.push(finding);
            },
          ),
        { maxPages: MAX_PAGES_PER_REGION, deadline: ctx.deadline },
      );
      return stopFields(read);
    },
  );
  return auditResult(audit, \`\${plural(audit.totals.vpcs, 'VPC')} (\${audit.totals.unnamed} without a Name tag)\`);
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(${camel}Tool);
`;
}

function test(tool: string, file: string, camel: string, pascal: string): string {
  return `import { DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { redact } from '../../../../functions/runtime/redact';
import { type ${pascal}Value, ${camel}Tool } from '../../../../functions/tools/aws/${file}';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion, type StubOf } from '../../../helpers/api-call-case';
import { ec2Error } from '../../../helpers/aws-errors';
import { expectFailure, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * \`${tool}\`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. This test arranges its
 * account with it; bench/api-call-cases.ts reads it from here (with the test
 * functions silenced) for the API-call bench, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts: the spec declares every action
 * the calls need) and the aws_pulse end-to-end runs. Keep this file's top level
 * to declarations.
 */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: '${tool}',
    clients: [EC2Client],
    account: '2 VPCs in each of 2 regions, one without a Name tag, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      // EC2 API Reference, "DescribeVpcs": the Vpc shape.
      arrangeRegions(stubOf)
        .on(DescribeVpcsCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Vpcs: [1, 2].map((n) => ({
                VpcId: \`vpc-0\${region.replaceAll('-', '')}\${n}\`,
                CidrBlock: \`10.\${n}.0.0/16\`,
                State: 'available' as const,
                IsDefault: n === 1,
                OwnerId: '123456789012',
                Tags: n === 1 ? [{ Key: 'Name', Value: 'main' }] : [],
              })),
            }),
            { Vpcs: [] },
          ),
        );
    },
  },
];

const ec2Mock = mockClient(EC2Client);

/** The stub of each client the API-call case arranges: only EC2 here. */
const stubOf: StubOf = (client) => {
  if (client !== EC2Client) throw new Error(\`${tool} does not use \${String(client)}\`);
  return ec2Mock;
};

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<${pascal}Value>(await runAwsTool(${camel}Tool, args));
}

beforeEach(() => {
  ec2Mock.reset();
});

describe('${tool}', () => {
  it('counts the VPCs of every enabled region and finds the ones without a Name tag', async () => {
    // Prepare: the account of the API-call case (two VPCs in each of two home regions, one unnamed)
    const [testCase] = apiCallCases;
    testCase?.arrange(stubOf);

    // Act
    const { value, truncated, summary } = await succeeded({ regions: 'all' });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value);
    expect(value).toMatchObject({ vpcs: 4, unnamed: 2, duplicatesSkipped: 0, skippedRegions: [] });
    expect(value.regions).toHaveLength(17);
    expect(value.findings.total).toBe(2);
    expect(value.findings.top.map((finding) => finding.id).sort()).toEqual(
      [
        findingId('vpc_unnamed', 'us-east-1', 'vpc-0useast12'),
        findingId('vpc_unnamed', 'eu-west-1', 'vpc-0euwest12'),
      ].sort(),
    );
    expect(summary).toBe('4 VPCs (2 without a Name tag) in 17 regions: 2 findings (0 critical, 0 high)');
  });

  it('reports a denied region inside the result while another succeeds', async () => {
    // Prepare
    ec2Mock.on(DescribeVpcsCommand).callsFake(async (_input, getClient) => {
      if ((await mockedClientRegion(getClient)) === 'us-east-1') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
          httpStatusCode: 403,
        });
      }
      return { Vpcs: [{ VpcId: 'vpc-1', Tags: [{ Key: 'Name', Value: 'main' }] }] };
    });

    // Act
    const { value, summary } = await succeeded({ regions: ['eu-west-1', 'us-east-1'] });

    // Assess
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', vpcs: 1, unnamed: 0 }),
      { region: 'us-east-1', error: expect.objectContaining({ code: 'access_denied', retryable: false }) },
    ]);
    expect(summary).toMatch(/; 1 region failed$/);
  });

  it('fails with timeout, not "0 VPCs", when the deadline leaves every region unread', async () => {
    // Act: a deadline already passed
    const result = expectFailure(
      await runAwsTool(${camel}Tool, { regions: ['eu-west-1'] }, { deadline: deadlineIn(0) }),
    );

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: true, service: 'ec2' });
    expect(ec2Mock.commandCalls(DescribeVpcsCommand)).toHaveLength(0);
  });

  it('refuses arguments outside its schema before any AWS call', async () => {
    // Act
    const result = expectFailure(await runAwsTool(${camel}Tool, { regions: 'all', topN: 0 }));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(ec2Mock.calls()).toHaveLength(0);
  });
});
`;
}
