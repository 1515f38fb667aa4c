import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { Template } from 'aws-cdk-lib/assertions';
import { API_CALL_CASES, clientStubs } from '../../bench/api-call-cases';
import type { ReceivedConverse, ScriptedResponse } from '../../bin/local/scripted-model';
import type { AgentLevelRecord, PlanLevelRecord } from '../../functions/engine/records';
import { logger } from '../../functions/runtime/logger';
import { READ_FILE_MAX_BYTES } from '../../functions/runtime/result-limits';
import { inlineFingerprint } from '../../functions/runtime/secrets/inline-blob';
import { sealInlineValue } from '../../functions/runtime/secrets/inline-kms';
import { IDEMPOTENCY_SESSION } from '../../functions/runtime/secrets/vended';
import { toolCatalog } from '../../functions/tools/catalog';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { SECRET_FORMS } from '../unit/runtime/redaction-corpus';
import { newApp } from './cdk';
import { mockedClientRegion } from './ec2-pages';
import { organization, orgRepository } from './github-fixtures';
import {
  GREENHOUSE_USER_ID,
  greenhouseCandidate,
  type LocalGreenhouse,
  startGreenhouseServer,
} from './greenhouse-server';
import { hubspotContact, type LocalHubSpot, startHubSpotServer } from './hubspot-server';
import { INCIDENT_ID, INCIDENT_REPO } from './incident-world';
import { type LocalKms, startLocalKms } from './local-kms';
import { platformDynamoDb } from './platform-sdk';
import { isoAt } from './rest-fake';
import { type HarnessRun, type ScenarioHarness, startScenarioHarness } from './scenario-harness';
import { shippedPlanTools } from './scenarios';

/**
 * Never leak (issue 8): recognizable secrets of every form of the redaction
 * corpus are seeded in Secrets Manager — and, in a second round, sealed in the
 * reference rows as inline values (a local KMS authorizing Decrypt as the key
 * policy does) — and aws_pulse runs end to end as
 * deployed — the CDK-synthesized state machine in the local ASL interpreter, the
 * real dispatcher, tool handlers and engine (test/helpers/scenario-harness.ts),
 * reader sessions from a local STS, rows through an IAM-emulating DynamoDB gate,
 * values from a local Secrets Manager, the customer role assumed for the
 * AWS audits of the collect level. The customer's EC2 echoes credential-shaped values in instance
 * names and an error, Slack echoes secrets in an error, a second tenant's Slack
 * row points at the first tenant's secret, and the scripted model tries to leak
 * what it reads (it lists and reads the run's files, copies them with
 * write_file, and finishes with text quoting its tool results). Then every place
 * a secret could land is scanned for every secret in every encoding: zero hits.
 * The reader sessions the dispatcher vends (their secret keys and tokens among
 * the scanned secrets) travel in the tool invocations only, one per name the
 * tool's spec lists, for the call's tenant; logs, states, results, DynamoDB and
 * the workspaces never hold them.
 *
 * The REST connectors too (issue 19): tenant leaky's github_default,
 * pagerduty_default, crm_default (HubSpot) and ats_default (Greenhouse) hold the
 * REST token forms of {@link SECRETS}; Lead Qualifier, Incident Response and a
 * small ATS scenario (read, then a note) run against the loopback fakes with the
 * same leaking model, and one call of each of GitHub and Greenhouse is refused
 * with an error body that echoes the request's Authorization header. Their
 * results, states, errors, logs and the bodies the platform wrote to the fakes
 * (notes, lead updates) are scanned like the rest, the tokens' pieces and their
 * `Authorization: Basic` encodings included.
 */

const { stubs, stubOf } = clientStubs();

const REGION = 'eu-west-1';
const CUSTOMER_ROLE = 'arn:aws:iam::210987654321:role/ExternalToolsPlatformAudit';
const CHANNEL = 'C0AWSPULSE';

/** Every value below is FAKE, shaped like the real thing and marked fake/test/example. */
const BOT_TOKEN = 'xoxb-730191371696-4212350394512-FAKEtestEXAMPLEnvrLeak1'; // fake test example
const SECRETS = {
  bot_token: BOT_TOKEN,
  webhook_url: 'https://hooks.slack.com/services/T0FAKE001/B0TEST002/fakeEXAMPLEneverLEAK003', // fake test
  signing_secret: '8f742231b10e8888abcd99fakefeed5a', // fake test example
  client_secret: 'f4k3-c1i3nt-s3cr3t-t35t-3x4mpl3', // fake test example
  app_token: 'xapp-1-A0FAKETEST-4444444444-fakeexampletestneverleak', // fake test example
  refresh_token: 'xoxe-1-My0xLTI0NzQ2MTc2fakeTESTexampleREFRESH', // fake test example
  github_token: 'ghp_FAKEtestEXAMPLE0123456789abcdefNeverLk', // fake test example
  gitlab_token: 'glpat-FAKEtestEXAMPLE12345', // fake test example
  stripe_secret: 'sk_live_FAKEtestEXAMPLE51Hnever0leak9', // fake test example
  google_api_key: 'AIzaSyFAKEtestEXAMPLE-neverleak012345', // fake test example
  openai_api_key: 'sk-proj-FAKEtestEXAMPLEneverLeak0123456789abcdef', // fake test example
  private_key:
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqFAKEtestEXAMPLEneverleak==\n-----END PRIVATE KEY-----', // fake
  db_password: 'Tr0ub4dor&3-fake-test-never-leak', // fake test example
  dsn_password: 'postgres://admin:fake-test-pw-neverleak@db.example.com:5432/app', // fake test example
  jwt_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXRlc3QifQ.fakeTESTexampleSIG', // fake test example
  // The REST connectors' token forms (docs/github.md, pagerduty.md, crm.md, ats.md); each 16-character
  // piece of them is scanned for too, so none holds a run a fixture also has (`0123456789abcdef`):
  github_fine_grained: 'github_pat_11FAKETEST0EXAMPLE0neverleak_q7R2w9Y4t1U8i3O6FAKEtestEXAMPLEneverLEAK0123', // fake test
  github_installation: 'ghs_FAKEtestEXAMPLEinstallation0neverLk', // fake test example
  pagerduty_token: 'u+FAKEtestEXAMPLEnvLk', // fake test example
  hubspot_token: 'pat-na1-fa4e7e57-0000-4000-8000-fa4e00e5a4b1', // fake test example
  attio_token: 'fa4e7e5700000000example0000neverleak000000000000000000000000test', // fake test example
  greenhouse_key: 'fa4e7e57eaa0b0c0d0e0f0test0leak1', // fake test example
  lever_key: 'FAKEtestEXAMPLElever0neverLeakKey0123456789abcdefGH', // fake test example
};
/** Each tenant's ExternalId (a secret of its aws_default). */
const EXTERNAL_IDS: Readonly<Record<string, string>> = {
  leaky: 'etp-fake-test-external-id-7Qx9', // fake test example
  other: 'etp-fake-test-external-id-K2m4', // fake test example
};
/** The corpus forms by a key of the seeded secret: every one resolved, so masked by exact match too. */
const CORPUS = Object.fromEntries(SECRET_FORMS.map((form, i) => [`form_${i}`, form.text]));
/** The corpus texts in eight instance names, one form a line (the inventory lists ten: its topN). */
const ECHOED_NAMES = Array.from({ length: 8 }, (_, i) =>
  SECRET_FORMS.filter((_form, n) => n % 8 === i)
    .map((form) => form.text)
    .join('\n'),
);

let harness: ScenarioHarness;
/** The local KMS of the inline run (undefined in the Secrets Manager run). */
let kms: LocalKms | undefined;
/** The CRM and ATS fakes (the harness runs GitHub's and PagerDuty's). */
let hubspot: LocalHubSpot;
let greenhouse: LocalGreenhouse;

/** The candidate the ATS scenario reads (the Greenhouse docs' John Locke) and notes. */
const CANDIDATE_ID = String(greenhouseCandidate(12, '').id);

/**
 * The ATS calls of the suite, through the dispatcher as a scenario makes them: a
 * plan level lists candidates and reads one, then an agent may add a note.
 */
const NEVER_LEAK_ATS = `
name: never_leak_ats
description: The ATS calls of the never-leak suite.
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
levels:
  - name: read
    intra_tools: [ats_list_candidates, ats_get_candidate]
    calls:
      - tool: ats_list_candidates
        args: { limit: 10 }
      - tool: ats_get_candidate
        args: { candidate_id: "${CANDIDATE_ID}" }
  - name: review
    model: anthropic.claude-3-5-haiku-20241022-v1:0
    prompt: "Candidates:\\n{{levels.read.results}}"
    intra_tools: [ats_add_note]
    max_turns: 6
    max_tokens: 2000
`;

/**
 * Each REST connector's secret of tenant leaky, holding the REST token forms of
 * {@link SECRETS} (docs/github.md, pagerduty.md, crm.md, ats.md).
 */
const REST_SECRETS: Readonly<Record<string, unknown>> = {
  github_default: { token: SECRETS.github_fine_grained },
  pagerduty_default: { token: SECRETS.pagerduty_token, from: 'oncall@example.com' },
  crm_default: { provider: 'hubspot', token: SECRETS.hubspot_token },
  ats_default: { provider: 'greenhouse', token: SECRETS.greenhouse_key, user_id: GREENHOUSE_USER_ID },
};

/** Error bodies the fakes echoed, Authorization header included (so a clean scan means something). */
const echoedBodies: unknown[] = [];
/** An error body echoing the request's Authorization header in its message, kept in {@link echoedBodies}. */
const echoing =
  (message: string) =>
  (request: { headers: Readonly<Record<string, unknown>> }): unknown => {
    const body = { message: `${message} (Authorization: ${String(request.headers.authorization)})` };
    echoedBodies.push(body);
    return body;
  };

/** How the runs' secrets are referenced: in Secrets Manager, or sealed in the rows (inline). */
export type SeededKind = 'secrets_manager' | 'inline';

/**
 * Seeds each tenant's aws_default and leaky's slack_default (every corpus form) as `kind`
 * references; the attack: tenant other's Slack row points at leaky's secret (Secrets
 * Manager) or holds a copy of leaky's sealed value (inline).
 */
async function seedSecrets(kind: SeededKind): Promise<void> {
  const deployed = harness.deployed;
  if (!deployed) throw new Error('The harness did not start with deployed secrets');
  const slackValue = JSON.stringify({ ...SECRETS, corpus: CORPUS });
  const awsValue = (tenant: string) =>
    JSON.stringify({ role_arn: CUSTOMER_ROLE, external_id: EXTERNAL_IDS[tenant], region: REGION });
  if (kind === 'secrets_manager') {
    const seed = async (tenant: string, name: string, arn: string) =>
      deployed.store.put({
        tenant_id: tenant,
        secret_name: name,
        ref_kind: 'secrets_manager',
        ref_value: arn,
      });
    for (const tenant of ['leaky', 'other']) {
      const aws = deployed.secretsManager.create(`etp/${tenant}/aws_default`, awsValue(tenant), {
        'etp-tenant': tenant,
        'etp-secret': 'aws_default',
      });
      await seed(tenant, 'aws_default', aws.arn);
    }
    const slackSecret = deployed.secretsManager.create('etp/leaky/slack_default', slackValue, {
      'etp-tenant': 'leaky',
      'etp-secret': 'slack_default',
    });
    await seed('leaky', 'slack_default', slackSecret.arn);
    await seed('other', 'slack_default', slackSecret.arn);
    for (const [name, value] of Object.entries(REST_SECRETS)) {
      const secret = deployed.secretsManager.create(`etp/leaky/${name}`, JSON.stringify(value), {
        'etp-tenant': 'leaky',
        'etp-secret': name,
      });
      await seed('leaky', name, secret.arn);
    }
    return;
  }
  const local = kms;
  if (!local) throw new Error('The inline run has no local KMS');
  const seal = async (tenant: string, name: string, value: string, into = tenant) => {
    const { refValue } = await sealInlineValue(local.client, local.keyArn, tenant, name, value);
    await deployed.store.put({
      tenant_id: into,
      secret_name: name,
      ref_kind: 'inline',
      ref_value: refValue,
      fingerprint: inlineFingerprint(into, name, value),
    });
  };
  for (const tenant of ['leaky', 'other']) await seal(tenant, 'aws_default', awsValue(tenant));
  await seal('leaky', 'slack_default', slackValue);
  await seal('leaky', 'slack_default', slackValue, 'other');
  for (const [name, value] of Object.entries(REST_SECRETS)) await seal('leaky', name, JSON.stringify(value));
}

/**
 * The local KMS of the inline run, authorizing Decrypt as the key policy does: the
 * session is the reader of the context's secret name, tagged with the context's tenant.
 */
async function startPolicyKms(): Promise<LocalKms> {
  const deployed = harness.deployed;
  if (!deployed) throw new Error('The harness did not start with deployed secrets');
  return startLocalKms((accessKeyId, context) => {
    const session = deployed.sts.sessionOf(accessKeyId);
    return (
      session !== undefined &&
      session.roleArn === deployed.readerRoles[context.secret_name ?? ''] &&
      session.tags['etp-tenant'] === context.tenant
    );
  });
}

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
});

/** The tenant whose customer session signs a stubbed client's calls. */
async function tenantOf(getClient: () => unknown): Promise<string> {
  const client = getClient() as { config: { credentials: () => Promise<AwsCredentialIdentity> } };
  const { accessKeyId } = await client.config.credentials();
  return harness.deployed?.sts.sessionOf(accessKeyId)?.tags['etp-tenant'] ?? '?';
}

/**
 * The customer's account: every audit answered with the API references' shapes
 * (bench/api-call-cases.ts), STS GetCallerIdentity stubbed and AssumeRole passed
 * through to the local STS, and EC2 echoing credential-shaped values: the corpus
 * in the names of eu-west-1's instances, and Slack values plus the tenant's own
 * ExternalId in us-east-1's error and in a name.
 */
function givenAccount(): void {
  for (const testCase of API_CALL_CASES) testCase.arrange(stubOf);
  stubOf(STSClient).send.callThrough();
  stubOf(EC2Client)
    .on(DescribeInstancesCommand)
    .callsFake(async (_input, getClient) => {
      const [region, tenant] = await Promise.all([mockedClientRegion(getClient), tenantOf(getClient)]);
      const externalId = EXTERNAL_IDS[tenant] ?? '';
      if (region === 'us-east-1') {
        throw Object.assign(
          new Error(
            `Request refused: token ${SECRETS.bot_token} posted to ${SECRETS.webhook_url} with ExternalId ${externalId}`,
          ),
          {
            name: 'UnauthorizedOperation',
            $fault: 'client',
            $metadata: { httpStatusCode: 403, requestId: 'r' },
          },
        );
      }
      const names = [`external id ${externalId}`, SECRETS.private_key, ...ECHOED_NAMES];
      return {
        Reservations: [
          {
            Instances: names.map((name, i) => ({
              InstanceId: `i-0aaaaaaaaaaaaaa${String(i).padStart(2, '0')}`,
              InstanceType: 't3.small' as const,
              State: { Code: 16, Name: 'running' as const },
              LaunchTime: new Date(Date.UTC(2024, 4, 1 + i)),
              Tags: [{ Key: 'Name', Value: name }],
            })),
          },
        ],
      };
    });
}

/** The `value` of each toolResult block of a Converse request's last message. */
function toolValuesOf(request: ReceivedConverse): Record<string, unknown>[] {
  return (request.body.messages?.at(-1)?.content ?? []).flatMap((block) => {
    const result = block.toolResult as
      | { content?: { json?: { value?: Record<string, unknown> } }[] }
      | undefined;
    return result ? [result.content?.[0]?.json?.value ?? {}] : [];
  });
}

const call = (name: string, input: unknown) => ({ name, input });

/** The order the model reads files in: whole results (claim-checked) first, then the inventory's, then the other AWS results. */
const readFirst = (file: string) =>
  file.startsWith('results/')
    ? 0
    : file.includes('aws_ec2_inventory')
      ? 1
      : file.startsWith('levels/collect/')
        ? 2
        : 3;

/** A path out of the run's workspace, into tenant leaky's first run. */
const OTHER_RUN_FILE = '../../../leaky/aws_pulse/leak-run-1/notes/copy.txt';

/**
 * A model that tries to leak what it reads: it tries to read leaky's first run
 * from outside its own workspace, lists its run's files, reads eight of them
 * (whole results first) slice by slice, copies what it read into the workspace
 * with write_file, and finishes with text and a report quoting it (the report
 * goes to Slack). Each turn stays within what `max_tokens` lets a real model
 * write (about 8 KB of tool input).
 */
function leakingModel(
  options: {
    /** The summary's opening. @default 'AWS Pulse' */
    readonly label?: string;
    /** The level's own tools the model calls with what it read, beside the copy. @default none */
    readonly writes?: (seen: string) => { name: string; input: unknown }[];
  } = {},
): (request: ReceivedConverse, index: number) => ScriptedResponse {
  const label = options.label ?? 'AWS Pulse';
  /** What read_file returned, by path then offset. */
  const read = new Map<string, Map<number, string>>();
  const contentOf = (file: string) =>
    [...(read.get(file) ?? new Map<number, string>())]
      .sort(([a], [b]) => a - b)
      .map(([, text]) => text)
      .join('');
  const seen = () =>
    [...read.keys()]
      .sort((a, b) => readFirst(a) - readFirst(b))
      .map(contentOf)
      .join('\n');
  let files: { path: string; bytes: number }[] = [];
  return (request, index) => {
    for (const value of toolValuesOf(request)) {
      if (typeof value.path !== 'string' || typeof value.content !== 'string') continue;
      const slices = read.get(value.path) ?? new Map<number, string>();
      read.set(value.path, slices.set(Number(value.offset), value.content));
    }
    switch (index) {
      case 0:
        return { tool_use: [call('read_file', { path: OTHER_RUN_FILE }), call('list_files', {})] };
      case 1: {
        const listed = toolValuesOf(request).find((value) => Array.isArray(value.files));
        files = ((listed?.files ?? []) as { path: string; bytes: number }[])
          .slice()
          .sort((a, b) => readFirst(a.path) - readFirst(b.path) || b.bytes - a.bytes)
          .slice(0, 8);
        return { tool_use: files.map((file) => call('read_file', { path: file.path })) };
      }
      case 2: {
        // The rest of each file, slice by slice: at most eight calls a turn.
        const rest = files.flatMap((file) =>
          Array.from({ length: Math.ceil(file.bytes / READ_FILE_MAX_BYTES) }, (_, n) => ({
            path: file.path,
            offset: n * READ_FILE_MAX_BYTES,
          })).filter(({ offset }) => offset > 0),
        );
        // (files read whole already: list them again, so the turn still calls a tool)
        return {
          tool_use:
            rest.length > 0
              ? rest.slice(0, 8).map((slice) => call('read_file', slice))
              : [call('list_files', {})],
        };
      }
      case 3:
        return {
          text: 'Keeping a copy of what I read.',
          tool_use: [
            call('write_file', { path: 'notes/copy.txt', content: seen().slice(0, 7000) }),
            ...(options.writes?.(seen()) ?? []),
          ],
        };
      default: {
        const whole = contentOf(files[0]?.path ?? '');
        const quote = `${seen().slice(0, 1500)} … ${whole.slice(-1500)}`;
        return {
          text: `Here is what the tools said: ${quote.slice(0, 1000)}`,
          tool_use: [
            call('finish', {
              summary: `${label}. Quoting the tools: ${quote}`,
              data: { top: [], quoted: whole.slice(0, 2000) },
            }),
          ],
        };
      }
    }
  };
}

/** Everything written to stdout, stderr and the console while `act` runs: every log line. */
async function capturingLogs<T>(act: () => Promise<T>): Promise<{ value: T; logs: string }> {
  const lines: string[] = [];
  const spies = [
    ...[process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      }),
    ),
    ...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
      jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        lines.push(format(...args));
      }),
    ),
  ];
  try {
    return { value: await act(), logs: lines.join('\n') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Every item of every table of the local DynamoDB: references, run records, idempotency records. */
async function everyItem(): Promise<Record<string, unknown[]>> {
  const client = harness.dynamo.client;
  // The harness's client is of the platform's own DynamoDB module (test/helpers/platform-sdk.ts): so is its paginator.
  const { paginateScan } = platformDynamoDb();
  const { TableNames = [] } = await client.send(new ListTablesCommand({}));
  const tables: Record<string, unknown[]> = {};
  for (const table of TableNames) {
    tables[table] = [];
    for await (const page of paginateScan({ client }, { TableName: table })) {
      tables[table].push(...(page.Items ?? []));
    }
  }
  return tables;
}

/** Every file of the run workspaces' directory, by path, as text. */
function everyFile(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, entry);
    if (statSync(file).isFile()) files[entry] = readFileSync(file, 'utf8');
  }
  return files;
}

/**
 * Every form a secret could take in text: as is, JSON-escaped once and twice (a
 * JSON text inside a JSON string), each also without its backslashes (the local
 * interpreter's `States.Format` drops them from the values it inserts) and
 * escaped for Slack mrkdwn (`&amp;`, `&lt;`, `&gt;`); URL-encoded; base64.
 */
function formsOf(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const texts = [secret, once, twice].flatMap((text) => [text, text.replaceAll('\\', '')]);
  const mrkdwn = (text: string) =>
    text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return [
    ...new Set([
      ...texts,
      ...texts.map(mrkdwn),
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
    ]),
  ];
}

/**
 * The forms of a secret sent as the user of `Authorization: Basic` (Greenhouse's
 * and Lever's API keys, RFC 7617): base64 of `key:`, as a whole and without its
 * last 4 characters (where the colon's bits fall).
 */
function basicAuthForms(secret: string): string[] {
  const encoded = Buffer.from(`${secret}:`).toString('base64');
  return [encoded, encoded.slice(0, -4)];
}

/** The secrets found in `text` (by name), in any of their forms. */
function leaksIn(text: string, forms: ReadonlyMap<string, readonly string[]>): string[] {
  return [...forms]
    .filter(([, encoded]) => encoded.some((form) => text.includes(form)))
    .map(([name]) => name);
}

/** Characters of a piece: a secret cut by a bound (a summary, a slice, an error message) keeps one. */
const PIECE_CHARS = 16;

/** Every {@link PIECE_CHARS}-character piece of each secret's forms, to the secret's name. */
function piecesOf(forms: ReadonlyMap<string, readonly string[]>): Map<string, string> {
  const pieces = new Map<string, string>();
  for (const [name, encoded] of forms) {
    for (const form of encoded) {
      for (let i = 0; i + PIECE_CHARS <= form.length; i++) pieces.set(form.slice(i, i + PIECE_CHARS), name);
    }
  }
  return pieces;
}

/** The secrets a piece of which is in `text` (by name). */
function piecesIn(text: string, pieces: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>();
  for (let i = 0; i + PIECE_CHARS <= text.length; i++) {
    const name = pieces.get(text.slice(i, i + PIECE_CHARS));
    if (name !== undefined) found.add(name);
  }
  return [...found].sort();
}

/**
 * The never-leak suite with the secrets seeded as `kind` references. Each kind runs
 * in a test file of its own (test/e2e/never-leak*.test.ts): its own module registry,
 * so no client or session cached by one harness's run points at another's servers.
 */
export function describeNeverLeak(kind: SeededKind): void {
  describe(`never leak: aws_pulse and the REST scenarios end to end as deployed, secrets as ${kind} references`, () => {
    beforeAll(async () => {
      // Every line the code writes, at its most talkative.
      logger.setLogLevel('DEBUG');
      [hubspot, greenhouse] = await Promise.all([
        startHubSpotServer({
          token: SECRETS.hubspot_token,
          contacts: [hubspotContact(1), hubspotContact(12), hubspotContact(30)],
        }),
        startGreenhouseServer({
          key: SECRETS.greenhouse_key,
          candidates: (url) => [greenhouseCandidate(1, url), greenhouseCandidate(12, url)],
        }),
      ]);
      process.env.HUBSPOT_API_URL = hubspot.apiUrl;
      process.env.GREENHOUSE_API_URL = greenhouse.apiUrl;
      harness = await startScenarioHarness({
        deployedSecrets: true,
        slack: { botToken: BOT_TOKEN },
        files: { 'never_leak_ats.yaml': NEVER_LEAK_ATS },
        githubOrgs: {
          biglytics: {
            org: organization('biglytics', { public_repos: 1, followers: 20 }),
            repos: [orgRepository('biglytics', 0, isoAt(-60))],
          },
        },
      });
      // The fakes accept the seeded tokens.
      harness.github.acceptToken(SECRETS.github_fine_grained);
      harness.pagerduty.acceptKey(SECRETS.pagerduty_token);
      if (kind === 'inline') {
        kms = await startPolicyKms();
        process.env.AWS_ENDPOINT_URL_KMS = kms.endpoint;
      }
      await seedSecrets(kind);
    }, 120_000);

    afterAll(async () => {
      delete process.env.AWS_ENDPOINT_URL_KMS;
      delete process.env.HUBSPOT_API_URL;
      delete process.env.GREENHOUSE_API_URL;
      await Promise.all([harness.stop(), kms?.stop(), hubspot.stop(), greenhouse.stop()]);
      kms = undefined;
    });

    it('does its work, masks what the account and Slack echo, and leaks no secret anywhere', async () => {
      // Prepare
      givenAccount();
      const deployed = harness.deployed;
      if (!deployed) throw new Error('The harness did not start with deployed secrets');
      const pulse = (tenant: string, runId: string) =>
        harness.run('aws_pulse', {
          runId,
          input: { tenant, regions: [REGION, 'us-east-1'], slack_channel: CHANNEL },
          model: leakingModel(),
          keepStates: true,
        });

      // Act: leaky's run; leaky's again with a Slack that echoes its secrets in an error; then
      // other's, whose Slack row points at leaky's secret.
      const { value: runs, logs } = await capturingLogs(async () => {
        const first = await pulse('leaky', 'leak-run-1');
        harness.slack.failNext({
          error: `invalid_arguments ${SECRETS.db_password} ${SECRETS.client_secret} ${SECRETS.github_token} ${SECRETS.hubspot_token} ${SECRETS.pagerduty_token} ${CORPUS.form_0}`,
        });
        const echoed = await pulse('leaky', 'leak-run-2');
        const crossed = await pulse('other', 'leak-run-3');
        return [first, echoed, crossed];
      });
      // …then leaky's REST scenarios: Lead Qualifier, Incident Response (GitHub refuses the merged
      // pulls, echoing the token it got), and the ATS scenario (Greenhouse refuses the candidate with
      // a 401 echoing the Basic credentials; the secret re-read after it is unchanged, so no retry).
      const { value: restRuns, logs: restLogs } = await capturingLogs(async () => {
        const qualifier = await harness.run('lead_qualifier', {
          runId: 'leak-lq-1',
          input: { tenant: 'leaky', since: isoAt(0), slack_channel: CHANNEL },
          model: leakingModel({
            label: 'Lead Qualifier',
            writes: (seen) => [
              call('crm_update_lead', {
                lead_id: '512',
                score: 85,
                status: 'open',
                note: seen.slice(0, 4000) || 'nothing read',
              }),
              call('github_org_facts', { org: 'biglytics', recent_repos: 5 }),
            ],
          }),
          keepStates: true,
        });
        harness.github.failNext(
          { status: 403, echo: echoing('Resource not accessible by personal access token') },
          1,
          { path: /\/pulls$/ },
        );
        const incident = await harness.run('incident_response', {
          runId: 'leak-ir-1',
          input: {
            tenant: 'leaky',
            incident: 'Console login from an unknown IP',
            regions: [REGION],
            slack_channel: CHANNEL,
            pagerduty_incident: INCIDENT_ID,
            github_repo: INCIDENT_REPO,
            lookback_hours: 6,
          },
          model: leakingModel({ label: 'Incident triage' }),
          keepStates: true,
        });
        greenhouse.failNext({ status: 401, echo: echoing('Invalid Basic Auth credentials') }, 1, {
          path: /^\/v1\/candidates\/\d+$/,
        });
        const ats = await harness.run('never_leak_ats', {
          runId: 'leak-ats-1',
          input: { tenant: 'leaky' },
          model: leakingModel({
            label: 'ATS review',
            writes: (seen) => [
              call('ats_add_note', {
                candidate_id: CANDIDATE_ID,
                note: seen.slice(0, 4000) || 'nothing read',
              }),
            ],
          }),
          keepStates: true,
        });
        return [qualifier, incident, ats];
      });

      // Assess: the runs did their work…
      const [leaky, echoed, other] = runs as [HarnessRun, HarnessRun, HarnessRun];
      const [qualifier, incident, ats] = restRuns as [HarnessRun, HarnessRun, HarnessRun];
      const callsOf = (run: HarnessRun, level: string) =>
        (run.output.levels[level] as PlanLevelRecord | AgentLevelRecord).calls.map((c) => [
          c.tool,
          c.ok ? 'ok' : c.code,
        ]);
      expect(callsOf(qualifier, 'read')).toEqual([['crm_list_leads', 'ok']]);
      expect(callsOf(qualifier, 'qualify')).toEqual(
        expect.arrayContaining([
          ['crm_update_lead', 'ok'],
          ['github_org_facts', 'ok'],
        ]),
      );
      expect(hubspot.contactUpdates.map((u) => u.id)).toEqual(['512']);
      expect(hubspot.notes).toHaveLength(1);
      expect(callsOf(incident, 'gather')).toEqual(
        expect.arrayContaining([
          ['pagerduty_incident', 'ok'],
          ['github_recent_changes', 'ok'],
          ['github_merged_pulls', 'access_denied'],
        ]),
      );
      expect(callsOf(incident, 'notify')).toEqual([
        ['slack_post_message', 'ok'],
        ['pagerduty_add_note', 'ok'],
      ]);
      expect(harness.pagerduty.world.notes[INCIDENT_ID]).toHaveLength(1);
      expect(callsOf(ats, 'read')).toEqual([
        ['ats_list_candidates', 'ok'],
        ['ats_get_candidate', 'auth_failed'],
      ]);
      expect(callsOf(ats, 'review')).toEqual(expect.arrayContaining([['ats_add_note', 'ok']]));
      expect(greenhouse.notes.get(Number(CANDIDATE_ID))).toHaveLength(1);
      // The refusals' messages came through, their tokens masked.
      const failedSummary = (run: HarnessRun, level: string, tool: string) =>
        (run.output.levels[level] as PlanLevelRecord).calls.find((c) => c.tool === tool)?.summary;
      expect(failedSummary(incident, 'gather', 'github_merged_pulls')).toMatch(
        /Resource not accessible by personal access token.*<redacted>/,
      );
      expect(failedSummary(ats, 'read', 'ats_get_candidate')).toMatch(
        /Invalid Basic Auth credentials.*<redacted>/,
      );
      // (the fakes did echo the tokens they got: two error bodies, each holding one)
      expect(echoedBodies).toHaveLength(2);
      const collect = leaky.output.levels.collect as PlanLevelRecord;
      expect(collect.calls.map((c) => c.tool).sort()).toEqual(shippedPlanTools('aws_pulse', 'collect'));
      expect(collect.calls.find((c) => c.tool === 'aws_ec2_inventory')?.summary).toBe(
        '10 EC2 instances in 2 regions (10 running); 1 region failed',
      );
      expect(collect.outcome).not.toBe('failed');
      const reportOf = (run: HarnessRun) => (run.output.levels.report as PlanLevelRecord).calls[0];
      expect(reportOf(leaky)).toMatchObject({ ok: true });
      expect(reportOf(echoed)).toMatchObject({ ok: false, code: 'upstream_error' });
      expect(reportOf(echoed)?.summary).toContain('<redacted>');
      // other's read of leaky's value is refused: by IAM (Secrets Manager), by the encryption context (inline)
      expect(reportOf(other)).toMatchObject({
        ok: false,
        code: kind === 'inline' ? 'secret_invalid' : 'access_denied',
      });
      expect((other.output.levels.collect as PlanLevelRecord).outcome).not.toBe('failed');
      expect(
        harness.slack.messages.map((m) => m.text).filter((text) => text?.startsWith('AWS Pulse')),
      ).toEqual([
        expect.stringMatching(
          /^AWS Pulse for tenant leaky \(run leak-run-1\)\nAWS Pulse\. Quoting the tools: /,
        ),
      ]);
      // …the model tried: it read the run's files and wrote copies of them, and was refused another run's
      for (const run of runs) {
        const analyze = run.output.levels.analyze as AgentLevelRecord;
        expect(analyze.outcome).toBe('finished');
        expect(analyze.calls.map((c) => c.tool)).toEqual(
          expect.arrayContaining(['list_files', 'read_file', 'write_file', 'finish']),
        );
        expect(analyze.calls.filter((c) => !c.ok).map((c) => [c.tool, c.code])).toEqual([
          ['read_file', 'invalid_args'],
        ]);
        expect(analyze.calls.filter((c) => c.tool === 'read_file' && c.ok).length).toBeGreaterThanOrEqual(12);
      }
      // …the customer role was assumed per tenant and run, with its ExternalId, in the platform's region…
      const customerSessions = deployed.sts.sessions.filter((s) => s.roleArn === CUSTOMER_ROLE);
      expect(customerSessions.map((s) => [s.tags['etp-tenant'], s.externalId, s.stsRegion])).toEqual([
        ['leaky', EXTERNAL_IDS.leaky, REGION],
        ['leaky', EXTERNAL_IDS.leaky, REGION],
        ['other', EXTERNAL_IDS.other, REGION],
        // Incident Response's AWS audits
        ['leaky', EXTERNAL_IDS.leaky, REGION],
      ]);
      // …and IAM refused exactly the crossed read: other's session asking for leaky's Slack secret.
      const refused = deployed.secretsManager.calls.filter((c) => !c.allowed);
      expect(
        refused.map((c) => [deployed.sts.sessionOf(c.accessKeyId)?.tags['etp-tenant'], c.secretId]),
      ).toEqual(kind === 'inline' ? [] : [['other', expect.stringContaining('etp/leaky/slack_default')]]);
      if (kind === 'inline')
        expect(kms?.calls.filter((call) => call === 'Decrypt').length).toBeGreaterThan(0);
      // (every reference row was read through a reader session, of the row's own tenant)
      const rowReads = deployed.gate.calls.filter((c) => deployed.sts.sessionOf(c.accessKeyId));
      expect(rowReads.length).toBeGreaterThanOrEqual(2 * 13);
      expect(rowReads.every((c) => c.allowed)).toBe(true);

      // No secret anywhere: every seeded value, each corpus form's secret, the ExternalIds and
      // every STS session's secret key and token.
      const secrets = new Map<string, string>([
        ...Object.entries(SECRETS),
        ...SECRET_FORMS.map((form) => [`corpus: ${form.name}`, form.secret] as const),
        ...Object.entries(EXTERNAL_IDS).map(([tenant, id]) => [`external_id of ${tenant}`, id] as const),
        ...deployed.sts.sessions.flatMap((_session, i) => [
          [`sts secret ${i + 1}`, `localstsfakesecret${i + 1}`] as const,
          [`sts token ${i + 1}`, `localstsfaketoken${i + 1}`] as const,
        ]),
      ]);
      const basicAuthKeys = new Set(['greenhouse_key', 'lever_key']);
      const forms = new Map(
        [...secrets].map(([name, secret]) => [
          name,
          [...formsOf(secret), ...(basicAuthKeys.has(name) ? basicAuthForms(secret) : [])],
        ]),
      );
      const templates = [
        harness.template.toJSON(),
        Template.fromStack(new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess')).toJSON(),
      ];
      const items = await everyItem();
      // The vended sessions travel in the invocations, and only there: each tool function got, under
      // vendedCredentials, a reader session of exactly the names its spec lists, issued for the call's
      // tenant. Without that one field, the payloads are scanned like every other place.
      const invocations = harness.lambda.invocations.map(
        (invocation) => invocation.event as Record<string, unknown> & { tool: string; tenant: string },
      );
      const vended = invocations.map(({ tool, tenant, vendedCredentials }) => {
        const { sessions } = (vendedCredentials ?? { sessions: {} }) as {
          sessions: Record<string, { accessKeyId: string }>;
        };
        return {
          tool,
          tenant,
          sessions: Object.entries(sessions).map(([name, { accessKeyId }]) => {
            const session = deployed.sts.sessionOf(accessKeyId);
            return [name, session?.roleArn === deployed.readerRoles[name], session?.tags['etp-tenant']];
          }),
        };
      });
      expect(vended).toEqual(
        invocations.map(({ tool, tenant }) => ({
          tool,
          tenant,
          sessions: [
            ...toolCatalog.get(tool).requiresSecrets,
            // a write tool also gets its exactly-once records session
            ...(toolCatalog.get(tool).sideEffects === 'write' ? [IDEMPOTENCY_SESSION] : []),
          ].map((name) => [name, true, tenant]),
        })),
      );
      const payloadsWithoutVended = invocations.map(({ vendedCredentials: _vended, ...rest }) => rest);
      const everyRun = [...runs, ...restRuns];
      const places = {
        templates: JSON.stringify(templates),
        logs: `${logs}\n${restLogs}`,
        states: JSON.stringify(everyRun.map((run) => run.states)),
        toolPayloads: JSON.stringify(payloadsWithoutVended),
        results: JSON.stringify(everyRun.map((run) => run.results)),
        runOutputs: JSON.stringify(everyRun.map((run) => run.output)),
        dynamodb: JSON.stringify(items),
        slack: JSON.stringify([harness.slack.messages, harness.slack.webhookDeliveries]),
        workspaceFiles: JSON.stringify(everyFile(harness.localDir)),
        modelRequests: JSON.stringify(everyRun.map((run) => run.modelRequests)),
        runCompletedEvents: JSON.stringify(everyRun.map((run) => run.events)),
        // What the platform wrote to the REST services: the lead update and the notes.
        restWrites: JSON.stringify([
          hubspot.contactUpdates,
          hubspot.notes,
          [...greenhouse.notes.values()],
          harness.pagerduty.world.notes,
        ]),
      };
      // The places hold what they should (so an empty scan means something).
      expect(logs.length).toBeGreaterThan(10_000);
      expect(restLogs.length).toBeGreaterThan(10_000);
      expect(restRuns.every((run) => run.states.length > 20 && run.events.length === 1)).toBe(true);
      // the echoed bodies hold the tokens, so a clean scan of the places below is not a blind one
      expect(leaksIn(JSON.stringify(echoedBodies), forms).sort()).toEqual([
        'github_fine_grained',
        'greenhouse_key',
      ]);
      expect(runs.every((run) => run.states.length > 50 && run.events.length === 1)).toBe(true);
      expect(harness.lambda.invocations.length).toBeGreaterThanOrEqual(3 * 13);
      expect(places.workspaceFiles.includes('notes/copy.txt')).toBe(true);
      expect(Object.entries(items).map(([table, rows]) => [table, rows.length > 0])).toEqual([
        ['etp-idempotency', true],
        ['etp-run-records', true],
        ['etp-secret-references', true],
      ]);
      expect(runs.every((run) => run.modelRequests.length === 5)).toBe(true);
      expect(places.workspaceFiles.includes('<redacted>')).toBe(true);

      const hits = Object.fromEntries(
        Object.entries(places).map(([place, text]) => [place, leaksIn(text, forms)]),
      );
      expect(hits).toEqual(Object.fromEntries(Object.keys(places).map((place) => [place, []])));
      // …nor a piece of one that is secret as a whole (each corpus form's secret part, the ExternalIds,
      // the STS credentials, the REST tokens the connectors sent), so no bound cut one and left its start.
      const seededRest = JSON.stringify(REST_SECRETS);
      const restTokens = new Set(
        Object.entries(SECRETS)
          .filter(([, secret]) => seededRest.includes(secret))
          .map(([name]) => name),
      );
      const whole = new Set([
        ...SECRET_FORMS.map((form) => `corpus: ${form.name}`),
        ...[...secrets.keys()].filter(
          (name) => name.startsWith('external_id') || name.startsWith('sts ') || restTokens.has(name),
        ),
      ]);
      const pieces = piecesOf(new Map([...forms].filter(([name]) => whole.has(name))));
      const pieceHits = Object.fromEntries(
        Object.entries(places).map(([place, text]) => [place, piecesIn(text, pieces)]),
      );
      expect(pieceHits).toEqual(Object.fromEntries(Object.keys(places).map((place) => [place, []])));
    }, 120_000);
  });
}
