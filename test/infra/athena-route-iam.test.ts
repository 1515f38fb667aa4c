import { Template } from 'aws-cdk-lib/assertions';
import { workspaceSessionPolicy } from '../../functions/runtime/run-data-sessions';
import { workspaceRoot } from '../../functions/runtime/workspace-path';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  ATHENA_ANSWERS_PATH,
  athenaAnswerFile,
  DEFAULT_DATABASE,
  DEFAULT_WORKGROUP,
} from '../../functions/tools/snapshots/athena/settings';
import { ATHENA_BYTES_SCANNED_CUTOFF, CustomerAccessStack } from '../../lib/customer-access-stack';
import { logicalIdOf, newApp, roleOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
} from '../helpers/iam-simulation';

/**
 * The Athena route's least privilege PROVED with the IAM policy simulator on the
 * synthesized policies: the customer role (CustomerAccessStack, where the
 * queries run with the tenant's session) may run queries only in the platform's
 * `etp-*` workgroup, create and read only `inventory_*` tables of the `etp_*`
 * database, read the inventory's symlink and data files — and still cannot read
 * a content object, even after an administrator attaches s3:*, athena:* and
 * glue:*. The route's answers go into the platform's run workspace: the
 * snapshot tools' own roles (platform account) cannot reach it at all, and the
 * run-data session the dispatcher vends for a call (narrowed by the spec's
 * `workspaceAccess`, functions/runtime/run-data-sessions.ts) reaches only that
 * tool's answer files of the call's own run.
 */
const PLATFORM = '123456789012';
const CUSTOMER = '210987654321';
const REGION = 'eu-west-1';
/** The tools whose answers the route writes to the run workspace: found by their spec's `workspaceAccess`. */
const TOOLS = toolCatalog
  .list()
  .filter((spec) => spec.workspaceAccess?.paths.some((p) => p.startsWith(ATHENA_ANSWERS_PATH)))
  .map((spec) => spec.name);

const WIDENED: NamedPolicy = {
  name: 'AdministratorWidened',
  policy: {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['s3:*', 'athena:*', 'glue:*'], Resource: '*' }],
  },
};

let customer: ResolvedTemplate;
let customerTemplate: Template;
let customerRoleId: string;
let platform: ResolvedTemplate;
let toolRoles: Record<string, string>;
let runDataRoleId: string;
let workspace: string;

beforeAll(() => {
  const customerStack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');
  customerTemplate = Template.fromStack(customerStack);
  customer = resolveTemplate(customerTemplate, {
    account: CUSTOMER,
    region: REGION,
    parameters: { PlatformAccountId: PLATFORM, ExternalId: 'etp-acme-3f9a1c7e', TenantId: 'acme' },
  });
  customerRoleId = logicalIdOf(customerStack.auditRole);
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  toolRoles = Object.fromEntries(TOOLS.map((name) => [name, roleOf(template, toolFunctionId(stack, name))]));
  runDataRoleId = logicalIdOf(stack.platform.runData.role);
  workspace = arnIn(platform, logicalIdOf(stack.platform.runWorkspace.bucket));
});

function ask(role: string, action: string, resource: string, widened = false) {
  const [resolved, id, account] =
    role === 'customer'
      ? [customer, customerRoleId, CUSTOMER]
      : [platform, toolRoles[role] as string, PLATFORM];
  const policies = identityPoliciesOf(resolved, id);
  return decide({
    principal: sessionOf(arnIn(resolved, id), 'etp.acme'),
    identityPolicies: widened ? [...policies, WIDENED] : policies,
    action,
    resource,
    resourceAccount: account,
  });
}

const GLUE = `arn:aws:glue:${REGION}:${CUSTOMER}`;
const WORKGROUP = `arn:aws:athena:${REGION}:${CUSTOMER}:workgroup/${DEFAULT_WORKGROUP}`;
const TABLE = `${GLUE}:table/${DEFAULT_DATABASE}/inventory_0123456789abcdef01234567`;
const SYMLINK = 'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/symlink.txt';
const DATA_FILE =
  'arn:aws:s3:::inventory-dest/photos/daily/data/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.parquet';
const ORC_DATA_FILE =
  'arn:aws:s3:::inventory-dest/legacy/weekly-orc/data/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.orc';
const CONTENT = [
  'arn:aws:s3:::inventory-dest/legacy/weekly-orc/data/sales.orc',
  'arn:aws:s3:::photos/exports/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.orc',
  'arn:aws:s3:::photos/2026/family.jpg',
  'arn:aws:s3:::inventory-dest/photos/daily/data/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/hive/symlink.txt',
];

describe('the customer role on the Athena route', () => {
  it.each([
    ['athena:StartQueryExecution', WORKGROUP],
    ['athena:GetQueryExecution', WORKGROUP],
    ['athena:GetQueryResults', WORKGROUP],
    ['glue:GetDatabase', `${GLUE}:database/${DEFAULT_DATABASE}`],
    ['glue:GetTable', TABLE],
    ['glue:CreateTable', TABLE],
    ['glue:CreateTable', `${GLUE}:catalog`],
    ['s3:GetObject', SYMLINK],
    ['s3:GetObject', DATA_FILE],
    ['s3:GetObject', ORC_DATA_FILE],
    ['s3:GetBucketLocation', 'arn:aws:s3:::inventory-dest'],
  ])('may %s on %s', async (action, resource) => {
    expect(await ask('customer', action, resource)).toBe('Allowed');
  });

  it.each([
    ['athena:StartQueryExecution', `arn:aws:athena:${REGION}:${CUSTOMER}:workgroup/primary`],
    ['athena:UpdateWorkGroup', WORKGROUP],
    ['athena:StopQueryExecution', WORKGROUP],
    ['glue:CreateTable', `${GLUE}:table/default/inventory_0123456789abcdef01234567`],
    ['glue:GetTable', `${GLUE}:table/${DEFAULT_DATABASE}/customers`],
    ['glue:DeleteTable', TABLE],
    ['glue:UpdateTable', TABLE],
    ['glue:GetPartitions', TABLE],
    ['s3:PutObject', SYMLINK],
    ['s3:PutObject', 'arn:aws:s3:::inventory-dest/athena-results/q-1.csv'],
  ])('may not %s on %s', async (action, resource) => {
    expect(await ask('customer', action, resource)).toBe('ImplicitlyDenied');
  });

  it.each(CONTENT)(
    'cannot read content object %s, even widened to s3:*, athena:*, glue:*',
    async (resource) => {
      expect(await ask('customer', 's3:GetObject', resource)).not.toBe('Allowed');
      expect(await ask('customer', 's3:GetObject', resource, true)).toBe('ExplicitlyDenied');
      expect(await ask('customer', 's3:GetObjectVersion', resource, true)).toBe('ExplicitlyDenied');
    },
  );

  it('comes with its workgroup (managed query results, settings enforced, a scan cut-off) and Glue database', () => {
    customerTemplate.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: DEFAULT_WORKGROUP,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: ATHENA_BYTES_SCANNED_CUTOFF,
        ManagedQueryResultsConfiguration: { Enabled: true },
      },
    });
    const [workGroup] = Object.values(customerTemplate.findResources('AWS::Athena::WorkGroup'));
    expect(workGroup?.Properties.WorkGroupConfiguration.ResultConfiguration).toBeUndefined();
    customerTemplate.hasResourceProperties('AWS::Glue::Database', {
      DatabaseInput: { Name: DEFAULT_DATABASE },
    });
  });
});

/**
 * The report times of one call's answer: one report for `snapshot_stats`, two compared for
 * `diff_snapshots`. A tool that writes answers and has no row here fails `answerKey`, naming it.
 */
const TIMES: Readonly<Record<string, string[]>> = {
  snapshot_stats: ['2026-03-10T01-00Z'],
  diff_snapshots: ['2026-03-09T01-00Z', '2026-03-10T01-00Z'],
};

/** The key of `tool`'s answer in a run's workspace, named as the route names it (athena/route.ts). */
function answerKey(tool: string, run: { tenant: string; scenario?: string; runId: string }) {
  const times = TIMES[tool];
  if (!times) throw new Error(`${tool} writes Athena answers: add its report times to TIMES in this file`);
  return `${workspaceRoot(run)}${ATHENA_ANSWERS_PATH}${athenaAnswerFile(tool, times)}`;
}

const ACME_RUN = { tenant: 'acme', scenario: 's3_review', runId: 'r1' };

describe.each(TOOLS)("%s's own role and the route's answers", (tool) => {
  it("cannot write, read or list any run's answer itself, even widened to s3:*", async () => {
    // Prepare
    const keys = [answerKey(tool, ACME_RUN), answerKey(tool, { tenant: 'acme', runId: 'r1' })];

    // Act
    const decisions = await Promise.all(
      keys.flatMap((key) =>
        [false, true].flatMap((widened) => [
          ask(tool, 's3:PutObject', `${workspace}/${key}`, widened),
          ask(tool, 's3:GetObject', `${workspace}/${key}`, widened),
        ]),
      ),
    );
    const listed = await decide({
      principal: sessionOf(arnIn(platform, toolRoles[tool] as string), 'etp.acme'),
      identityPolicies: [...identityPoliciesOf(platform, toolRoles[tool] as string), WIDENED],
      action: 's3:ListBucket',
      resource: workspace,
      resourceAccount: PLATFORM,
      context: { 's3:prefix': answerKey(tool, ACME_RUN) },
    });

    // Assess: explicitly (the run workspaces' Deny, never excepted), so no later Allow opens it
    expect(decisions).toEqual(decisions.map(() => 'ExplicitlyDenied'));
    expect(listed).toBe('ExplicitlyDenied');
  });

  it('cannot read a content object, even widened', async () => {
    for (const resource of CONTENT) {
      expect(await ask(tool, 's3:GetObject', resource, true)).toBe('ExplicitlyDenied');
    }
  });
});

describe.each(TOOLS)("the run-data session the dispatcher vends for a %s call of acme's", (tool) => {
  const access = () => {
    const declared = toolCatalog.get(tool).workspaceAccess;
    if (!declared) throw new Error(`${tool} declares no workspaceAccess`);
    return declared;
  };
  /** As functions/dispatcher/vending-invoker.ts opens it: the spec's paths, in run r1 of acme. */
  const inSession = (action: string, resource: string, context: Record<string, string> = {}) => {
    const arn = arnIn(platform, runDataRoleId);
    return decide({
      principal: sessionOf(arn, 'etp-secrets.acme'),
      identityPolicies: identityPoliciesOf(platform, runDataRoleId),
      sessionPolicy: JSON.parse(
        workspaceSessionPolicy({
          partition: 'aws',
          bucket: workspace.split(':::')[1] ?? '',
          run: ACME_RUN,
          paths: access().paths,
          access: access().access,
        }),
      ),
      action,
      resource,
      resourceAccount: PLATFORM,
      context: { 'aws:PrincipalArn': arn, 'aws:PrincipalTag/etp-tenant': 'acme', ...context },
    });
  };

  it("writes and reads back this run's answer of the tool, and lists exactly it", async () => {
    // Act
    const key = answerKey(tool, ACME_RUN);
    const decisions = {
      put: await inSession('s3:PutObject', `${workspace}/${key}`),
      get: await inSession('s3:GetObject', `${workspace}/${key}`),
      listed: await inSession('s3:ListBucket', workspace, { 's3:prefix': key }),
    };

    // Assess
    expect(decisions).toEqual({ put: 'Allowed', get: 'Allowed', listed: 'Allowed' });
  });

  it("reaches no other tenant's, run's or tool's answer, no other file of the run, and lists no folder", async () => {
    // Prepare
    const other = TOOLS.find((name) => name !== tool) ?? tool;
    const keys = [
      answerKey(tool, { ...ACME_RUN, tenant: 'globex' }),
      answerKey(tool, { ...ACME_RUN, tenant: 'acme-2' }),
      answerKey(tool, { ...ACME_RUN, runId: 'r2' }),
      answerKey(tool, { tenant: 'acme', runId: 'r1' }),
      answerKey(other, ACME_RUN),
      `${workspaceRoot(ACME_RUN)}snapshots/findings.json`,
      `${workspaceRoot(ACME_RUN)}report.md`,
      `${workspaceRoot(ACME_RUN)}results/stats/0.json`,
    ];

    // Act
    const objects = await Promise.all(
      keys.flatMap((key) =>
        ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'].map((action) =>
          inSession(action, `${workspace}/${key}`),
        ),
      ),
    );
    const listings = await Promise.all(
      [`${workspaceRoot(ACME_RUN)}${ATHENA_ANSWERS_PATH}`, workspaceRoot(ACME_RUN), 'runs/acme/'].map(
        (prefix) => inSession('s3:ListBucket', workspace, { 's3:prefix': prefix }),
      ),
    );

    // Assess
    expect(objects).toEqual(objects.map(() => 'ImplicitlyDenied'));
    expect(listings).toEqual(listings.map(() => 'ImplicitlyDenied'));
  });

  it('cannot read a content object of the customer, even with s3:* in its session', async () => {
    const arn = arnIn(platform, runDataRoleId);
    for (const resource of CONTENT) {
      expect(
        await decide({
          principal: sessionOf(arn, 'etp-secrets.acme'),
          identityPolicies: identityPoliciesOf(platform, runDataRoleId),
          action: 's3:GetObject',
          resource,
          resourceAccount: CUSTOMER,
          context: { 'aws:PrincipalArn': arn, 'aws:PrincipalTag/etp-tenant': 'acme' },
        }),
      ).not.toBe('Allowed');
    }
  });
});
