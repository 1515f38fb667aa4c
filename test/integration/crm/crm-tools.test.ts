/**
 * The CRM tools against the local HubSpot and Attio: the same family shape from
 * either vendor, each error kind, 429 then success, pagination with its page
 * budget, the renewal after a 401, and crm_update_lead's exactly-once writes
 * (a late answer, a reset after the server accepted, a replayed call).
 */
import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import type { ToolResult } from '../../../functions/runtime/result';
import { crmGetCompanyTool } from '../../../functions/tools/crm/get-company';
import { crmListLeadsTool } from '../../../functions/tools/crm/list-leads';
import { COMPANIES_PER_CALL } from '../../../functions/tools/crm/schemas';
import { crmUpdateLeadTool } from '../../../functions/tools/crm/update-lead';
import {
  ATTIO_TOKEN,
  attioCompany,
  attioPerson,
  type LocalAttio,
  startAttioServer,
} from '../../helpers/attio-server';
import {
  HUBSPOT_TOKEN,
  hubspotContact,
  type LocalHubSpot,
  startHubSpotServer,
} from '../../helpers/hubspot-server';
import { ANSWER_AFTER_TIMEOUT, LATE_ANSWER_BUDGET_MS } from '../../helpers/loopback-server';
import type { RequestCase, RequestCaseWorld } from '../../helpers/request-case';
import { isoAt } from '../../helpers/rest-fake';
import { callRestTool, type RestSecrets, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

useQuietRestCalls();

/** A HubSpot fake holding three leads of one company (Biglytics), for one request case. */
async function requestCaseWorld(): Promise<RequestCaseWorld> {
  const fake = await startHubSpotServer({
    contacts: [hubspotContact(1), hubspotContact(12), hubspotContact(30)],
  });
  process.env.HUBSPOT_API_URL = fake.apiUrl;
  return {
    secrets: { crm_default: { provider: 'hubspot', token: HUBSPOT_TOKEN } },
    stop: async () => {
      delete process.env.HUBSPOT_API_URL;
      await fake.stop();
    },
  };
}

/** Each tool's typical call (HubSpot) and its request ceiling (`npm run bench`, "API requests per call"). */
// biome-ignore lint/suspicious/noExportsInTest: the tools' request cases, read by bench/rest-request-cases.ts (the bench, test/integration/http/rest-request-cases.test.ts)
export const requestCases: readonly RequestCase[] = [
  {
    tool: 'crm_list_leads',
    call: 'HubSpot: 3 leads since a time, limit 100, with their company',
    args: { since: isoAt(0), limit: 100, include_companies: true },
    ceiling: 1 + COMPANIES_PER_CALL,
    ceilingSource: `one search page (200 leads a page, limit 100) + one request per company (≤ ${COMPANIES_PER_CALL}; docs/crm.md)`,
    start: requestCaseWorld,
  },
  {
    tool: 'crm_get_company',
    call: 'HubSpot: one company',
    args: { company_id: '6000' },
    ceiling: 1,
    ceilingSource: '1 (docs/crm.md)',
    start: requestCaseWorld,
  },
  {
    tool: 'crm_update_lead',
    call: 'HubSpot: score, status and a note on one lead, its answers received',
    args: {
      lead_id: '512',
      score: 85,
      status: 'open',
      note: 'VP Engineering at a 250-person software company.',
    },
    ceiling: 2,
    ceilingSource: '1-2 writes (the properties, the note); reads only after a lost answer (docs/crm.md)',
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

describe('crm tools on HubSpot', () => {
  let hubspot: LocalHubSpot;
  let running: LocalHubSpot | undefined;
  let secrets: RestSecrets;

  async function start(options: Parameters<typeof startHubSpotServer>[0] = {}) {
    await running?.stop();
    running = undefined;
    hubspot = await startHubSpotServer(options);
    running = hubspot;
    process.env.HUBSPOT_API_URL = hubspot.apiUrl;
    secrets = restSecrets({ crm_default: { provider: 'hubspot', token: HUBSPOT_TOKEN } });
  }

  beforeEach(() => start({ contacts: [hubspotContact(1), hubspotContact(12), hubspotContact(30)] }));
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    delete process.env.HUBSPOT_API_URL;
  });

  it('lists the leads created since a time, oldest first, with their companies', async () => {
    const value = ok(
      await callRestTool(crmListLeadsTool, { since: isoAt(10), include_companies: true }, secrets),
    );

    expect(value.provider).toBe('hubspot');
    expect(value.leads).toEqual([
      {
        id: '512',
        email: 'lead12@biglytics.net',
        first_name: 'Bryan',
        last_name: 'Cooper',
        job_title: 'VP Engineering',
        company_id: '6000',
        company_name: 'Biglytics',
        status: 'new',
        score: null,
        created_at: isoAt(12),
        updated_at: isoAt(12),
      },
      expect.objectContaining({ id: '530', first_name: 'Lead30' }),
    ]);
    expect(value.companies).toEqual([
      expect.objectContaining({
        id: '6000',
        name: 'Biglytics',
        domain: 'biglytics.net',
        employees: 250,
        github_org: 'biglytics',
      }),
    ]);
    expect(value).toMatchObject({
      complete: true,
      next_cursor: null,
      resume_since: isoAt(30),
      // Read to the end: a later read starts 1 ms past the newest lead.
      next_since: new Date(Date.parse(isoAt(30)) + 1).toISOString(),
    });
    const search = hubspot.requests.find((r) => r.path.endsWith('/search'));
    expect(search?.headers.authorization).toBe(`Bearer ${HUBSPOT_TOKEN}`);
    expect(search?.json).toMatchObject({
      filterGroups: [
        { filters: [{ propertyName: 'createdate', operator: 'GTE', value: String(Date.parse(isoAt(10))) }] },
      ],
      sorts: [{ propertyName: 'createdate', direction: 'ASCENDING' }],
    });
  });

  it('reads pages within its page budget and continues from next_cursor', async () => {
    await start({ contacts: Array.from({ length: 700 }, (_, n) => hubspotContact(n)) });

    const result = await callRestTool(crmListLeadsTool, { since: isoAt(0), limit: 600 }, secrets);
    const first = ok(result);
    // 600 leads outgrow the harness's inline bound (64 KiB here): the value is cut, and says so.
    expect(result.ok && result.truncated).toBe(true);
    expect(first).toMatchObject({
      pages: 3,
      complete: false,
      stopped_by: 'max_pages',
      next_cursor: 'hubspot:600',
    });
    const second = ok(
      await callRestTool(
        crmListLeadsTool,
        { since: isoAt(0), limit: 600, cursor: first.next_cursor },
        secrets,
      ),
    );
    expect((second.leads as { id: string }[]).map((l) => l.id)[0]).toBe(String(500 + 600));
    expect(second).toMatchObject({ complete: true, next_cursor: null, pages: 1 });
    expect(hubspot.requests.filter((r) => r.path.endsWith('/search'))).toHaveLength(4);
  });

  it('stops at the 10,000 results of one search as window, with resume_since to read on', async () => {
    await start({ contacts: Array.from({ length: 10_100 }, (_, n) => hubspotContact(n)) });

    const result = await callRestTool(
      crmListLeadsTool,
      { since: isoAt(0), limit: 200, cursor: 'hubspot:9900' },
      secrets,
    );
    const value = ok(result);

    // HubSpot answers 400 past 10,000 ("CRM search" → "Limitations"): the last page asks for 100.
    expect((value.leads as unknown[]).length).toBe(100);
    expect(value).toMatchObject({
      complete: false,
      stopped_by: 'window',
      next_cursor: null,
      resume_since: isoAt(9999),
    });
    const searches = hubspot.requests.filter((r) => r.path.endsWith('/search'));
    expect(searches.map((r) => (r.json as { after?: string; limit?: number }).limit)).toEqual([100]);
    expect(result).toMatchObject({ summary: expect.stringContaining('since = resume_since') });
  });

  it('a cursor at 10,000 results is invalid_args before any request', async () => {
    const result = await callRestTool(
      crmListLeadsTool,
      { since: isoAt(0), cursor: 'hubspot:10000' },
      secrets,
    );
    expect(failed(result)).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('at most 10000 records per query'),
    });
    expect(hubspot.requests.filter((r) => r.path.endsWith('/search'))).toHaveLength(0);
  });

  it('waits out a 429 and succeeds', async () => {
    hubspot.throttle(1, /\/search$/);

    const value = ok(await callRestTool(crmListLeadsTool, { since: isoAt(0) }, secrets));

    expect((value.leads as unknown[]).length).toBe(3);
    expect(hubspot.requests.filter((r) => r.path.endsWith('/search'))).toHaveLength(2);
  });

  it('reads the secret again after a 401 and repeats the request once with the rotated token', async () => {
    ok(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets));
    const rotated = 'pat-na1-99999999-2222-4333-8444-555555555555';
    hubspot.rotate(rotated);
    secrets.set('crm_default', { provider: 'hubspot', token: rotated });

    const value = ok(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets));

    expect(value.company).toMatchObject({ id: '6000', name: 'Biglytics' });
    expect(hubspot.requests.slice(-2).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${HUBSPOT_TOKEN}`,
      `Bearer ${rotated}`,
    ]);
  });

  it('maps each error kind to the platform codes', async () => {
    expect(failed(await callRestTool(crmGetCompanyTool, { company_id: '999' }, secrets))).toMatchObject({
      code: 'not_found',
      service: 'hubspot',
    });
    // A search HubSpot refuses (its VALIDATION_ERROR answer); a cursor past its 10,000 results is refused before sending (below).
    hubspot.failNext(
      {
        status: 400,
        body: {
          status: 'error',
          message: 'There was a problem with the request.',
          correlationId: '1f1b0a2c-1d7e-4a8b-9c6d-3e2f1a0b9c8d',
          category: 'VALIDATION_ERROR',
        },
      },
      1,
      { path: /\/search$/ },
    );
    expect(failed(await callRestTool(crmListLeadsTool, { since: isoAt(0) }, secrets))).toMatchObject({
      code: 'invalid_args',
      details: expect.objectContaining({ httpStatusCode: 400 }),
    });
    hubspot.failNext({ status: 502, body: { status: 'error', message: 'Bad gateway' } }, 3);
    expect(failed(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets))).toMatchObject({
      code: 'upstream_error',
      retryable: true,
    });
    // A token HubSpot no longer accepts, and the re-read secret holds the same one: the 401 stands.
    hubspot.rotate('pat-na1-00000000-0000-4000-8000-000000000000');
    const before = hubspot.requests.length;
    expect(failed(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets))).toMatchObject({
      code: 'auth_failed',
    });
    expect(hubspot.requests.length - before).toBe(1);
    expect(
      failed(await callRestTool(crmListLeadsTool, { since: isoAt(0), cursor: 'attio:0' }, secrets)),
    ).toMatchObject({ code: 'invalid_args' });
  });

  it('names the missing scope of a 403', async () => {
    await start({ scopes: ['crm.objects.contacts.read'] });

    const error = failed(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets));

    expect(error).toMatchObject({
      code: 'access_denied',
      details: { missingScope: 'the scope crm.objects.companies.read' },
    });
    expect(error.message).toContain('crm.objects.companies.read');
  });

  it.each([
    [
      'an unknown provider',
      { provider: 'pipedrive', token: 'abcdefgh12' },
      /provider must be one of hubspot, attio/,
    ],
    ['a missing token', { provider: 'hubspot' }, /token/],
    ['an unknown field', { provider: 'hubspot', token: HUBSPOT_TOKEN, region: 'eu' }, /region/],
    ['text that is not JSON', 'pat-na1-token', /not a JSON object/],
  ])('refuses %s in crm_default before any request', async (_what, secret, message) => {
    secrets.set('crm_default', secret);

    const error = failed(await callRestTool(crmGetCompanyTool, { company_id: '6000' }, secrets));

    expect(error.code).toBe('secret_invalid');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('pat-na1-token');
    expect(hubspot.requests).toHaveLength(0);
  });

  it('refuses invalid args before any request', async () => {
    for (const args of [{ since: 'yesterday' }, { since: isoAt(0), limit: 5000 }]) {
      expect(failed(await callRestTool(crmListLeadsTool, args, secrets)).code).toBe('invalid_args');
    }
    expect(failed(await callRestTool(crmUpdateLeadTool, { lead_id: '512' }, secrets)).code).toBe(
      'invalid_args',
    );
    expect(
      failed(await callRestTool(crmUpdateLeadTool, { lead_id: '512', status: 'hot' }, secrets)).code,
    ).toBe('invalid_args');
    expect(hubspot.requests).toHaveLength(0);
  });

  const update = {
    lead_id: '512',
    score: 82,
    status: 'open',
    note: 'Fits: VP Engineering at a 250-person SaaS.',
  };

  it('writes score, status and a note carrying the call marker', async () => {
    const value = ok(
      await callRestTool(crmUpdateLeadTool, update, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value).toMatchObject({ lead_id: '512', score: 82, status: 'open', recovered: false });
    expect(hubspot.contactUpdates).toEqual([
      {
        id: '512',
        properties: { etp_lead_score: '82', hs_lead_status: 'OPEN', etp_update_key: value.marker },
      },
    ]);
    expect(hubspot.notes).toHaveLength(1);
    expect(hubspot.notes[0]?.properties.hs_note_body).toBe(`${update.note}\n\n${value.marker}`);
    expect(hubspot.notes[0]?.associatedContacts).toEqual(['512']);
    expect(value.note_id).toBe(hubspot.notes[0]?.id);
  });

  it.each([
    ['the property update', { method: 'PATCH' }],
    ['the note', { method: 'POST', path: /\/notes$/ }],
  ])('answers late to %s: the write is found by its marker, never made twice', async (_what, scope) => {
    hubspot.failNext(ANSWER_AFTER_TIMEOUT, 1, scope);

    const value = ok(
      await callRestTool(crmUpdateLeadTool, update, secrets, {
        budgetMs: LATE_ANSWER_BUDGET_MS,
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(hubspot.contactUpdates).toHaveLength(1);
    expect(hubspot.notes).toHaveLength(1);
  });

  it('a note written before the update is refused is said (effect partial): a retry does not write it again', async () => {
    // Prepare: the note is written, then the PATCH is answered 429 (nothing updated) until the budget ends
    hubspot.throttle(100, /\/crm\/v3\/objects\/contacts\/512$/);
    const store = new InMemoryIdempotencyStore();

    // Act
    const error = failed(
      await callRestTool(crmUpdateLeadTool, update, secrets, { budgetMs: 4_000, idempotency: store.layer }),
    );
    hubspot.clearFailures();
    await callRestTool(crmUpdateLeadTool, update, secrets, { idempotency: store.layer });

    // Assess
    expect(error.details).toMatchObject({ effect: 'partial' });
    expect(hubspot.notes).toHaveLength(1);
  }, 30_000);

  it('writes once: a lost note on a contact with more notes than its GET embeds leaves the effect unknown', async () => {
    // Prepare: 150 earlier notes; the contact's GET embeds the first 100 associations and paging.next.
    for (let n = 0; n < 150; n++) {
      const at = isoAt(n);
      hubspot.notes.push({
        id: String(80_000 + n),
        properties: { hs_note_body: `Earlier note ${n}` },
        createdAt: at,
        updatedAt: at,
        associatedContacts: ['512'],
      });
    }
    hubspot.failNext({ reset: true }, 1, { method: 'POST', path: /\/notes$/ });
    const store = new InMemoryIdempotencyStore();

    // Act
    const error = failed(
      await callRestTool(crmUpdateLeadTool, { lead_id: '512', note: 'Call back in May.' }, secrets, {
        idempotency: store.layer,
      }),
    );
    const replay = failed(
      await callRestTool(crmUpdateLeadTool, { lead_id: '512', note: 'Call back in May.' }, secrets, {
        idempotency: store.layer,
      }),
    );

    // Assess: the note past the embedded 100 is not said to be unwritten, and is not written again.
    expect(error).toMatchObject({ code: 'network_error', details: { effect: 'unknown' } });
    expect(error.message).toContain('more than 100 notes');
    expect(replay.details).toMatchObject({ effect: 'unknown' });
    expect(hubspot.notes).toHaveLength(151);
  });

  it('resets the connection after accepting the note: found on retry, one note', async () => {
    hubspot.failNext({ reset: true }, 1, { method: 'POST', path: /\/notes$/ });
    const store = new InMemoryIdempotencyStore();

    const first = ok(await callRestTool(crmUpdateLeadTool, update, secrets, { idempotency: store.layer }));
    const replay = ok(await callRestTool(crmUpdateLeadTool, update, secrets, { idempotency: store.layer }));

    expect(first.recovered).toBe(true);
    expect(replay).toEqual(first);
    expect(hubspot.notes).toHaveLength(1);
    expect(hubspot.contactUpdates).toHaveLength(1);
  });
});

describe('crm tools on Attio', () => {
  let attio: LocalAttio;
  let running: LocalAttio | undefined;
  let secrets: RestSecrets;

  async function start(options: Parameters<typeof startAttioServer>[0] = {}) {
    await running?.stop();
    running = undefined;
    attio = await startAttioServer(options);
    running = attio;
    process.env.ATTIO_API_URL = attio.apiUrl;
    secrets = restSecrets({ crm_default: { provider: 'attio', token: ATTIO_TOKEN } });
  }

  beforeEach(() => start({ people: [attioPerson(1), attioPerson(12), attioPerson(30)] }));
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    delete process.env.ATTIO_API_URL;
  });

  it('gives the same family shape as HubSpot', async () => {
    const value = ok(
      await callRestTool(crmListLeadsTool, { since: isoAt(10), include_companies: true }, secrets),
    );

    expect(value.leads).toEqual([
      {
        id: attioPerson(12).record_id,
        email: 'lead12@smith.com',
        first_name: 'John',
        last_name: 'Smith',
        job_title: 'VP Engineering',
        company_id: attioCompany().record_id,
        company_name: null,
        status: null,
        score: null,
        created_at: isoAt(12),
        updated_at: null,
      },
      expect.objectContaining({ first_name: 'Lead30' }),
    ]);
    expect(value.companies).toEqual([
      {
        id: attioCompany().record_id,
        name: 'Smith Analytics',
        domain: 'smith.com',
        industry: 'SaaS',
        employees: null,
        employee_range: '51-250',
        annual_revenue_usd: null,
        revenue_range: '$10M-$50M',
        country: 'GB',
        city: 'London',
        description: 'Analytics for data teams.',
        linkedin_url: 'https://www.linkedin.com/company/smith-analytics',
        github_org: 'smith-analytics',
        created_at: '2022-11-21T13:22:49.061Z',
      },
    ]);
    expect(attio.requests[0]?.json).toMatchObject({
      filter: { created_at: { $gte: isoAt(10) } },
      sorts: [{ attribute: 'created_at', direction: 'asc' }],
      limit: 100,
      offset: 0,
    });
  });

  it('reads offset pages within its page budget and continues from next_cursor', async () => {
    await start({ people: Array.from({ length: 700 }, (_, n) => attioPerson(n)) });

    const first = ok(await callRestTool(crmListLeadsTool, { since: isoAt(0), limit: 600 }, secrets));
    const second = ok(
      await callRestTool(
        crmListLeadsTool,
        { since: isoAt(0), limit: 600, cursor: first.next_cursor },
        secrets,
      ),
    );

    expect(first).toMatchObject({ pages: 3, complete: false, next_cursor: 'attio:600' });
    expect((second.leads as unknown[]).length).toBe(100);
    expect(second.complete).toBe(true);
  });

  it('waits out a 429 whose Retry-After is an HTTP date', async () => {
    attio.throttle(1);

    const value = ok(
      await callRestTool(crmGetCompanyTool, { company_id: attioCompany().record_id }, secrets),
    );

    expect(value.company).toMatchObject({ name: 'Smith Analytics' });
    expect(attio.requests).toHaveLength(2);
  });

  it('renews the token after a 401', async () => {
    ok(await callRestTool(crmGetCompanyTool, { company_id: attioCompany().record_id }, secrets));
    const rotated = 'f'.repeat(64);
    attio.rotate(rotated);
    secrets.set('crm_default', { provider: 'attio', token: rotated });

    ok(await callRestTool(crmGetCompanyTool, { company_id: attioCompany().record_id }, secrets));

    expect(attio.requests.slice(-2).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${ATTIO_TOKEN}`,
      `Bearer ${rotated}`,
    ]);
  });

  it('maps errors: not found, missing scope, a refused value, updated-time queries', async () => {
    expect(
      failed(
        await callRestTool(
          crmGetCompanyTool,
          { company_id: 'c0000000-0000-4000-8000-00000000dead' },
          secrets,
        ),
      ),
    ).toMatchObject({ code: 'not_found', service: 'attio' });
    expect(
      failed(await callRestTool(crmListLeadsTool, { since: isoAt(0), field: 'updated' }, secrets)),
    ).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('Attio keeps no modification time'),
    });
    await start({ scopes: ['record_permission:read'] });
    expect(
      failed(await callRestTool(crmGetCompanyTool, { company_id: attioCompany().record_id }, secrets)),
    ).toMatchObject({
      code: 'access_denied',
      details: { missingScope: 'the scope object_configuration:read' },
    });
  });

  it('writes once: a late answer to the update is found by the marker', async () => {
    attio.failNext(ANSWER_AFTER_TIMEOUT, 1, { method: 'PATCH' });
    const lead = attioPerson(12).record_id;

    const value = ok(
      await callRestTool(
        crmUpdateLeadTool,
        { lead_id: lead, score: 40, status: 'unqualified', note: 'Too small.' },
        secrets,
        { budgetMs: LATE_ANSWER_BUDGET_MS, idempotency: new InMemoryIdempotencyStore().layer },
      ),
    );

    expect(value).toMatchObject({ provider: 'attio', recovered: true });
    expect(attio.personUpdates).toEqual([
      { id: lead, values: { lead_score: 40, lead_status: 'unqualified', etp_update_key: value.marker } },
    ]);
    expect(attio.notes.map((n) => n.content_plaintext)).toEqual([`Too small.\n\n${value.marker}`]);
  });

  /** `count` notes already on the person, oldest first, as earlier runs left them. */
  function earlierNotes(lead: string, count: number) {
    for (let n = 0; n < count; n++) {
      attio.notes.push({
        note_id: `e0000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        parent_object: 'people',
        parent_record_id: lead,
        title: 'Lead qualification',
        content_plaintext: `Earlier note ${n}`,
        created_at: isoAt(n),
      });
    }
  }

  it('writes once: a note whose answer was lost is found past the first page of notes', async () => {
    const lead = attioPerson(12).record_id;
    earlierNotes(lead, 70);
    attio.failNext({ reset: true }, 1, { method: 'POST', path: /\/v2\/notes$/ });

    const value = ok(
      await callRestTool(crmUpdateLeadTool, { lead_id: lead, note: 'Call back in May.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(value.recovered).toBe(true);
    expect(attio.notes).toHaveLength(71);
    expect(value.note_id).toBe(attio.notes[70]?.note_id);
  });

  it('writes once: notes it could not all read leave the effect unknown, nothing written again', async () => {
    const lead = attioPerson(12).record_id;
    earlierNotes(lead, 520);
    attio.failNext({ reset: true }, 1, { method: 'POST', path: /\/v2\/notes$/ });

    const error = failed(
      await callRestTool(crmUpdateLeadTool, { lead_id: lead, note: 'Call back in May.' }, secrets, {
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    expect(error).toMatchObject({ code: 'network_error', details: { effect: 'unknown' } });
    expect(error.message).toContain('max_pages');
    expect(attio.notes).toHaveLength(521);
  });

  it('writes once: a late answer to the update is found on a person with more notes than are read', async () => {
    // Prepare: more notes than the lookup reads; the person's own marker says the update was applied.
    const lead = attioPerson(12).record_id;
    earlierNotes(lead, 520);
    attio.failNext(ANSWER_AFTER_TIMEOUT, 1, { method: 'PATCH' });

    // Act
    const value = ok(
      await callRestTool(crmUpdateLeadTool, { lead_id: lead, score: 40 }, secrets, {
        budgetMs: LATE_ANSWER_BUDGET_MS,
        idempotency: new InMemoryIdempotencyStore().layer,
      }),
    );

    // Assess
    expect(value).toMatchObject({ recovered: true, score: 40 });
    expect(attio.personUpdates).toHaveLength(1);
  });

  it('writes once: a reset after the note was accepted', async () => {
    attio.failNext({ reset: true }, 1, { method: 'POST', path: /\/v2\/notes$/ });

    const value = ok(
      await callRestTool(
        crmUpdateLeadTool,
        { lead_id: attioPerson(12).record_id, note: 'Call back in May.' },
        secrets,
        {
          idempotency: new InMemoryIdempotencyStore().layer,
        },
      ),
    );

    expect(value.recovered).toBe(true);
    expect(attio.notes).toHaveLength(1);
    expect(value.note_id).toBe(attio.notes[0]?.note_id);
  });
});
