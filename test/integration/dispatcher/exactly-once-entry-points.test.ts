/**
 * Exactly once per logical call at every entry point (docs/entry-points.md, "What
 * identifies a call"), for every write tool with a function of its own: the caller
 * retries the same call the way its protocol retries it, and the write lands once,
 * the retry answered with the first outcome. Every hop after the entry point is
 * real and local (test/helpers/dispatcher-chain.ts): the deployed dispatcher's
 * handler, the Lambda Invoke API, the tool functions with their exactly-once
 * records in DynamoDB (dynalite), and the loopback fakes of Slack, GitHub,
 * PagerDuty, HubSpot and Greenhouse. MCP over stdio runs `etp mcp`'s server in this
 * process (its local dispatcher, records in memory) against the same fakes.
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveMcp } from '../../../bin/cli/mcp';
import type { BedrockFunctionResponse } from '../../../functions/dispatcher/adapters/bedrock-agent';
import { IDEMPOTENCY_META_KEY } from '../../../functions/dispatcher/mcp/json-rpc-guard';
import { sharedRateLimiter } from '../../../functions/runtime/http/rate-limit';
import { toolCatalog } from '../../../functions/tools/catalog';
import { type DispatcherChain, startDispatcherChain } from '../../helpers/dispatcher-chain';
import { bedrockFunctionEvent, gatewayContext, startFunctionUrl } from '../../helpers/entry-point-events';
import { fakeLambdaContext } from '../../helpers/events';
import { emptyRepo, type LocalGitHub, startGitHubServer } from '../../helpers/github-server';
import {
  GREENHOUSE_KEY,
  GREENHOUSE_USER_ID,
  greenhouseCandidate,
  type LocalGreenhouse,
  startGreenhouseServer,
} from '../../helpers/greenhouse-server';
import {
  HUBSPOT_TOKEN,
  hubspotContact,
  type LocalHubSpot,
  startHubSpotServer,
} from '../../helpers/hubspot-server';
import type { ListeningServer } from '../../helpers/loopback-server';
import { type LocalPagerDuty, pdIncident, startPagerDutyServer } from '../../helpers/pagerduty-server';

const TENANT = 'acme';
const REPO = 'octocat/Hello-World';
const INCIDENT = 'PT4KHLK';
/** hubspotContact(12)'s id and greenhouseCandidate(12)'s. */
const LEAD = '512';
const CANDIDATE = 53_883_012;

/** Every write tool with a function of its own that needs no run workspace (scan_snapshots writes its run's). */
const WRITE_TOOLS = toolCatalog
  .functionTools()
  .map((entry) => entry.spec)
  .filter((spec) => spec.sideEffects === 'write' && spec.workspaceAccess === undefined)
  .map((spec) => spec.name)
  .sort();

let chain: DispatcherChain;
let github: LocalGitHub;
let pagerduty: LocalPagerDuty;
let hubspot: LocalHubSpot;
let greenhouse: LocalGreenhouse;

/** How each write tool is called (`label` keeps one test's call apart from another's), and its effects so far. */
const CALLS: Readonly<
  Record<
    string,
    { readonly args: (label: string) => Record<string, unknown>; readonly effects: () => number }
  >
> = {
  ats_add_note: {
    args: (label) => ({ candidate_id: String(CANDIDATE), note: `Screened: ${label}` }),
    effects: () => greenhouse.notes.get(CANDIDATE)?.length ?? 0,
  },
  crm_update_lead: {
    args: (label) => ({ lead_id: LEAD, note: `Qualified: ${label}` }),
    effects: () => hubspot.contactUpdates.length + hubspot.notes.length,
  },
  github_create_issue: {
    args: (label) => ({ repo: REPO, title: `Incident follow-up ${label}`, body: 'Triage: rollback.' }),
    effects: () => github.repos[REPO]?.issues.length ?? 0,
  },
  pagerduty_add_note: {
    args: (label) => ({ incident_id: INCIDENT, content: `Triage: ${label}` }),
    effects: () => pagerduty.world.notes[INCIDENT]?.length ?? 0,
  },
  slack_post_blocks: {
    args: (label) => ({
      channel: '#aws-pulse',
      text: label,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `*${label}*` } }],
    }),
    effects: () => chain.slack.messages.length,
  },
  slack_post_message: {
    args: (label) => ({ channel: '#aws-pulse', text: label }),
    effects: () => chain.slack.messages.length,
  },
  slack_post_threaded: {
    args: (label) => ({ channel: '#aws-pulse', thread_ts: '1712345678.000100', text: label }),
    effects: () => chain.slack.messages.length,
  },
};

beforeAll(async () => {
  [github, pagerduty, hubspot] = await Promise.all([
    startGitHubServer({ repos: { [REPO]: emptyRepo() } }),
    startPagerDutyServer({
      world: {
        incidents: [
          pdIncident(INCIDENT, 1234, {
            status: 'triggered',
            urgency: 'high',
            createdAt: new Date().toISOString(),
          }),
        ],
        alerts: {},
        logEntries: {},
        notes: {},
        oncalls: [],
      },
    }),
    startHubSpotServer({ contacts: [hubspotContact(12)] }),
  ]);
  greenhouse = await startGreenhouseServer({ candidates: (url) => [greenhouseCandidate(12, url)] });
  Object.assign(process.env, {
    GITHUB_API_URL: github.apiUrl,
    PAGERDUTY_API_URL: pagerduty.apiUrl,
    HUBSPOT_API_URL: hubspot.apiUrl,
    GREENHOUSE_API_URL: greenhouse.apiUrl,
  });
  chain = await startDispatcherChain({
    tenant: TENANT,
    tools: WRITE_TOOLS,
    secrets: {
      github_default: { token: github.token },
      pagerduty_default: { token: pagerduty.apiKey, from: 'oncall@example.com' },
      crm_default: { provider: 'hubspot', token: HUBSPOT_TOKEN },
      ats_default: { provider: 'greenhouse', token: GREENHOUSE_KEY, user_id: GREENHOUSE_USER_ID },
    },
    config: {
      scenarios: { exactly_once: { write: WRITE_TOOLS } },
      accessProfiles: { ops: { tenant: TENANT, tools: WRITE_TOOLS } },
      entryPoints: {
        bedrockAgents: { AGENT12345: 'ops' },
        gatewayTargets: { 'etp-tools': 'ops' },
        mcpFunctionUrl: 'ops',
      },
    },
  });
}, 60_000);

afterAll(async () => {
  for (const name of ['GITHUB_API_URL', 'PAGERDUTY_API_URL', 'HUBSPOT_API_URL', 'GREENHOUSE_API_URL']) {
    delete process.env[name];
  }
  await Promise.all([chain.stop(), github.stop(), pagerduty.stop(), hubspot.stop(), greenhouse.stop()]);
});

beforeEach(() => {
  sharedRateLimiter.clear();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

const context = () => fakeLambdaContext({ functionName: 'etp-dispatcher' });

/** An MCP client over the function URL (Streamable HTTP), connected. */
async function httpClient(url: ListeningServer): Promise<Client> {
  const client = new Client({ name: 'etp-exactly-once', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url.url}/mcp`)));
  return client;
}

/** An `etp mcp` server on in-memory stdio, initialized, with a JSON-RPC id per request (a retry gets a new one). */
async function stdioSession() {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveMcp(
    { profile: 'ops', tenant: TENANT, tools: WRITE_TOOLS },
    { input, output },
    process.env.SECRET_REFS_TABLE,
  );
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      buffered = buffered.slice(end + 1);
      waiting.get(message.id as number)?.(message);
    }
  });
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'etp-exactly-once', version: '1.0.0' },
  });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    call: async (name: string, args: Record<string, unknown>, meta?: Record<string, string>) =>
      (
        (await request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) })).result as {
          structuredContent: unknown;
        }
      ).structuredContent,
    close: async () => {
      input.end();
      await served;
    },
  };
}

/** Bedrock Agents parameters are strings: a non-string argument travels as JSON. */
const asParameters = (args: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(args).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );

/** Each entry point: the ToolResults of the first attempt and of the caller's retry of it, as its protocol retries. */
const ENTRY_POINTS: Readonly<
  Record<string, (tool: string, args: Record<string, unknown>) => Promise<readonly [unknown, unknown]>>
> = {
  // Step Functions retrying the Task: the same envelope (execution name and call index).
  'a scenario run': async (tool, args) => {
    const envelope = {
      tenant: TENANT,
      scenario: 'exactly_once',
      level: 'write',
      tool,
      args,
      runId: `run-once-${tool.replace(/_/g, '-')}`,
      callId: 'write/0',
    };
    return [await chain.dispatcher(envelope, context()), await chain.dispatcher(envelope, context())];
  },
  // Bedrock re-sending the same action-group event.
  'Bedrock Agents': async (tool, args) => {
    const event = bedrockFunctionEvent(tool, asParameters(args));
    const resultOf = (response: unknown) =>
      JSON.parse((response as BedrockFunctionResponse).response.functionResponse.responseBody.TEXT.body);
    return [
      resultOf(await chain.dispatcher(event, context())),
      resultOf(await chain.dispatcher(event, context())),
    ];
  },
  // The Gateway retrying one tools/call: the same request id, a new Lambda request id.
  'AgentCore Gateway, with its request id': async (tool, args) => {
    const requestId = `gw-${tool}`;
    return [
      await chain.dispatcher(args, gatewayContext(`etp-tools___${tool}`, requestId)),
      await chain.dispatcher(args, gatewayContext(`etp-tools___${tool}`, requestId)),
    ];
  },
  // A retry as a new HTTP request from a new connection, with a new JSON-RPC id.
  'MCP over HTTP': async (tool, args) => {
    const url = await startFunctionUrl(chain.dispatcher);
    const clients = [await httpClient(url), await httpClient(url)];
    try {
      const first = await clients[0]?.callTool({ name: tool, arguments: args });
      const retry = await clients[1]?.callTool({ name: tool, arguments: args });
      return [first?.structuredContent, retry?.structuredContent];
    } finally {
      for (const client of clients) await client.close();
      await url.stop();
    }
  },
  // A retry on the same stdio connection, with a new JSON-RPC id.
  'MCP over stdio': async (tool, args) => {
    const session = await stdioSession();
    try {
      return [await session.call(tool, args), await session.call(tool, args)];
    } finally {
      await session.close();
    }
  },
};

describe('exactly once per logical call, at every entry point, for every write tool', () => {
  it('has a call for every write tool with a function of its own', () => {
    expect(Object.keys(CALLS).sort()).toEqual(WRITE_TOOLS);
  });

  const cases = Object.keys(ENTRY_POINTS).flatMap((entry) =>
    WRITE_TOOLS.map((tool) => [entry, tool] as const),
  );

  it.each(cases)(
    '%s: %s retried writes once and answers the retry with the first outcome',
    async (entry, tool) => {
      // Prepare
      const { args, effects } = CALLS[tool] as (typeof CALLS)[string];
      const before = effects();

      // Act
      const [first, retry] = await (ENTRY_POINTS[entry] as (typeof ENTRY_POINTS)[string])(
        tool,
        args(`${entry} ${tool}`),
      );

      // Assess
      expect(effects() - before).toBe(1);
      expect(first).toMatchObject({ ok: true, tool });
      expect(retry).toEqual(first);
    },
  );
});

describe(`the MCP idempotency key (params._meta["${IDEMPOTENCY_META_KEY}"])`, () => {
  it.each(WRITE_TOOLS)(
    'over HTTP, %s: the same key writes once from any connection; the same arguments under another key write again',
    async (tool) => {
      // Prepare
      const { args, effects } = CALLS[tool] as (typeof CALLS)[string];
      const call = { name: tool, arguments: args(`keyed http ${tool}`) };
      const url = await startFunctionUrl(chain.dispatcher);
      const clients = [await httpClient(url), await httpClient(url)];
      const before = effects();

      try {
        // Act
        const first = await clients[0]?.callTool({
          ...call,
          _meta: { [IDEMPOTENCY_META_KEY]: `k1-${tool}` },
        });
        const retry = await clients[1]?.callTool({
          ...call,
          _meta: { [IDEMPOTENCY_META_KEY]: `k1-${tool}` },
        });
        const again = await clients[1]?.callTool({
          ...call,
          _meta: { [IDEMPOTENCY_META_KEY]: `k2-${tool}` },
        });

        // Assess
        expect(retry?.structuredContent).toEqual(first?.structuredContent);
        expect(again?.isError).toBe(false);
        expect(effects() - before).toBe(2);
      } finally {
        for (const client of clients) await client.close();
        await url.stop();
      }
    },
  );

  it('over stdio: the same key writes once; another key and a call without one are calls of their own', async () => {
    // Prepare
    const { args, effects } = CALLS.slack_post_message as (typeof CALLS)[string];
    const call = args('keyed stdio');
    const session = await stdioSession();
    const before = effects();

    try {
      // Act
      const first = await session.call('slack_post_message', call, { [IDEMPOTENCY_META_KEY]: 'k1' });
      const retry = await session.call('slack_post_message', call, { [IDEMPOTENCY_META_KEY]: 'k1' });
      await session.call('slack_post_message', call, { [IDEMPOTENCY_META_KEY]: 'k2' });
      await session.call('slack_post_message', call);

      // Assess
      expect(retry).toEqual(first);
      expect(effects() - before).toBe(3);
    } finally {
      await session.close();
    }
  });

  it('keeps two stdio sessions apart without a key: each is its own caller, so each posts', async () => {
    // Prepare: two `etp mcp` processes (two MCP clients), the same call; every call's callId is mcp/0
    const { args, effects } = CALLS.slack_post_message as (typeof CALLS)[string];
    const call = args('two sessions');
    const sessions = [await stdioSession(), await stdioSession()];
    const before = effects();

    try {
      // Act
      const results = [];
      for (const session of sessions) results.push(await session.call('slack_post_message', call));

      // Assess: same callId, different runs, two posts
      expect(effects() - before).toBe(2);
      expect(results.map((result) => (result as { callId: string }).callId)).toEqual(['mcp/0', 'mcp/0']);
    } finally {
      for (const session of sessions) await session.close();
    }
  });
});
