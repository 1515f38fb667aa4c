/**
 * The ATS tools against the local Greenhouse Harvest and Lever: the family
 * shape (and nothing of the candidate's contact details, resumes or
 * attachments), each error kind, 429 then success, pagination with its page
 * budget, the renewal after a 401, and ats_add_note's exactly-once write.
 */
import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import type { ToolResult } from '../../../functions/runtime/result';
import { atsAddNoteTool } from '../../../functions/tools/ats/add-note';
import { atsGetCandidateTool } from '../../../functions/tools/ats/get-candidate';
import { atsListCandidatesTool } from '../../../functions/tools/ats/list-candidates';
import {
  GREENHOUSE_KEY,
  GREENHOUSE_USER_ID,
  greenhouseCandidate,
  type LocalGreenhouse,
  startGreenhouseServer,
} from '../../helpers/greenhouse-server';
import {
  LEVER_KEY,
  LEVER_USER_ID,
  type LocalLever,
  leverOpportunity,
  startLeverServer,
} from '../../helpers/lever-server';
import { ANSWER_AFTER_TIMEOUT, LATE_ANSWER_BUDGET_MS } from '../../helpers/loopback-server';
import type { RequestCase, RequestCaseWorld } from '../../helpers/request-case';
import { isoAt } from '../../helpers/rest-fake';
import { callRestTool, type RestSecrets, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

useQuietRestCalls();

/** A Greenhouse Harvest fake holding three candidates, for one request case. */
async function requestCaseWorld(): Promise<RequestCaseWorld> {
  const fake = await startGreenhouseServer({
    candidates: (url) => [
      greenhouseCandidate(1, url, 'Application Review'),
      greenhouseCandidate(12, url),
      greenhouseCandidate(30, url),
    ],
  });
  process.env.GREENHOUSE_API_URL = fake.apiUrl;
  return {
    secrets: { ats_default: { provider: 'greenhouse', token: GREENHOUSE_KEY, user_id: GREENHOUSE_USER_ID } },
    stop: async () => {
      delete process.env.GREENHOUSE_API_URL;
      await fake.stop();
    },
  };
}

/** The docs' John Locke (greenhouseCandidate 12). */
const JOHN_LOCKE = String(greenhouseCandidate(12, '').id);

/** Each tool's typical call (Greenhouse) and its request ceiling (`npm run bench`, "API requests per call"). */
// biome-ignore lint/suspicious/noExportsInTest: the tools' request cases, read by bench/rest-request-cases.ts (the bench, test/integration/http/rest-request-cases.test.ts)
export const requestCases: readonly RequestCase[] = [
  {
    tool: 'ats_list_candidates',
    call: 'Greenhouse: 3 candidates, limit 100',
    args: { limit: 100 },
    ceiling: 1,
    ceilingSource: 'one request per page of 100 candidates: limit 100 is 1 page (docs/ats.md)',
    start: requestCaseWorld,
  },
  {
    tool: 'ats_get_candidate',
    call: 'Greenhouse: one candidate with its activity feed',
    args: { candidate_id: JOHN_LOCKE },
    ceiling: 2,
    ceilingSource: '2 (the candidate, its activity feed; docs/ats.md)',
    start: requestCaseWorld,
  },
  {
    tool: 'ats_add_note',
    call: 'Greenhouse: one note, its answer received',
    args: { candidate_id: JOHN_LOCKE, note: 'Strong phone screen; move to onsite.' },
    ceiling: 1,
    ceilingSource: '1; one read more only after a lost answer (docs/ats.md)',
    start: requestCaseWorld,
  },
];

function ok(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result.value as Record<string, unknown>;
}

function failed(result: ToolResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.error;
}

/** Personal data of the fixtures that no ATS result may carry. */
const NEVER_RETURNED = [
  '@example',
  '555-555',
  '455 Broadway',
  'resume',
  'X-Amz-Signature',
  'desired_salary',
  'Online research',
  '(123) 456',
  'Hi John',
];

function expectNoPersonalData(value: unknown) {
  const text = JSON.stringify(value);
  for (const piece of NEVER_RETURNED) expect(text).not.toContain(piece);
}

describe('ats tools on Greenhouse Harvest', () => {
  let greenhouse: LocalGreenhouse;
  let running: LocalGreenhouse | undefined;
  let secrets: RestSecrets;

  async function start(options: Parameters<typeof startGreenhouseServer>[0] = {}) {
    await running?.stop();
    greenhouse = await startGreenhouseServer(options);
    running = greenhouse;
    process.env.GREENHOUSE_API_URL = greenhouse.apiUrl;
    secrets = restSecrets({
      ats_default: { provider: 'greenhouse', token: GREENHOUSE_KEY, user_id: GREENHOUSE_USER_ID },
    });
  }

  beforeEach(() =>
    start({
      candidates: (url) => [
        greenhouseCandidate(1, url, 'Application Review'),
        greenhouseCandidate(12, url),
        greenhouseCandidate(30, url),
      ],
    }),
  );
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    delete process.env.GREENHOUSE_API_URL;
  });

  it('lists candidates by job, stage and window, with only the fields the spec lists', async () => {
    const value = ok(
      await callRestTool(
        atsListCandidatesTool,
        { job_id: '87752', stage: 'recruiter phone screen', since: isoAt(10) },
        secrets,
      ),
    );

    expect(value.candidates).toEqual([
      {
        id: '53883012',
        name: 'John Locke',
        application_id: '69306012',
        job: { id: '87752', name: 'Accounting Manager' },
        stage: 'Recruiter Phone Screen',
        status: 'active',
        applied_at: isoAt(12),
        last_activity_at: isoAt(12),
        source: 'Jobs page on your website',
      },
      expect.objectContaining({ id: '53883030' }),
    ]);
    expect(greenhouse.requests[0]?.query.get('created_after')).toBe(isoAt(10));
    expect(greenhouse.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${GREENHOUSE_KEY}:`).toString('base64')}`,
    );
    expectNoPersonalData(value);
    expect(greenhouse.attachmentDownloads()).toBe(0);
  });

  it('reads one candidate with applications and stage history from the activity feed', async () => {
    const value = ok(await callRestTool(atsGetCandidateTool, { candidate_id: '53883012' }, secrets));

    expect(value.candidate).toEqual({
      id: '53883012',
      name: 'John Locke',
      company: 'The Tustin Box Company',
      title: 'Customer Success Representative',
      tags: ['Walkabout', 'Orientation'],
      created_at: isoAt(12),
      updated_at: isoAt(12),
      applications: [
        {
          id: '69306012',
          job: { id: '87752', name: 'Accounting Manager' },
          status: 'active',
          stage: 'Recruiter Phone Screen',
          applied_at: isoAt(12),
          rejected_at: null,
          source: 'Jobs page on your website',
        },
      ],
      stage_history: [
        { stage: 'Recruiter Phone Screen', job: 'Accounting Manager', at: '2014-03-26T20:26:38.000Z' },
        { stage: 'Face to Face', job: 'Accounting Manager', at: '2014-03-28T10:00:00.000Z' },
      ],
    });
    expectNoPersonalData(value);
    expect(greenhouse.attachmentDownloads()).toBe(0);
  });

  it('follows Link pages within its page budget, then continues from next_cursor', async () => {
    await start({ candidates: (url) => Array.from({ length: 350 }, (_, n) => greenhouseCandidate(n, url)) });

    const first = ok(await callRestTool(atsListCandidatesTool, { limit: 300 }, secrets));
    const second = ok(
      await callRestTool(atsListCandidatesTool, { limit: 300, cursor: first.next_cursor }, secrets),
    );

    expect(first).toMatchObject({ pages: 3, complete: false, stopped_by: 'max_pages', scanned: 300 });
    expect(first.next_cursor).toMatch(/^greenhouse:\/v1\/candidates\?.*page=4/);
    expect(second).toMatchObject({ pages: 1, complete: true, scanned: 50, next_cursor: null });
  });

  it('refuses a cursor that points elsewhere before any request', async () => {
    const error = failed(
      await callRestTool(
        atsListCandidatesTool,
        { cursor: 'greenhouse:https://evil.example/v1/candidates' },
        secrets,
      ),
    );

    expect(error.code).toBe('invalid_args');
    expect(greenhouse.requests).toHaveLength(0);
  });

  it('waits out a 429 and succeeds; renews the key after a 401', async () => {
    greenhouse.throttle(1);
    ok(await callRestTool(atsGetCandidateTool, { candidate_id: '53883012' }, secrets));
    expect(greenhouse.requests.filter((r) => r.path === '/v1/candidates/53883012')).toHaveLength(2);

    greenhouse.rotate('b'.repeat(32));
    secrets.set('ats_default', {
      provider: 'greenhouse',
      token: 'b'.repeat(32),
      user_id: GREENHOUSE_USER_ID,
    });
    ok(await callRestTool(atsListCandidatesTool, {}, secrets));
  });

  it('maps errors: not found, a missing Harvest permission, a refused body, a missing user_id', async () => {
    expect(failed(await callRestTool(atsGetCandidateTool, { candidate_id: '1' }, secrets))).toMatchObject({
      code: 'not_found',
      service: 'greenhouse',
    });
    secrets.set('ats_default', { provider: 'greenhouse', token: GREENHOUSE_KEY });
    await start({ permissions: ['GET: Retrieve Candidate'] });
    secrets.set('ats_default', { provider: 'greenhouse', token: GREENHOUSE_KEY });
    expect(failed(await callRestTool(atsListCandidatesTool, {}, secrets))).toMatchObject({
      code: 'access_denied',
      details: { missingScope: 'the Harvest permission "GET: List Candidates"' },
    });
    const noUser = failed(
      await callRestTool(atsAddNoteTool, { candidate_id: '53883012', note: 'x' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );
    expect(noUser).toMatchObject({ code: 'secret_invalid', message: expect.stringContaining('user_id') });
  });

  it('adds a note once: a late answer is found by its marker', async () => {
    greenhouse.failNext(ANSWER_AFTER_TIMEOUT, 1, { method: 'POST' });

    const value = ok(
      await callRestTool(
        atsAddNoteTool,
        { candidate_id: '53883012', note: 'Strong phone screen.' },
        secrets,
        {
          budgetMs: LATE_ANSWER_BUDGET_MS,
          idempotency: new InMemoryIdempotencyStore().layer,
        },
      ),
    );

    expect(value).toMatchObject({ provider: 'greenhouse', recovered: true, visibility: 'private' });
    const notes = greenhouse.notes.get(53_883_012) ?? [];
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      body: `Strong phone screen.\n\n${value.marker}`,
      visibility: 'private',
    });
    const post = greenhouse.requests.find((r) => r.method === 'POST');
    expect(post?.headers['on-behalf-of']).toBe(String(GREENHOUSE_USER_ID));
  });

  it('adds a note once: a reset after the server accepted, then a replay of the call', async () => {
    greenhouse.failNext({ reset: true }, 1, { method: 'POST' });
    const store = new InMemoryIdempotencyStore();
    const args = { candidate_id: '53883012', note: 'Moved on.', visibility: 'public' };

    const first = ok(await callRestTool(atsAddNoteTool, args, secrets, { idempotency: store.layer }));
    const replay = ok(await callRestTool(atsAddNoteTool, args, secrets, { idempotency: store.layer }));

    expect(first.recovered).toBe(true);
    expect(replay).toEqual(first);
    expect(greenhouse.notes.get(53_883_012)).toHaveLength(1);
  });
});

describe('ats tools on Lever', () => {
  let lever: LocalLever;
  let running: LocalLever | undefined;
  let secrets: RestSecrets;

  async function start(options: Parameters<typeof startLeverServer>[0] = {}) {
    await running?.stop();
    lever = await startLeverServer(options);
    running = lever;
    process.env.LEVER_API_URL = lever.apiUrl;
    secrets = restSecrets({ ats_default: { provider: 'lever', token: LEVER_KEY, user_id: LEVER_USER_ID } });
  }

  beforeEach(() =>
    start({
      opportunities: [leverOpportunity(1, 'applicant-new'), leverOpportunity(12), leverOpportunity(30)],
    }),
  );
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    delete process.env.LEVER_API_URL;
  });

  it('lists candidates by stage name and window in the family shape', async () => {
    const value = ok(
      await callRestTool(atsListCandidatesTool, { stage: 'Phone screen', since: isoAt(10) }, secrets),
    );

    expect(value.candidates).toEqual([
      {
        id: leverOpportunity(12).id,
        name: 'Shane Smith',
        application_id: 'cdb2b5b0-0000-4000-8000-000000000012',
        job: { id: 'f2f01e16-27f8-4711-a728-7d49499795a0', name: null },
        stage: 'Phone screen',
        status: 'active',
        applied_at: isoAt(12),
        last_activity_at: isoAt(12),
        source: 'linkedin',
      },
      expect.objectContaining({ id: leverOpportunity(30).id }),
    ]);
    const list = lever.requests.find((r) => r.path === '/v1/opportunities');
    expect(list?.query.get('stage_id')).toBe('e4e8d1f3-phone-screen');
    expect(list?.query.get('created_at_start')).toBe(String(Date.parse(isoAt(10))));
    expectNoPersonalData(value);
    expect(lever.fileRequests()).toBe(0);
  });

  it('names the stages it has when the stage is unknown', async () => {
    expect(failed(await callRestTool(atsListCandidatesTool, { stage: 'Onsite' }, secrets))).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('Phone screen'),
    });
  });

  it('reads one candidate with stage history', async () => {
    const value = ok(
      await callRestTool(atsGetCandidateTool, { candidate_id: leverOpportunity(12).id }, secrets),
    );

    expect(value.candidate).toMatchObject({
      name: 'Shane Smith',
      applications: [expect.objectContaining({ stage: 'Phone screen', status: 'active' })],
      stage_history: [
        { stage: 'New applicant', job: null, at: isoAt(12) },
        { stage: 'Phone screen', job: null, at: new Date(Date.parse(isoAt(12)) + 1000).toISOString() },
      ],
    });
    expectNoPersonalData(value);
    expect(lever.fileRequests()).toBe(0);
  });

  it('follows next tokens within its page budget', async () => {
    await start({ opportunities: Array.from({ length: 350 }, (_, n) => leverOpportunity(n)) });

    const first = ok(await callRestTool(atsListCandidatesTool, { limit: 300 }, secrets));
    const second = ok(
      await callRestTool(atsListCandidatesTool, { limit: 300, cursor: first.next_cursor }, secrets),
    );

    expect(first).toMatchObject({ pages: 3, complete: false, scanned: 300 });
    expect(second).toMatchObject({ complete: true, scanned: 50 });
  });

  it('waits out a 429; renews after a 401; maps not found', async () => {
    lever.throttle(1, /^\/v1\/opportunities\//);
    ok(await callRestTool(atsGetCandidateTool, { candidate_id: leverOpportunity(12).id }, secrets));
    lever.rotate('NewLeverKey0123456789abcdefghijklmnopqrstuvwxyz01');
    secrets.set('ats_default', {
      provider: 'lever',
      token: 'NewLeverKey0123456789abcdefghijklmnopqrstuvwxyz01',
      user_id: LEVER_USER_ID,
    });
    ok(await callRestTool(atsGetCandidateTool, { candidate_id: leverOpportunity(12).id }, secrets));
    expect(
      failed(
        await callRestTool(
          atsGetCandidateTool,
          { candidate_id: '00000000-0000-4000-8000-000000000000' },
          secrets,
        ),
      ),
    ).toMatchObject({ code: 'not_found', service: 'lever' });
  });

  it('adds a note once as the secret user, found after a late answer', async () => {
    lever.failNext(ANSWER_AFTER_TIMEOUT, 1, { method: 'POST' });
    const id = leverOpportunity(12).id;

    const value = ok(
      await callRestTool(atsAddNoteTool, { candidate_id: id, note: 'Great fit.' }, secrets, {
        budgetMs: LATE_ANSWER_BUDGET_MS,
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(lever.notes.get(id)).toEqual([
      expect.objectContaining({ text: `Great fit.\n\n${value.marker}`, secret: true, user: LEVER_USER_ID }),
    ]);
  });

  /** `count` notes already on the opportunity, oldest first, as earlier calls left them. */
  function earlierNotes(id: string, count: number) {
    lever.notes.set(
      id,
      Array.from({ length: count }, (_, n) => ({
        id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        text: `Earlier note ${n}`,
        createdAt: Date.parse(isoAt(n)),
      })),
    );
  }

  it('finds a note whose answer was lost on a later page of the notes (hasNext followed)', async () => {
    const id = leverOpportunity(12).id;
    earlierNotes(id, 150);
    lever.failNext({ reset: true }, 1, { method: 'POST' });

    const value = ok(
      await callRestTool(atsAddNoteTool, { candidate_id: id, note: 'Reset.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(lever.notes.get(id)).toHaveLength(151);
    const lookups = lever.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/notes'));
    expect(lookups.map((r) => r.query.get('offset') === null)).toEqual([true, false]);
  });

  it("finds a note whose answer was lost by its fields' value when the note has no top-level text", async () => {
    await start({ opportunities: [leverOpportunity(12)], noteBodyInFieldsOnly: true });
    const id = leverOpportunity(12).id;
    lever.failNext({ reset: true }, 1, { method: 'POST' });

    const value = ok(
      await callRestTool(atsAddNoteTool, { candidate_id: id, note: 'Reset.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(lever.notes.get(id)).toHaveLength(1);
  });

  it('says the effect is unknown when the notes could not all be read, and writes nothing again', async () => {
    const id = leverOpportunity(12).id;
    earlierNotes(id, 1_050);
    lever.failNext({ reset: true }, 1, { method: 'POST' });

    const error = failed(
      await callRestTool(atsAddNoteTool, { candidate_id: id, note: 'Reset.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(error).toMatchObject({ code: 'network_error', details: { effect: 'unknown' } });
    expect(error.message).toContain('max_pages');
    expect(lever.notes.get(id)).toHaveLength(1_051);
  });

  it('adds a note once after a reset', async () => {
    lever.failNext({ reset: true }, 1, { method: 'POST' });
    const id = leverOpportunity(12).id;

    const value = ok(
      await callRestTool(atsAddNoteTool, { candidate_id: id, note: 'Reset.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(lever.notes.get(id)).toHaveLength(1);
  });
});
