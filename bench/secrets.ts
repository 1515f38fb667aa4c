/**
 * Secret resolutions in one warm container (issue 8, "Benchmark"): 1,000 tool
 * calls over 3 tenants, spread over 15 minutes of a simulated clock, through the
 * deployed resolver (tenant reader sessions from STS, reference rows from
 * DynamoDB, values from Secrets Manager through Powertools Parameters, every
 * cache on). The AWS clients are stubbed (aws-sdk-client-mock) so the calls they
 * receive are counted: the target is one DynamoDB GetItem and one Secrets Manager
 * GetSecretValue per tenant-secret per max-age window (300 s), and one STS
 * AssumeRole per tenant-secret per session (1 hour). A cache hit is timed too.
 *
 * Standalone: `npx tsx bench/secrets.ts`; `benchSecrets()` returns the section.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DEFAULT_SECRET_TTL_SECONDS } from '../functions/runtime/secrets/resolver';
import { deployedSecretResolver } from '../functions/runtime/secrets/tenant-scope';
import { atMost, type Figure, formatReport, quantile, type Section } from './report';

/** Tool calls simulated. */
const CALLS = 1_000;
const TENANTS = ['acme', 'globex', 'initech'] as const;
/** Simulated span of the calls, in seconds: three max-age windows. */
const SPAN_SECONDS = 900;
/** Every 4th call is a Slack tool (slack_default), the others AWS tools (aws_default). */
const SLACK_EVERY = 4;
const HIT_P50_TARGET_MS = 0.05;

const ACCOUNT = '123456789012';
const READERS = {
  aws_default: `arn:aws:iam::${ACCOUNT}:role/etp-reader-aws_default`,
  slack_default: `arn:aws:iam::${ACCOUNT}:role/etp-reader-slack_default`,
};
const secretArn = (tenant: string, name: string) =>
  `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:etp/${tenant}/${name}-AbCdEf`;

/** What one run counted and timed. */
export interface SecretsBench {
  readonly calls: number;
  readonly tenantSecrets: number;
  readonly windows: number;
  readonly getItem: number;
  readonly getSecretValue: number;
  readonly assumeRole: number;
  /** Resolution times of cache hits, ms. */
  readonly hitsMs: number[];
}

/** Runs the 1,000 calls and counts what reached AWS. */
export async function measureSecretResolutions(): Promise<SecretsBench> {
  const documents = mockClient(DynamoDBDocumentClient);
  const secrets = mockClient(SecretsManagerClient);
  const sts = mockClient(STSClient);
  // One simulated clock for our caches, Powertools' (`new Date()`, `Date.now()`) and the sessions' expiry.
  const RealDate = Date;
  let now = RealDate.parse('2024-05-01T06:00:00Z');
  class SimulatedDate extends RealDate {
    constructor(...args: ConstructorParameters<typeof Date> | []) {
      if (args.length === 0) super(now);
      else super(...(args as ConstructorParameters<typeof Date>));
    }
    static override now(): number {
      return now;
    }
  }
  globalThis.Date = SimulatedDate as DateConstructor;
  /** What a signed request does first: resolve the client's credentials (a reader session from STS). */
  const sign = async (getClient: () => unknown) => {
    const { credentials } = (getClient() as { config: { credentials: () => Promise<unknown> } }).config;
    await credentials();
  };
  try {
    documents
      .on(GetCommand)
      .callsFake(async (input: { Key: { tenant_id: string; secret_name: string } }, getClient) => {
        await sign(getClient);
        return {
          Item: {
            ...input.Key,
            ref_kind: 'secrets_manager',
            ref_value: secretArn(input.Key.tenant_id, input.Key.secret_name),
          },
        };
      });
    secrets.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }, getClient) => {
      await sign(getClient);
      return {
        ARN: input.SecretId,
        SecretString: input.SecretId.includes('slack')
          ? '{"bot_token":"xoxb-bench-fake-token"}'
          : '{"role_arn":"arn:aws:iam::210987654321:role/ExternalToolsPlatformAudit","external_id":"bench-fake"}',
      };
    });
    sts.on(AssumeRoleCommand).callsFake(async () => ({
      Credentials: {
        AccessKeyId: 'ASIABENCHFAKE0000001',
        SecretAccessKey: 'bench-fake-secret',
        SessionToken: 'bench-fake-token',
        Expiration: new Date(now + 3_600_000),
      },
    }));
    const resolver = deployedSecretResolver('etp-secret-references', READERS, { now: () => now });
    const hitsMs: number[] = [];
    const used = new Set<string>();
    for (let call = 0; call < CALLS; call++) {
      now += (SPAN_SECONDS * 1000) / CALLS;
      const tenant = TENANTS[call % TENANTS.length] as string;
      const name = call % SLACK_EVERY === 0 ? 'slack_default' : 'aws_default';
      used.add(`${tenant}/${name}`);
      const before = documents.commandCalls(GetCommand).length;
      const started = performance.now();
      await resolver.resolve(tenant, name);
      const elapsed = performance.now() - started;
      if (documents.commandCalls(GetCommand).length === before) hitsMs.push(elapsed);
    }
    return {
      calls: CALLS,
      tenantSecrets: used.size,
      windows: Math.ceil(SPAN_SECONDS / DEFAULT_SECRET_TTL_SECONDS),
      getItem: documents.commandCalls(GetCommand).length,
      getSecretValue: secrets.commandCalls(GetSecretValueCommand).length,
      assumeRole: sts.commandCalls(AssumeRoleCommand).length,
      hitsMs,
    };
  } finally {
    globalThis.Date = RealDate;
    documents.restore();
    secrets.restore();
    sts.restore();
  }
}

/** The benchmark's report section. */
export async function benchSecrets(): Promise<Section> {
  const run = await measureSecretResolutions();
  const perWindow = run.tenantSecrets * run.windows;
  const figures: Figure[] = [
    { name: 'tool calls (3 tenants, 15 simulated minutes)', value: String(run.calls) },
    atMost('DynamoDB GetItem', run.getItem, perWindow, '', 0),
    atMost('Secrets Manager GetSecretValue', run.getSecretValue, perWindow, '', 0),
    atMost('STS AssumeRole (reader sessions, 1 h)', run.assumeRole, run.tenantSecrets, '', 0),
    atMost('cache hit p50', quantile(run.hitsMs, 0.5), HIT_P50_TARGET_MS, 'ms', 4),
    { name: 'cache hit p99', value: `${quantile(run.hitsMs, 0.99).toFixed(4)} ms` },
  ];
  return {
    title: 'Secret resolutions, one warm container (issue 8)',
    figures,
    notes: [
      `${run.tenantSecrets} tenant-secrets × ${run.windows} max-age windows of ${DEFAULT_SECRET_TTL_SECONDS} s = ${perWindow} reads at most of each kind`,
      `${run.hitsMs.length} of ${run.calls} resolutions were cache hits`,
    ],
  };
}

if (require.main === module) {
  benchSecrets()
    .then((section) => process.stdout.write(formatReport(['npx tsx bench/secrets.ts'], [section])))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    });
}
