/**
 * `sideEffects: 'write'` means exactly once: every write tool's Lambda handler,
 * invoked again with the same envelope (a Step Functions retry, a redelivered
 * event, the dispatcher's invoke retried), takes effect once. The idempotency
 * table lives on dynalite, Slack is the local Web API server.
 */
import { createHash } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { callKey } from '../../../functions/runtime/call-key';
import { sharedRateLimiter } from '../../../functions/runtime/http/rate-limit';
import type { ToolInvocation } from '../../../functions/runtime/invocation';
import type { ToolResult } from '../../../functions/runtime/result';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import type { Tool } from '../../../functions/runtime/spec';
import { createToolHandler } from '../../../functions/runtime/tool-handler';
import { toolCatalog } from '../../../functions/tools/catalog';
import { slackChannelHistoryTool } from '../../../functions/tools/slack/channel-history';
import { slackPostBlocksTool } from '../../../functions/tools/slack/post-blocks';
import { slackPostMessageTool } from '../../../functions/tools/slack/post-message';
import { slackPostThreadedTool } from '../../../functions/tools/slack/post-threaded';
import {
  createIdempotencyTable,
  createSecretReferenceTable,
  type LocalDynamoDb,
  startDynalite,
} from '../../helpers/dynalite';
import { fakeLambdaContext } from '../../helpers/events';
import { DEFAULT_WEBHOOK_PATH, type LocalSlack, startSlackServer } from '../../helpers/slack-server';
import { callSlackTool, failure, slackSecrets, success } from '../../helpers/slack-tool';

let dynamo: LocalDynamoDb;
let slack: LocalSlack;
let idempotencyTable: string;

const POST = '/api/chat.postMessage';
const WEBHOOK = DEFAULT_WEBHOOK_PATH;
const asTool = (tool: unknown) => tool as Tool;

/** How each write tool is called here, and how its effects are counted. */
const WRITE_TOOL_CALLS: Readonly<
  Record<string, { readonly tool: Tool; readonly args: Record<string, unknown> }>
> = {
  slack_post_message: {
    tool: asTool(slackPostMessageTool),
    args: { channel: 'C0AWSPULSE', text: 'AWS pulse: 6 instances' },
  },
  slack_post_blocks: {
    tool: asTool(slackPostBlocksTool),
    args: {
      channel: 'C0AWSPULSE',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*6* instances' } }],
    },
  },
  slack_post_threaded: {
    tool: asTool(slackPostThreadedTool),
    args: { channel: 'C0AWSPULSE', thread_ts: '1712345678.000100', text: 'details in the thread' },
  },
};

/** Messages and webhook deliveries: every effect a Slack write tool can have. */
const effects = () => slack.messages.length + slack.webhookDeliveries.length;

let runSequence = 0;

function event(tool: Tool, args: unknown, overrides: Partial<ToolInvocation> = {}): ToolInvocation {
  return {
    tool: tool.name,
    tenant: 'default',
    scenario: 'aws_pulse',
    level: 'report',
    runId: `run-exactly-once-${runSequence}`,
    callId: 'report/0',
    args,
    ...overrides,
  };
}

function invoke(tool: Tool, invocation: ToolInvocation): Promise<ToolResult> {
  return createToolHandler(tool)(invocation, fakeLambdaContext({ timeoutMs: 30_000 }));
}

beforeAll(async () => {
  dynamo = await startDynalite();
  const secretTable = await createSecretReferenceTable(dynamo.client);
  idempotencyTable = await createIdempotencyTable(dynamo.client);
  const store = new DynamoDbSecretReferenceStore(secretTable, dynamo.client);
  for (const tenant of ['default', 'acme']) {
    await store.put({
      tenant_id: tenant,
      secret_name: 'slack_default',
      ref_kind: 'env',
      ref_value: 'ETP_TEST_SLACK',
    });
  }
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: secretTable,
    IDEMPOTENCY_TABLE: idempotencyTable,
  });
}, 30_000);

afterAll(async () => {
  for (const name of [
    'AWS_ENDPOINT_URL_DYNAMODB',
    'SECRET_REFS_TABLE',
    'IDEMPOTENCY_TABLE',
    'ETP_TEST_SLACK',
  ]) {
    delete process.env[name];
  }
  await dynamo.stop();
});

beforeEach(async () => {
  runSequence++;
  sharedRateLimiter.clear();
  slack = await startSlackServer();
  process.env.SLACK_API_URL = slack.apiUrl;
  process.env.ETP_TEST_SLACK = JSON.stringify({ bot_token: slack.botToken });
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  jest.restoreAllMocks();
  delete process.env.SLACK_API_URL;
  delete process.env.POWERTOOLS_IDEMPOTENCY_DISABLED;
  delete process.env.IDEMPOTENCY_RECORD_SECONDS;
  await slack.stop();
});

/** Write file tools whose retry test (same call twice, one effect) is in test/integration/files/file-tools.test.ts. */
const FILE_TOOLS_WITH_RETRY_TESTS = ['edit_file', 'finish', 'write_file'];

/**
 * Write tools whose effect is create-only per run, with their retry tests elsewhere:
 * scan_snapshots writes its run's findings once (test/integration/snapshots/scan-findings.test.ts:
 * a second scan reads nothing and returns the first document; two racing writes keep the first).
 */
const CREATE_ONLY_TOOLS_WITH_RETRY_TESTS = ['scan_snapshots'];

/**
 * REST connectors' write tools, with their retry tests against their API's fake: a late
 * answer, a reset after the server accepted and a repeated call each write once, found by
 * the marker the write carries (test/integration/github/github-tools.test.ts,
 * pagerduty/pagerduty-tools.test.ts, crm/crm-tools.test.ts, ats/ats-tools.test.ts); and
 * every write tool retried by the caller at each entry point
 * (test/integration/dispatcher/exactly-once-entry-points.test.ts).
 */
const CONNECTOR_WRITE_TOOLS_WITH_RETRY_TESTS = [
  'ats_add_note',
  'crm_update_lead',
  'github_create_issue',
  'pagerduty_add_note',
];

describe('sideEffects: write means exactly once', () => {
  it('lists a call for every write tool of the catalog with a function of its own', () => {
    // Prepare: file tools run in the dispatcher and are written to be retried as they are
    // (the same bytes, an edit applied once): test/integration/files/file-tools.test.ts.
    const fileTools = new Set(toolCatalog.fileToolNames());
    const writeTools = toolCatalog
      .list()
      .filter((spec) => spec.sideEffects === 'write' && !fileTools.has(spec.name))
      .map((spec) => spec.name);

    // Assess: a new write tool fails here until it gets an exactly-once test.
    expect([...writeTools].sort()).toEqual(
      [
        ...Object.keys(WRITE_TOOL_CALLS),
        ...CREATE_ONLY_TOOLS_WITH_RETRY_TESTS,
        ...CONNECTOR_WRITE_TOOLS_WITH_RETRY_TESTS,
      ].sort(),
    );
    expect(
      toolCatalog
        .fileTools()
        .filter((tool) => tool.sideEffects === 'write')
        .map((tool) => tool.name),
    ).toEqual(FILE_TOOLS_WITH_RETRY_TESTS);
  });

  it.each(Object.keys(WRITE_TOOL_CALLS))(
    '%s: the same call invoked again takes effect once',
    async (name) => {
      // Prepare
      const { tool, args } = WRITE_TOOL_CALLS[name] as (typeof WRITE_TOOL_CALLS)[string];
      const call = event(tool, args);

      // Act
      const first = await invoke(tool, call);
      const again = await invoke(tool, call);

      // Assess
      expect(first.ok).toBe(true);
      expect(again).toEqual(first);
      expect(effects()).toBe(1);
    },
  );

  it.each(Object.keys(WRITE_TOOL_CALLS))('%s: two deliveries at once take effect once', async (name) => {
    // Prepare: Slack answers slowly, so both deliveries overlap.
    const { tool, args } = WRITE_TOOL_CALLS[name] as (typeof WRITE_TOOL_CALLS)[string];
    slack.failNext({ delayMs: 300 }, 1, { path: POST });
    const call = event(tool, args);

    // Act
    const results = await Promise.all([invoke(tool, call), invoke(tool, call)]);

    // Assess: one posted; the other waited for that post's outcome and returns it.
    expect(effects()).toBe(1);
    expect(results[0]?.ok).toBe(true);
    expect(results[1]).toEqual(results[0]);
  });
});

describe('the exactly-once record', () => {
  const { tool, args } = WRITE_TOOL_CALLS.slack_post_message as (typeof WRITE_TOOL_CALLS)[string];

  it('refuses the same call id with other arguments', async () => {
    // Prepare
    await invoke(tool, event(tool, args));

    // Act
    const result = failure(await invoke(tool, event(tool, { ...args, text: 'something else' })));

    // Assess
    expect(result.error).toMatchObject({ code: 'invalid_args', retryable: false });
    expect(result.error.message).toMatch(/already made with other arguments/);
    expect(effects()).toBe(1);
  });

  it("keeps tenants apart: another tenant's identical call is its own", async () => {
    // Act
    success(await invoke(tool, event(tool, args)));
    success(await invoke(tool, event(tool, args, { tenant: 'acme' })));

    // Assess
    expect(effects()).toBe(2);
  });

  it('lets a call that certainly did nothing run again: a 429 is not stored', async () => {
    // Prepare
    slack.failNext({ status: 429, retryAfterSeconds: 60 }, 1, { path: POST });
    const call = event(tool, args);

    // Act
    const throttled = failure(await invoke(tool, call));
    const retried = success(await invoke(tool, call));

    // Assess
    expect(throttled.error).toMatchObject({
      code: 'throttled',
      retryable: true,
      details: { retryAfterSeconds: 60 },
    });
    expect(retried.value).toMatchObject({ messages: 1 });
    expect(effects()).toBe(1);
  });

  it.each([
    [
      'chat.postMessage answers ok: false with an error string the table does not know',
      'bot',
      POST,
      { error: 'a_future_refusal' },
    ],
    [
      'a webhook answers HTTP 400 with a body the table does not know',
      'webhook',
      WEBHOOK,
      { status: 400, body: 'a_future_refusal' },
    ],
    [
      'a webhook answers HTTP 404 with an HTML page',
      'webhook',
      WEBHOOK,
      { status: 404, body: '<html>Not Found</html>' },
    ],
  ] as const)(
    'lets a call Slack refused run again when %s: nothing was posted, nothing stored',
    async (_label, via, path, refusal) => {
      // Prepare
      if (via === 'webhook') process.env.ETP_TEST_SLACK = JSON.stringify({ webhook_url: slack.webhookUrl });
      slack.failNext(refusal, 1, { path });
      const call = event(tool, args);

      // Act
      const refused = failure(await invoke(tool, call));
      const retried = success(await invoke(tool, call));

      // Assess
      expect(refused.error).toMatchObject({
        code: 'upstream_error',
        retryable: false,
        details: { effect: 'none' },
      });
      expect(refused.error.message).not.toMatch(/may have taken effect/);
      expect(retried.value).toMatchObject({ via: via === 'bot' ? 'bot_token' : 'webhook', messages: 1 });
      expect(effects()).toBe(1);
    },
  );

  it('keeps a webhook post answered HTTP 500 (rollup_error) final: Slack may have posted it', async () => {
    // Prepare
    process.env.ETP_TEST_SLACK = JSON.stringify({ webhook_url: slack.webhookUrl });
    slack.failNext({ status: 500, body: 'rollup_error' }, 1, { path: WEBHOOK });
    const call = event(tool, args);

    // Act
    const first = failure(await invoke(tool, call));
    const again = failure(await invoke(tool, call));

    // Assess
    expect(first.error).toMatchObject({
      code: 'upstream_error',
      retryable: false,
      details: { effect: 'unknown' },
    });
    expect(again).toEqual(first);
    expect(slack.requests.filter((r) => r.path === WEBHOOK)).toHaveLength(1);
  });

  it('stores a failure whose effect is unknown, final: a retry returns it and posts nothing', async () => {
    // Prepare: the post is recorded, the connection reset, and the channel cannot be read to check.
    slack.failNext({ reset: true }, 1, { path: POST });
    slack.failNext({ error: 'missing_scope', extra: { needed: 'channels:history' } }, 1, {
      path: '/api/conversations.history',
    });
    const call = event(tool, args);

    // Act
    const first = failure(await invoke(tool, call));
    const again = failure(await invoke(tool, call));

    // Assess
    expect(first.error).toMatchObject({
      code: 'network_error',
      retryable: false,
      details: { effect: 'unknown' },
    });
    expect(first.error.message).toMatch(/this call acts at most once$/);
    expect(again).toEqual(first);
    expect(effects()).toBe(1);
  });

  it('after an attempt that died mid-call, finds its message by metadata instead of posting again', async () => {
    // Prepare: an earlier attempt posted (its message carries the call key) and died before
    // recording an outcome; its in-progress hold has run out.
    const call = event(tool, args);
    success(await callSlackTool(tool, args, slackSecrets(process.env.ETP_TEST_SLACK), call));
    const hash = createHash('sha256')
      .update(JSON.stringify([call.tenant, call.runId, call.callId]))
      .digest('base64');
    await dynamo.client.send(
      new PutItemCommand({
        TableName: idempotencyTable,
        Item: {
          id: { S: `${call.tenant}#${tool.name}#${hash}` },
          status: { S: 'INPROGRESS' },
          expiration: { N: String(Math.floor(Date.now() / 1000) + 3600) },
          in_progress_expiration: { N: String(Date.now() - 1_000) },
        },
      }),
    );
    expect(slack.messages[0]?.metadata?.event_payload.key).toBe(
      callKey(call.tenant, call.runId, call.callId, tool.name),
    );

    // Act
    const result = success(await invoke(tool, call));

    // Assess
    expect(effects()).toBe(1);
    expect(result.value).toMatchObject({ ts: slack.messages[0]?.ts, recovered: 1 });
    expect(slack.requests.map((r) => r.path)).toEqual([POST, '/api/conversations.history']);
  });

  /** An earlier attempt of `call` posted and died before recording an outcome; its in-progress hold has run out. */
  async function diedMidCall(call: ToolInvocation, postedSecondsAgo: number): Promise<void> {
    success(await callSlackTool(tool, args, slackSecrets(process.env.ETP_TEST_SLACK), call));
    const posted = slack.messages.at(-1) as { ts: string };
    posted.ts = `${Math.floor(Date.now() / 1000) - postedSecondsAgo}.000001`;
    const hash = createHash('sha256')
      .update(JSON.stringify([call.tenant, call.runId, call.callId]))
      .digest('base64');
    await dynamo.client.send(
      new PutItemCommand({
        TableName: idempotencyTable,
        Item: {
          id: { S: `${call.tenant}#${tool.name}#${hash}` },
          status: { S: 'INPROGRESS' },
          expiration: { N: String(Math.floor(Date.now() / 1000) + 3600) },
          in_progress_expiration: { N: String(Date.now() - 1_000) },
        },
      }),
    );
    (slack.requests as unknown[]).length = 0;
  }

  it("finds an earlier attempt's message posted days ago, within the record's lifetime (a redrive), instead of posting again", async () => {
    // Prepare: records kept 21 days; the attempt died 3 days ago, a redrive resumes it now.
    process.env.IDEMPOTENCY_RECORD_SECONDS = String(21 * 24 * 60 * 60);
    const call = event(tool, args);
    await diedMidCall(call, 3 * 24 * 60 * 60);

    // Act
    const result = success(await invoke(tool, call));

    // Assess
    expect(effects()).toBe(1);
    expect(result.value).toMatchObject({ ts: slack.messages[0]?.ts, recovered: 1 });
  });

  it('does not post again when the channel holds more since the earlier attempt than the lookup reads: effect unknown', async () => {
    // Prepare: 700 messages of others after the earlier attempt's (the lookup reads 3 pages of 200).
    const call = event(tool, args);
    await diedMidCall(call, 2 * 60 * 60);
    const others = slack.messages as unknown as object[];
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 700; i++) {
      others.push({
        channel: 'C0AWSPULSE',
        text: `other ${i}`,
        ts: `${now - 3_600}.${String(i).padStart(6, '0')}`,
        encoding: 'form',
      });
    }

    // Act
    const result = failure(await invoke(tool, call));

    // Assess
    expect(effects()).toBe(701);
    expect(slack.requests.filter((r) => r.path === POST)).toEqual([]);
    expect(result.error).toMatchObject({ retryable: false, details: { effect: 'unknown' } });
    expect(result.error.message).toMatch(
      /could not be read to check \(more than the 600 messages read \(3 pages\)/,
    );
  });

  it('refuses to run a write tool whose function has no IDEMPOTENCY_TABLE', async () => {
    // Prepare
    delete process.env.IDEMPOTENCY_TABLE;

    // Act
    const outcome = invoke(tool, event(tool, args));

    // Assess
    await expect(outcome).rejects.toThrow('IDEMPOTENCY_TABLE is not set for the slack_post_message function');
    expect(effects()).toBe(0);
    process.env.IDEMPOTENCY_TABLE = idempotencyTable;
  });

  it('refuses to run a write tool with Powertools Idempotency disabled', async () => {
    // Prepare
    process.env.POWERTOOLS_IDEMPOTENCY_DISABLED = 'true';

    // Act
    const result = failure(await invoke(tool, event(tool, args)));

    // Assess
    expect(result.error).toMatchObject({ code: 'internal_error' });
    expect(result.error.message).toMatch(/^POWERTOOLS_IDEMPOTENCY_DISABLED is set/);
    expect(effects()).toBe(0);
  });

  it('runs a read tool without any record', async () => {
    // Prepare
    delete process.env.IDEMPOTENCY_TABLE;
    const history = asTool(slackChannelHistoryTool);

    // Act
    const result = await invoke(history, event(history, { channel: 'C0AWSPULSE' }));

    // Assess
    expect(success(result).value).toMatchObject({ channel: 'C0AWSPULSE', messages: [] });
    process.env.IDEMPOTENCY_TABLE = idempotencyTable;
  });
});
