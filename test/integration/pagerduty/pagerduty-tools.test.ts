/**
 * The PagerDuty tools against the loopback PagerDuty
 * (test/helpers/pagerduty-server.ts): each tool's happy path and error kinds,
 * offset pagination over pages with the page budget, 429 then success, a 429
 * after some pages, the renewal after a 401, both auth schemes, and exactly one
 * note through a lost answer and a reset connection.
 */
import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import { redactString } from '../../../functions/runtime/redact';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import { pagerdutyAddNoteTool } from '../../../functions/tools/pagerduty/add-note';
import { pagerdutyIncidentTool } from '../../../functions/tools/pagerduty/incident';
import { pagerdutyIncidentsTool } from '../../../functions/tools/pagerduty/incidents';
import { pagerdutyOncallTool } from '../../../functions/tools/pagerduty/oncall';
import { ANSWER_AFTER_TIMEOUT, LATE_ANSWER_BUDGET_MS } from '../../helpers/loopback-server';
import {
  type LocalPagerDuty,
  type PagerDutyWorld,
  pagerdutyKey,
  pdAlert,
  pdIncident,
  pdLogEntry,
  pdOncall,
  startPagerDutyServer,
} from '../../helpers/pagerduty-server';
import type { RequestCase, RequestCaseWorld } from '../../helpers/request-case';
import { callRestTool, type RestSecrets, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

function world(): PagerDutyWorld {
  const incidents = Array.from({ length: 30 }, (_, i) =>
    pdIncident(i === 0 ? 'PT4KHLK' : `PINC${String(i).padStart(3, '0')}`, 1234 - i, {
      status: i % 5 === 4 ? 'resolved' : i % 2 ? 'acknowledged' : 'triggered',
      urgency: i % 3 ? 'low' : 'high',
      createdAt: iso(NOW - i * 10 * MINUTE),
    }),
  );
  return {
    incidents,
    alerts: {
      PT4KHLK: Array.from({ length: 7 }, (_, i) => pdAlert('PT4KHLK', i, iso(NOW - (7 - i) * MINUTE))),
    },
    logEntries: {
      PT4KHLK: [
        pdLogEntry('PT4KHLK', 2, 'acknowledge_log_entry', iso(NOW - 2 * MINUTE)),
        pdLogEntry('PT4KHLK', 1, 'notify_log_entry', iso(NOW - 5 * MINUTE)),
        pdLogEntry('PT4KHLK', 0, 'trigger_log_entry', iso(NOW - 10 * MINUTE)),
      ],
    },
    notes: {},
    oncalls: [pdOncall(1), pdOncall(2)],
  };
}

/** A PagerDuty fake holding {@link world}, for one request case. */
async function requestCaseWorld(): Promise<RequestCaseWorld> {
  const fake = await startPagerDutyServer({ world: world() });
  process.env.PAGERDUTY_API_URL = fake.apiUrl;
  return {
    secrets: { pagerduty_default: { token: fake.apiKey, from: 'oncall@example.com' } },
    stop: async () => {
      delete process.env.PAGERDUTY_API_URL;
      await fake.stop();
    },
  };
}

/** Each tool's typical call and its request ceiling (`npm run bench`, "API requests per call"). */
// biome-ignore lint/suspicious/noExportsInTest: the tools' request cases, read by bench/rest-request-cases.ts (the bench, test/integration/http/rest-request-cases.test.ts)
export const requestCases: readonly RequestCase[] = [
  {
    tool: 'pagerduty_incidents',
    call: '24 open incidents of 30, limit 50',
    args: { limit: 50 },
    ceiling: 5,
    ceilingSource: 'at most 5 pages (functions/tools/pagerduty/incidents.ts, BUDGET)',
    start: requestCaseWorld,
  },
  {
    tool: 'pagerduty_incident',
    call: 'PT4KHLK with 7 alerts, 3 log entries, its notes and on-call',
    args: { id: 'PT4KHLK', alerts_limit: 20, log_limit: 50 },
    ceiling: 11,
    ceilingSource:
      'the incident 1 + alerts ≤ 3 pages + log entries ≤ 3 pages + notes 1 + on-call ≤ 3 pages (functions/tools/pagerduty/incident.ts; docs/pagerduty.md endpoints)',
    start: requestCaseWorld,
  },
  {
    tool: 'pagerduty_oncall',
    call: 'one schedule, 2 on-call entries',
    args: { schedule_ids: ['PI7DH85'] },
    ceiling: 3,
    ceilingSource: 'at most 3 pages (functions/tools/pagerduty/oncall.ts)',
    start: requestCaseWorld,
  },
  {
    tool: 'pagerduty_add_note',
    call: 'one note on PT4KHLK, its answer received',
    args: { incident_id: 'PT4KHLK', content: 'Triage: SSH open on the bastion; closing it.' },
    ceiling: 1,
    ceilingSource:
      'POST …/notes once; the GET lookup only after a lost answer (docs/pagerduty.md: pagerduty_add_note)',
    start: requestCaseWorld,
  },
];

let pd: LocalPagerDuty;
let secrets: RestSecrets;
let running = false;
const quiet = useQuietRestCalls();
const asTool = (tool: unknown) => tool as Tool;

async function start(options: { oauthScopes?: readonly string[] } = {}) {
  if (running) await pd.stop();
  running = true;
  pd = await startPagerDutyServer({ world: world(), ...options });
  process.env.PAGERDUTY_API_URL = pd.apiUrl;
  secrets = restSecrets({ pagerduty_default: { token: pd.apiKey, from: 'oncall@example.com' } });
}

beforeEach(() => start());
afterEach(async () => {
  delete process.env.PAGERDUTY_API_URL;
  running = false;
  await pd.stop();
});

const call = (tool: unknown, args: unknown, options: Parameters<typeof callRestTool>[3] = {}) =>
  callRestTool(asTool(tool), args, secrets, options);
const value = (result: ToolResult) => {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result.value as Record<string, unknown>;
};

describe('pagerduty_incidents', () => {
  it('lists open incidents newest first with the documented fields, by the API key scheme', async () => {
    const result = await call(pagerdutyIncidentsTool, { limit: 5 });
    const incidents = value(result).incidents as Record<string, unknown>[];
    expect(incidents.map((i) => i.number)).toEqual([1234, 1233, 1232, 1231, 1229]);
    expect(incidents[0]).toEqual({
      id: 'PT4KHLK',
      number: 1234,
      title: 'The server is on fire.',
      status: 'triggered',
      urgency: 'high',
      priority: 'P2',
      service: { id: 'PIJ90N7', name: 'My Mail Service' },
      escalation_policy: { id: 'PT20YPA', name: 'Engineering Escalation Policy' },
      assignees: [{ id: 'PXPGF42', name: 'Earline Greenholt' }],
      alert_counts: { all: 2, triggered: 1, resolved: 1 },
      created_at: expect.any(String),
      last_status_change_at: expect.any(String),
      resolved_at: null,
      url: 'https://subdomain.pagerduty.com/incidents/PT4KHLK',
    });
    expect(pd.requests[0]?.headers.authorization).toBe(`Token token=${pd.apiKey}`);
    expect(pd.requests[0]?.query.getAll('statuses[]')).toEqual(['triggered', 'acknowledged']);
    expect(value(result)).toMatchObject({ complete: false, stopped_by: 'enough', next_cursor: '5' });
  });

  it('pages with offset and more over three pages; the cursor resumes', async () => {
    const result = await call(pagerdutyIncidentsTool, {
      statuses: ['triggered', 'acknowledged', 'resolved'],
      limit: 100,
    });
    expect(value(result)).toMatchObject({ count: 30, complete: true, next_cursor: null });
    // One page of 100 holds them all: the offset pages are exercised with a smaller page below.
    const paged = await call(pagerdutyIncidentsTool, {
      statuses: ['triggered', 'acknowledged', 'resolved'],
      limit: 10,
      cursor: '10',
    });
    expect((value(paged).incidents as { number: number }[])[0]?.number).toBe(1224);
    expect(pd.requests.at(-1)?.query.get('offset')).toBe('10');
  });

  it('filters by urgency, service and window', async () => {
    const result = await call(pagerdutyIncidentsTool, {
      urgencies: ['high'],
      service_ids: ['PIJ90N7'],
      since: iso(NOW - 65 * MINUTE),
      limit: 100,
    });
    expect((value(result).incidents as { number: number }[]).map((i) => i.number)).toEqual([
      1234, 1231, 1228,
    ]);
  });

  it('429 then success (Retry-After honoured)', async () => {
    pd.failNext({
      status: 429,
      body: { error: { code: 2020, message: 'Too many requests' } },
      headers: { 'retry-after': '1' },
    });
    expect(value(await call(pagerdutyIncidentsTool, { limit: 3 })).count).toBe(3);
    expect(pd.requests).toHaveLength(2);
  });

  it('429 without Retry-After: throttled with retryAfterMs from ratelimit-reset', async () => {
    pd.failNext(
      {
        status: 429,
        body: { error: { code: 2020, message: 'Too many requests' } },
        headers: { 'ratelimit-reset': '45' },
      },
      5,
    );
    const result = await call(pagerdutyIncidentsTool, { limit: 3 }, { budgetMs: 4_000 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'throttled', details: { retryAfterMs: 45_000 } },
    });
    // Not repeated after a backoff: the window opens in 45 s ("REST API Rate Limits").
    expect(pd.requests).toHaveLength(1);
  });

  /** So many incidents that classic pagination cannot reach them all (offset + limit ≤ 10,000). */
  function manyIncidents(count: number) {
    for (let i = 0; i < count; i++) {
      pd.world.incidents.push(
        pdIncident(`PMANY${String(i).padStart(5, '0')}`, 10_000 + i, {
          status: 'resolved',
          urgency: 'low',
          createdAt: iso(NOW - (60 + i) * MINUTE),
        }),
      );
    }
  }

  it('stops at offset + limit 10,000 (classic pagination) as window, neither refused nor complete', async () => {
    manyIncidents(10_050);
    const result = await call(pagerdutyIncidentsTool, {
      statuses: ['resolved'],
      limit: 100,
      cursor: '9950',
    });
    expect(value(result)).toMatchObject({
      count: 50,
      complete: false,
      stopped_by: 'window',
      next_cursor: null,
    });
    expect(result).toMatchObject({ truncated: true });
    // The last page asks for what the window has left: offset 9950, limit 50.
    expect(pd.requests.map((r) => [r.query.get('offset'), r.query.get('limit')])).toEqual([['9950', '50']]);
  });

  it.each([
    // 31 August + 6 months is the last day of February (2027: the 28th), not 3 March.
    ['2026-08-31T12:00:00Z', '2027-02-28T12:00:00Z', '2027-02-28T12:00:01Z'],
    // A leap year's February has its 29th.
    ['2027-08-31T00:00:00Z', '2028-02-29T00:00:00Z', '2028-03-01T00:00:00Z'],
  ])(
    'a window from %s ends at the last day of the 6th month (%s), not past it',
    async (since, last, past) => {
      expect(await call(pagerdutyIncidentsTool, { since, until: last })).toMatchObject({ ok: true });
      expect(await call(pagerdutyIncidentsTool, { since, until: past })).toMatchObject({
        ok: false,
        error: { code: 'invalid_args' },
      });
      expect(pd.requests).toHaveLength(1);
    },
  );

  it('a window of exactly 6 months is sent; one second more is refused, saying so', async () => {
    const sent = await call(pagerdutyIncidentsTool, {
      since: '2026-01-31T00:00:00Z',
      until: '2026-07-31T00:00:00Z',
    });
    expect(value(sent).count).toBe(0);
    const refused = await call(pagerdutyIncidentsTool, {
      since: '2026-01-31T00:00:00Z',
      until: '2026-07-31T00:00:01Z',
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('at most 6 months after since') },
    });
    expect(pd.requests).toHaveLength(1);
  });

  it('a cursor at offset 10,000 is invalid_args before any request, saying why', async () => {
    const result = await call(pagerdutyIncidentsTool, { statuses: ['resolved'], cursor: '10000' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('at most 10000 records per query') },
    });
    expect(pd.requests).toHaveLength(0);
  });

  it('bad arguments are invalid_args before any request', async () => {
    for (const args of [
      { statuses: ['open'] },
      { limit: 500 },
      { cursor: 'abc' },
      { service_ids: ['my-service'] },
      { since: iso(NOW), until: iso(NOW - MINUTE) },
      // "List incidents": the range is at most 6 months.
      { since: '2026-01-31T00:00:00Z', until: '2026-07-31T00:00:01Z' },
    ]) {
      expect(await call(pagerdutyIncidentsTool, args)).toMatchObject({
        ok: false,
        error: { code: 'invalid_args' },
      });
    }
    expect(pd.requests).toHaveLength(0);
  });
});

describe('pagerduty_incident', () => {
  it("reads every page of who is on call for the incident's policy (more), and says it did", async () => {
    pd.world.oncalls = Array.from({ length: 130 }, (_, i) => pdOncall((i % 3) + 1));
    const detail = value(await call(pagerdutyIncidentTool, { id: 'PT4KHLK', alerts_limit: 0, log_limit: 0 }));
    expect(detail.oncall).toHaveLength(130);
    expect(detail.oncall_complete).toBe(true);
    const reads = pd.requests.filter((r) => r.path === '/oncalls');
    expect(reads.map((r) => r.query.get('offset'))).toEqual(['0', '100']);
  });

  it('says the result is truncated when the page budget (3 pages) cuts who is on call short', async () => {
    pd.world.oncalls = Array.from({ length: 350 }, (_, i) => pdOncall((i % 3) + 1));
    const result = await call(pagerdutyIncidentTool, { id: 'PT4KHLK', alerts_limit: 0, log_limit: 0 });
    const detail = value(result);
    expect(detail.oncall).toHaveLength(300);
    expect(detail.oncall_complete).toBe(false);
    expect(result).toMatchObject({ truncated: true });
  });

  it('one incident with its alerts, timeline oldest first, notes; custom details only as a preview', async () => {
    const result = await call(pagerdutyIncidentTool, { id: 'PT4KHLK', alerts_limit: 3 });
    const detail = value(result);
    expect(detail.incident).toMatchObject({ id: 'PT4KHLK', number: 1234 });
    expect(detail.alerts).toHaveLength(3);
    expect((detail.alerts as Record<string, unknown>[])[0]).toEqual({
      id: 'PALERT0',
      summary: 'The server is on fire.',
      severity: 'critical',
      status: 'triggered',
      created_at: expect.any(String),
      service: { id: 'PIJ90N7', name: 'My Mail Service' },
      details_preview: '{"customKey":"Server is on fire!","customKey2":"Other stuff!"}',
    });
    expect(detail.alerts_complete).toBe(false);
    expect((detail.log_entries as { type: string }[]).map((e) => e.type)).toEqual([
      'trigger_log_entry',
      'notify_log_entry',
      'acknowledge_log_entry',
    ]);
    expect(detail.log_complete).toBe(true);
  });

  it("an unknown incident is not_found with PagerDuty's message", async () => {
    const result = await call(pagerdutyIncidentTool, { id: 'PNOPE00' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'not_found', service: 'pagerduty', details: { apiMessage: 'Not Found (code 2100)' } },
    });
  });

  it('reads no more alerts than asked: one page of alerts_limit, no log entries when log_limit is 0', async () => {
    const result = await call(pagerdutyIncidentTool, { id: 'PT4KHLK', alerts_limit: 3, log_limit: 0 });
    expect(value(result).alerts).toHaveLength(3);
    const alertRequests = pd.requests.filter((r) => r.path.endsWith('/alerts'));
    expect(alertRequests.map((r) => [r.query.get('offset'), r.query.get('limit')])).toEqual([['0', '3']]);
    expect(pd.requests.filter((r) => r.path.endsWith('/log_entries'))).toHaveLength(0);
  });
});

describe('pagerduty_oncall', () => {
  it('who is on call now, never contact methods', async () => {
    const result = await call(pagerdutyOncallTool, { schedule_ids: ['PI7DH85'] });
    expect(value(result).oncalls).toEqual([
      expect.objectContaining({
        user: { id: 'PT23IWX', name: 'Tim Wright' },
        escalation_level: 1,
        schedule: { id: 'PI7DH85', name: 'Daily Engineering Rotation' },
      }),
      expect.objectContaining({ user: { id: 'PXPGF42', name: 'Earline Greenholt' }, escalation_level: 2 }),
    ]);
    expect(result.summary).toBe('On call: Tim Wright, Earline Greenholt');
    expect(pd.requests[0]?.query.get('earliest')).toBe('true');
  });

  it('pages with offset and more (pages of 100) and stops at the page budget of 3 pages, saying so', async () => {
    pd.world.oncalls = Array.from({ length: 350 }, (_, i) => pdOncall((i % 3) + 1));
    const result = await call(pagerdutyOncallTool, { escalation_policy_ids: ['PT20YPA'] });
    expect(value(result)).toMatchObject({ complete: false, stopped_by: 'max_pages' });
    // 300 read; the result is then bounded to the inline budget by the harness, still a valid list.
    expect((value(result).oncalls as unknown[]).length).toBeGreaterThan(200);
    expect(pd.requests.map((r) => r.query.get('offset'))).toEqual(['0', '100', '200']);
    expect(result).toMatchObject({ truncated: true });
  });

  it('a 429 after some pages returns the pages read, never nothing', async () => {
    pd.world.oncalls = Array.from({ length: 250 }, (_, i) => pdOncall((i % 3) + 1));
    pd.failNext(
      {
        status: 429,
        body: { error: { code: 2020, message: 'Too many requests' } },
        headers: { 'retry-after': '30' },
      },
      3,
      {
        after: 1,
      },
    );
    const result = await call(pagerdutyOncallTool, { schedule_ids: ['PI7DH85'] }, { budgetMs: 5_000 });
    expect(value(result)).toMatchObject({ complete: false, stopped_by: 'throttled', retry_after_ms: 30_000 });
    expect((value(result).oncalls as unknown[]).length).toBe(100);
  });

  it('needs a schedule or a policy', async () => {
    expect(await call(pagerdutyOncallTool, {})).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('an OAuth token without oncalls.read: access_denied naming the scope', async () => {
    await start({ oauthScopes: ['incidents.read'] });
    secrets.set('pagerduty_default', { access_token: pd.oauthToken });
    const result = await call(pagerdutyOncallTool, { schedule_ids: ['PI7DH85'] });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'access_denied',
        details: { missingScope: 'the oncalls.read scope (this request needs it)' },
      },
    });
    expect(pd.requests[0]?.headers.authorization).toBe(`Bearer ${pd.oauthToken}`);
  });
});

describe('auth and secrets', () => {
  it('a rotated key: 401, read again, repeated once', async () => {
    expect(value(await call(pagerdutyIncidentsTool, { limit: 1 })).count).toBe(1);
    const rotated = pagerdutyKey();
    pd.acceptKey(rotated);
    pd.revoke(pd.apiKey);
    secrets.set('pagerduty_default', { token: rotated });
    expect(value(await call(pagerdutyIncidentsTool, { limit: 1 })).count).toBe(1);
    expect(pd.requests.slice(1).map((r) => r.headers.authorization)).toEqual([
      `Token token=${pd.apiKey}`,
      `Token token=${rotated}`,
    ]);
  });

  it('a revoked key: auth_failed, the key never shown in the result or the logs', async () => {
    pd.revoke(pd.apiKey);
    const result = await call(pagerdutyIncidentsTool, {});
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'auth_failed', details: { apiMessage: 'Authentication failed (code 2006)' } },
    });
    expect(JSON.stringify(result)).not.toContain(pd.apiKey);
    expect(quiet.logs()).not.toContain(pd.apiKey);
  });

  it.each([
    [{}],
    [{ token: 'short' }],
    [{ access_token: 'a b c d e f g h i j k l' }],
    [{ token: pagerdutyKey(), region: 'ap' }],
  ])('refuses the secret %j before any request', async (secret) => {
    secrets.set('pagerduty_default', secret);
    const result = await call(pagerdutyIncidentsTool, {});
    expect(result).toMatchObject({ ok: false, error: { code: 'secret_invalid', service: 'pagerduty' } });
    expect(pd.requests).toHaveLength(0);
  });

  it('a key has no recognizable format: the Token scheme is masked wherever it is written', () => {
    const key = pagerdutyKey();
    expect(
      redactString(`curl -H "Authorization: Token token=${key}" https://api.pagerduty.com`),
    ).not.toContain(key);
    expect(redactString(`Token token=${key}`)).toBe('Token token=<redacted>');
  });
});

describe('pagerduty_add_note', () => {
  const args = { incident_id: 'PT4KHLK', content: 'Triage: rollback of deploy 100 in progress.' };
  const notes = () => pd.world.notes.PT4KHLK ?? [];

  it('adds one note with the marker on its last line and the From header', async () => {
    const result = await call(pagerdutyAddNoteTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toEqual({
      incident_id: 'PT4KHLK',
      note_id: 'PNOTE1',
      created_at: expect.any(String),
      recovered: false,
    });
    expect(String(notes()[0]?.content)).toMatch(
      /^Triage: rollback of deploy 100 in progress\.\n\n\[etp-call:[0-9a-f]{32}\]$/,
    );
    expect(pd.requests.find((r) => r.method === 'POST')?.headers.from).toBe('oncall@example.com');
  });

  it.each([
    ['an answer after the client timeout', ANSWER_AFTER_TIMEOUT],
    ['a connection reset after the server accepted', { reset: true as const }],
  ])('%s: exactly one note, found by its marker; a retry of the call adds none', async (_name, failure) => {
    const store = new InMemoryIdempotencyStore();
    pd.failNext(failure, 1, { method: 'POST' });
    const first = await call(pagerdutyAddNoteTool, args, {
      idempotency: store.layer,
      budgetMs: LATE_ANSWER_BUDGET_MS,
    });
    expect(value(first)).toMatchObject({ note_id: 'PNOTE1', recovered: true });
    const again = await call(pagerdutyAddNoteTool, args, { idempotency: store.layer });
    expect(value(again)).toMatchObject({ note_id: 'PNOTE1' });
    expect(notes()).toHaveLength(1);
  });

  it("an account key without From: invalid_args with PagerDuty's field message, nothing added", async () => {
    secrets.set('pagerduty_default', { token: pd.apiKey });
    const result = await call(pagerdutyAddNoteTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        details: { fields: ['A valid "From" header is required for this request'] },
      },
    });
    expect(notes()).toHaveLength(0);
  });

  it('an unknown incident: not_found, nothing added', async () => {
    const result = await call(
      pagerdutyAddNoteTool,
      { ...args, incident_id: 'PNOPE00' },
      { idempotency: new InMemoryIdempotencyStore().layer },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('OAuth without incidents.write: access_denied naming the scope', async () => {
    await start({ oauthScopes: ['incidents.read'] });
    secrets.set('pagerduty_default', { access_token: pd.oauthToken });
    const result = await call(pagerdutyAddNoteTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'access_denied',
        details: { missingScope: 'the incidents.write scope (this request needs it)' },
      },
    });
  });

  it('429 then success: one note', async () => {
    pd.failNext(
      {
        status: 429,
        body: { error: { code: 2020, message: 'Too many requests' } },
        headers: { 'retry-after': '1' },
      },
      1,
      { method: 'POST' },
    );
    const result = await call(pagerdutyAddNoteTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toMatchObject({ recovered: false });
    expect(notes()).toHaveLength(1);
  });

  it('a rotated key: 401 on the write, renewed once, one note', async () => {
    await call(pagerdutyIncidentsTool, { limit: 1 });
    const rotated = pagerdutyKey();
    pd.acceptKey(rotated);
    pd.revoke(pd.apiKey);
    secrets.set('pagerduty_default', { token: rotated, from: 'oncall@example.com' });
    const result = await call(pagerdutyAddNoteTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toMatchObject({ note_id: 'PNOTE1' });
    expect(notes()).toHaveLength(1);
  });
});
