import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { Template } from 'aws-cdk-lib/assertions';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { type DispatcherConfig, toolFunctionName } from '../../functions/dispatcher/config';
import type { ToolResult } from '../../functions/runtime/result';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { DISPATCHER_ARN_PLACEHOLDER } from '../../lib/scenarios/asl';
import { flattenIntrinsics, newApp, synthesizePlatform } from '../helpers/cdk';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../helpers/dynalite';
import { mockedClientRegion } from '../helpers/ec2-pages';
import { bundleDispatcherConfig, fakeLambdaContext } from '../helpers/events';
import { type LocalLambda, startLambdaServer } from '../helpers/lambda-server';
import {
  type LocalDynamoGate,
  type LocalSecretsManager,
  type LocalSts,
  startDynamoGate,
  startLocalSecretsManager,
  startLocalSts,
} from '../helpers/local-iam';
import { type LocalSlack, startSlackServer } from '../helpers/slack-server';

/**
 * Never leak: recognisable secrets of many forms are seeded in Secrets Manager,
 * aws_pulse runs end to end as deployed (the synthesized state machine, the real
 * dispatcher and tool handlers, reader sessions from STS, rows through an
 * IAM-emulating DynamoDB gate, the customer role assumed), the customer's EC2
 * echoes some secrets back in instance tags and an error, and every place a
 * secret could land is scanned: the synthesized templates of both stacks, every
 * log line, every event of the execution history (each state's input and
 * output), every payload the dispatcher sent a tool function, every DynamoDB
 * item, every Slack message and every result. Zero hits.
 */
const ec2 = mockClient(EC2Client);

// The package ships types for its ESM build only: required, typed (as bin/local/local-execution.ts does).
type LocalStepFunctions = typeof import('aws-local-stepfunctions', { with: { 'resolution-mode': 'require' }});
const { StateMachine }: LocalStepFunctions = require('aws-local-stepfunctions');

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const CUSTOMER_ROLE = 'arn:aws:iam::210987654321:role/ExternalToolsPlatformAudit';

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
};
const EXTERNAL_ID = 'etp-fake-test-external-id-7Qx9'; // fake test example

let dynamo: LocalDynamoDb;
let gate: LocalDynamoGate;
let sts: LocalSts;
let secretsManager: LocalSecretsManager;
let lambda: LocalLambda;
let slack: LocalSlack;
let definition: Record<string, unknown>;
let dispatcher: (event: unknown, context: Context) => Promise<ToolResult>;
let templates: string;
let table: string;
const saved = { ...process.env };

function synthesized(): {
  definition: Record<string, unknown>;
  config: DispatcherConfig;
  readers: Record<string, string>;
  templates: string;
} {
  const { stack, template } = synthesizePlatform();
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const properties = machine?.Properties as {
    DefinitionString: unknown;
    DefinitionSubstitutions: { DispatcherArn: { 'Fn::GetAtt': [string, string] } };
  };
  const dispatcherId = properties.DefinitionSubstitutions.DispatcherArn['Fn::GetAtt'][0];
  const text = flattenIntrinsics(properties.DefinitionString).replaceAll(
    DISPATCHER_ARN_PLACEHOLDER,
    `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${dispatcherId}`,
  );
  const readers = Object.fromEntries(
    Object.entries(stack.platform.secretReaders.roles).map(([name]) => [
      name,
      `arn:aws:iam::${ACCOUNT}:role/etp-reader-${name}`,
    ]),
  );
  const customer = Template.fromStack(new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess'));
  return {
    definition: JSON.parse(text) as Record<string, unknown>,
    config: stack.platform.dispatcherConfig,
    readers,
    templates: JSON.stringify([template.toJSON(), customer.toJSON()]),
  };
}

beforeAll(async () => {
  dynamo = await startDynalite();
  sts = await startLocalSts();
  gate = await startDynamoGate(dynamo.endpoint, sts);
  const synth = synthesized();
  definition = synth.definition;
  templates = synth.templates;
  secretsManager = await startLocalSecretsManager(
    sts,
    (role) => Object.entries(synth.readers).find(([, arn]) => arn === role)?.[0],
    REGION,
  );
  [lambda, slack] = await Promise.all([startLambdaServer(), startSlackServer({ botToken: BOT_TOKEN })]);
  table = await createSecretReferenceTable(dynamo.client);
  const store = new DynamoDbSecretReferenceStore(table, dynamo.client);
  for (const tenant of ['leaky', 'other']) {
    const aws = secretsManager.create(
      `etp/${tenant}/aws_default`,
      JSON.stringify({ role_arn: CUSTOMER_ROLE, external_id: EXTERNAL_ID, region: REGION }),
      { 'etp-tenant': tenant, 'etp-secret': 'aws_default' },
    );
    await store.put({
      tenant_id: tenant,
      secret_name: 'aws_default',
      ref_kind: 'secrets_manager',
      ref_value: aws.arn,
    });
  }
  const slackSecret = secretsManager.create('etp/leaky/slack_default', JSON.stringify(SECRETS), {
    'etp-tenant': 'leaky',
    'etp-secret': 'slack_default',
  });
  await store.put({
    tenant_id: 'leaky',
    secret_name: 'slack_default',
    ref_kind: 'secrets_manager',
    ref_value: slackSecret.arn,
  });
  // The attack: tenant other's Slack reference points at leaky's secret.
  await store.put({
    tenant_id: 'other',
    secret_name: 'slack_default',
    ref_kind: 'secrets_manager',
    ref_value: slackSecret.arn,
  });

  bundleDispatcherConfig(synth.config);
  Object.assign(process.env, {
    AWS_REGION: REGION,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint,
    AWS_ENDPOINT_URL_STS: sts.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
    SECRET_REFS_TABLE: table,
    SECRET_READER_ROLES: JSON.stringify(synth.readers),
    CUSTOMER_ROLE_NAME: 'ExternalToolsPlatformAudit',
    SLACK_API_URL: slack.apiUrl,
  });
  const functionName = (tool: string) => toolFunctionName(synth.config.toolFunctionNamePrefix, tool);
  lambda.setFunction(
    functionName('aws_ec2_inventory'),
    jest.requireActual<typeof import('../../functions/tools/aws/ec2-inventory')>(
      '../../functions/tools/aws/ec2-inventory',
    ).handler,
  );
  lambda.setFunction(
    functionName('slack_post_message'),
    jest.requireActual<typeof import('../../functions/tools/slack/post-message')>(
      '../../functions/tools/slack/post-message',
    ).handler,
  );
  dispatcher = jest.requireActual<typeof import('../../functions/dispatcher/handler')>(
    '../../functions/dispatcher/handler',
  ).handler;
}, 90_000);

afterAll(async () => {
  process.env = saved;
  await Promise.all([
    gate.stop(),
    sts.stop(),
    secretsManager.stop(),
    lambda.stop(),
    slack.stop(),
    dynamo.stop(),
  ]);
});

/** Everything written to stdout and stderr while `act` runs: every log line. */
async function capturingLogs<T>(act: () => Promise<T>): Promise<{ value: T; logs: string }> {
  let logs = '';
  const capture = (chunk: unknown) => {
    logs += String(chunk);
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    return { value: await act(), logs };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Runs the synthesized aws_pulse, keeping every event of its execution history. */
async function runPulse(
  input: Record<string, unknown>,
  runId: string,
): Promise<{ output: unknown; history: unknown[] }> {
  const states = definition.States as Record<string, { Type: string }>;
  const tasks = Object.keys(states).filter((name) => states[name]?.Type === 'Task');
  const machine = new StateMachine(definition as never, { validationOptions: { checkArn: true } });
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: Object.fromEntries(
        tasks.map((name) => [
          name,
          async (payload: unknown) =>
            dispatcher(payload, fakeLambdaContext({ functionName: 'etp-dispatcher' })) as never,
        ]),
      ),
      retryIntervalOverrides: Object.fromEntries(tasks.map((name) => [name, 0])),
    },
    context: { Execution: { Name: runId, Input: input as never, StartTime: new Date().toISOString() } },
  });
  const history: unknown[] = [];
  const collecting = (async () => {
    for await (const event of execution.eventLogs) history.push(event);
  })();
  const output = await execution.result;
  await collecting;
  return { output, history };
}

/** Every form a secret could take in text: as is, JSON-escaped, URL-encoded, base64. */
function formsOf(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
  ];
}

/** The secrets found in `text` (by name), in any of their forms. */
function leaksIn(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, secret]) => formsOf(secret).some((form) => text.includes(form)))
    .map(([name]) => name);
}

describe('never leak: aws_pulse end to end as deployed', () => {
  it('runs, masks what the customer’s account echoes, and leaks no secret anywhere', async () => {
    // Prepare: the customer's EC2 echoes credential-shaped values in instance names and an error message
    // (each call masks what it resolved or recognizes; the EC2 function never resolved the Slack secret).
    ec2.on(DescribeInstancesCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'us-east-1') {
        throw Object.assign(
          new Error(`Request refused: token ${SECRETS.bot_token} posted to ${SECRETS.webhook_url}`),
          {
            name: 'UnauthorizedOperation',
            $fault: 'client',
            $metadata: { httpStatusCode: 403, requestId: 'r' },
          },
        );
      }
      const instance = (id: string, name: string) => ({
        InstanceId: id,
        InstanceType: 't3.small',
        State: { Code: 16, Name: 'running' as const },
        LaunchTime: new Date('2024-05-01'),
        Tags: [{ Key: 'Name', Value: name }],
      });
      return {
        Reservations: [
          {
            Instances: [
              instance('i-0aaaaaaaaaaaaaa01', SECRETS.bot_token),
              instance('i-0aaaaaaaaaaaaaa02', `hook ${SECRETS.webhook_url}`),
              instance('i-0aaaaaaaaaaaaaa03', SECRETS.private_key),
              instance('i-0aaaaaaaaaaaaaa04', 'web-1'),
            ],
          },
        ],
      };
    });

    // Act: leaky's run; leaky's again with a Slack that echoes its secrets in an error; then
    // other's, whose Slack row points at leaky's secret.
    const { value: runs, logs } = await capturingLogs(async () => {
      const first = await runPulse(
        { tenant: 'leaky', regions: [REGION, 'us-east-1'], slack_channel: 'C0AWSPULSE' },
        'leak-run-1',
      );
      slack.failNext({
        error: `invalid_arguments ${SECRETS.db_password} ${SECRETS.client_secret} ${SECRETS.github_token}`,
      });
      const echoed = await runPulse(
        { tenant: 'leaky', regions: [REGION], slack_channel: 'C0AWSPULSE' },
        'leak-run-2',
      );
      const crossed = await runPulse(
        { tenant: 'other', regions: [REGION], slack_channel: 'C0AWSPULSE' },
        'leak-run-3',
      );
      return [first, echoed, crossed];
    });
    const items = await dynamo.client.send(new ScanCommand({ TableName: table }));

    // Assess: the run did its work…
    const [leaky, echoed, other] = runs.map(
      (run) => (run.output as { results: Record<string, ToolResult> }).results,
    );
    expect(leaky?.collect_0).toMatchObject({ ok: true, value: { totalInstances: 4 } });
    expect(leaky?.report_0).toMatchObject({ ok: true, value: { via: 'bot_token' } });
    expect(echoed?.report_0).toMatchObject({
      ok: false,
      error: { code: 'upstream_error', message: expect.stringContaining('<redacted>') },
    });
    expect(other?.collect_0).toMatchObject({ ok: true });
    expect(other?.report_0).toMatchObject({ ok: false, error: { code: 'access_denied' } });
    expect(slack.messages.map((m) => m.text)).toEqual([
      expect.stringContaining('AWS pulse for tenant leaky'),
    ]);
    // …the customer role was assumed per tenant, with the ExternalId, tagged, in the platform region…
    const customerSessions = sts.sessions.filter((s) => s.roleArn === CUSTOMER_ROLE);
    expect(customerSessions.map((s) => [s.tags['etp-tenant'], s.externalId, s.stsRegion])).toEqual([
      ['leaky', EXTERNAL_ID, REGION],
      ['leaky', EXTERNAL_ID, REGION],
      ['other', EXTERNAL_ID, REGION],
    ]);
    // …and no secret is anywhere: every secret value, the ExternalId and every STS session credential.
    const secrets: Record<string, string> = { ...SECRETS, external_id: EXTERNAL_ID };
    sts.sessions.forEach((_session, i) => {
      secrets[`sts_secret_${i + 1}`] = `localstsfakesecret${i + 1}`;
      secrets[`sts_token_${i + 1}`] = `localstsfaketoken${i + 1}`;
    });
    const places = {
      templates,
      logs,
      history: JSON.stringify(runs.map((run) => run.history)),
      results: JSON.stringify(runs.map((run) => run.output)),
      toolPayloads: JSON.stringify(lambda.invocations),
      dynamodb: JSON.stringify(items.Items),
      slack: JSON.stringify(slack.messages),
    };
    expect(logs.length).toBeGreaterThan(1_000);
    expect(runs.every((run) => run.history.length > 10)).toBe(true);
    expect(
      Object.fromEntries(Object.entries(places).map(([place, text]) => [place, leaksIn(text, secrets)])),
    ).toEqual({
      templates: [],
      logs: [],
      history: [],
      results: [],
      toolPayloads: [],
      dynamodb: [],
      slack: [],
    });
  }, 60_000);
});
