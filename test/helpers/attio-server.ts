/**
 * A local Attio: enough of the REST API v2 for the `crm_*` tools, with the
 * shapes of docs.attio.com — "List records" (POST
 * /v2/objects/{object}/records/query: `filter` with `$gte`/`$gt`/`$eq`, `sorts`,
 * `limit` ≤ 500, `offset`; answers `{ data }` with no total), "Get a record",
 * "Update a record" (PATCH `data.values`, appending multiselect values, unknown
 * slugs refused), "Create a note" / "List notes" (`parent_object`,
 * `parent_record_id`), "Handling rate limits" (HTTP 429 with `Retry-After` as an
 * HTTP date), errors as `{ status_code, type, code, message }`. Record values are
 * arrays of value objects with `attribute_type`, as Attio returns them. Auth: an
 * access token as `Authorization: Bearer`; scopes per token.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './loopback-server';
import { type FakeErrorAnswer, type FakeRequest, isoAt, type RestFake, startRestFake } from './rest-fake';

/** The access token accepted unless told otherwise (64 hex characters, as Attio issues). */
export const ATTIO_TOKEN = 'a'.repeat(8) + '0123456789abcdef'.repeat(3) + 'b'.repeat(8);

/** Every scope the tools use. */
export const ATTIO_SCOPES = [
  'record_permission:read',
  'record_permission:read-write',
  'object_configuration:read',
  'note:read-write',
] as const;

const WORKSPACE_ID = '14beef7a-99f7-4534-a87e-70b564330a4c';
const PEOPLE_OBJECT_ID = '97052eb9-e65e-443f-a297-f2d9a4a7f795';
const COMPANIES_OBJECT_ID = '0b4c8f5d-6a84-4a0c-9b0e-2f0b3f1e7d11';

/** Attributes people records have (standard ones plus the docs' custom ones). */
const PEOPLE_ATTRIBUTES = new Set([
  'name',
  'email_addresses',
  'job_title',
  'company',
  'lead_score',
  'lead_status',
  'etp_update_key',
]);

/** Options of the `lead_status` select the docs ask an admin to create. */
const LEAD_STATUS_OPTIONS = [
  'new',
  'open',
  'in_progress',
  'open_deal',
  'unqualified',
  'attempted_to_contact',
  'connected',
  'bad_timing',
];

/** A stored record: its id, when created, and its values by attribute slug. */
export interface AttioRecord {
  readonly record_id: string;
  readonly created_at: string;
  values: Record<string, unknown[]>;
}

/** A stored note. */
export interface AttioNote {
  readonly note_id: string;
  readonly parent_object: string;
  readonly parent_record_id: string;
  readonly title: string;
  readonly content_plaintext: string;
  readonly created_at: string;
}

export interface AttioServerOptions {
  readonly token?: string;
  readonly scopes?: readonly string[];
  readonly people?: readonly AttioRecord[];
  readonly companies?: readonly AttioRecord[];
}

export interface LocalAttio extends RestFake {
  readonly apiUrl: string;
  readonly people: Map<string, AttioRecord>;
  readonly companies: Map<string, AttioRecord>;
  readonly notes: AttioNote[];
  /** Every PATCH of a person applied, in order. */
  readonly personUpdates: { id: string; values: Record<string, unknown> }[];
  rotate(token: string): void;
  /** The next `times` requests answered Attio's 429 with `Retry-After` one second ahead. */
  throttle(times?: number, path?: RegExp): void;
}

const actor = { type: 'api-token', id: 'f2c6b4a0-3d7e-4b9a-8c1d-5e6f7a8b9c0d' };

function attioValue(attribute_type: string, value: Record<string, unknown>): Record<string, unknown> {
  return { active_from: isoAt(0), active_until: null, created_by_actor: actor, ...value, attribute_type };
}

/** A person of the docs' example shape; `n` gives a distinct, ordered one. */
export function attioPerson(n: number, companyId = 'c0000000-0000-4000-8000-000000000001'): AttioRecord {
  const first = n === 12 ? 'John' : `Lead${n}`;
  const last = n === 12 ? 'Smith' : `Person${n}`;
  return {
    record_id: `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`,
    created_at: `${isoAt(n).slice(0, -1)}000000Z`,
    values: {
      name: [
        attioValue('personal-name', { first_name: first, last_name: last, full_name: `${first} ${last}` }),
      ],
      email_addresses: [
        attioValue('email-address', {
          original_email_address: `lead${n}@smith.com`,
          email_address: `lead${n}@smith.com`,
          email_domain: 'smith.com',
          email_root_domain: 'smith.com',
          email_local_specifier: `lead${n}`,
        }),
      ],
      job_title: [attioValue('text', { value: n % 3 === 0 ? 'VP Engineering' : 'Developer' })],
      company: [attioValue('record-reference', { target_object: 'companies', target_record_id: companyId })],
    },
  };
}

/** A company of the docs' example shape, naming its GitHub organization. */
export function attioCompany(id = 'c0000000-0000-4000-8000-000000000001'): AttioRecord {
  return {
    record_id: id,
    created_at: '2022-11-21T13:22:49.061281000Z',
    values: {
      name: [attioValue('text', { value: 'Smith Analytics' })],
      domains: [attioValue('domain', { domain: 'smith.com', root_domain: 'smith.com' })],
      description: [attioValue('text', { value: 'Analytics for data teams.' })],
      categories: [attioValue('select', { option: { title: 'SaaS', is_archived: false } })],
      employee_range: [attioValue('select', { option: { title: '51-250', is_archived: false } })],
      estimated_arr_usd: [attioValue('select', { option: { title: '$10M-$50M', is_archived: false } })],
      primary_location: [attioValue('location', { locality: 'London', region: null, country_code: 'GB' })],
      linkedin: [attioValue('text', { value: 'https://www.linkedin.com/company/smith-analytics' })],
      github_org: [attioValue('text', { value: 'smith-analytics' })],
    },
  };
}

export async function startAttioServer(options: AttioServerOptions = {}): Promise<LocalAttio> {
  const scopes = new Set(options.scopes ?? ATTIO_SCOPES);
  const people = new Map((options.people ?? [attioPerson(12)]).map((r) => [r.record_id, r]));
  const companies = new Map((options.companies ?? [attioCompany()]).map((r) => [r.record_id, r]));
  const notes: AttioNote[] = [];
  const personUpdates: LocalAttio['personUpdates'] = [];
  let token = options.token ?? ATTIO_TOKEN;

  const need = (scope: string): FakeErrorAnswer | undefined =>
    scopes.has(scope)
      ? undefined
      : error(403, 'auth_error', 'missing_scopes', `Token is missing the ${scope} scope.`);

  const record = (object: string, item: AttioRecord) => ({
    id: {
      workspace_id: WORKSPACE_ID,
      object_id: object === 'people' ? PEOPLE_OBJECT_ID : COMPANIES_OBJECT_ID,
      record_id: item.record_id,
    },
    created_at: item.created_at,
    web_url: `https://app.attio.com/salarya/${object === 'people' ? 'person' : 'company'}/${item.record_id}`,
    values: item.values,
  });

  const store = (object: string) =>
    object === 'people' ? people : object === 'companies' ? companies : undefined;

  const query = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('record_permission:read') ?? need('object_configuration:read');
    if (denied) return send(response, denied);
    const object = request.params[0] as string;
    const items = store(object);
    if (!items)
      return send(
        response,
        error(404, 'invalid_request_error', 'not_found', 'The referenced object was not found.'),
      );
    const body = (request.json ?? {}) as {
      filter?: Record<string, Record<string, string>>;
      sorts?: { attribute: string; direction: 'asc' | 'desc' }[];
      limit?: number;
      offset?: number;
    };
    const limit = body.limit ?? 500;
    const offset = body.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500 || !Number.isInteger(offset) || offset < 0) {
      return send(
        response,
        error(
          400,
          'invalid_request_error',
          'validation_type',
          'Body payload validation error: limit must be 1-500 and offset at least 0.',
        ),
      );
    }
    let matching = [...items.values()];
    for (const [attribute, condition] of Object.entries(body.filter ?? {})) {
      if (attribute !== 'created_at') {
        return send(response, error(400, 'invalid_request_error', 'filter_error', 'Error in filter.'));
      }
      matching = matching.filter((item) => {
        const at = Date.parse(item.created_at);
        return Object.entries(condition).every(([op, value]) =>
          op === '$gte'
            ? at >= Date.parse(value)
            : op === '$gt'
              ? at > Date.parse(value)
              : op === '$lt'
                ? at < Date.parse(value)
                : false,
        );
      });
    }
    const sort = body.sorts?.[0];
    if (sort?.attribute === 'created_at') {
      matching.sort(
        (a, b) =>
          (sort.direction === 'desc' ? -1 : 1) * (Date.parse(a.created_at) - Date.parse(b.created_at)) ||
          a.record_id.localeCompare(b.record_id),
      );
    }
    sendJson(response, 200, {
      data: matching.slice(offset, offset + limit).map((item) => record(object, item)),
    });
  };

  const getRecord = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('record_permission:read') ?? need('object_configuration:read');
    if (denied) return send(response, denied);
    const [object, id] = request.params as [string, string];
    const item = store(object)?.get(id);
    if (!item) return send(response, notFound(id));
    sendJson(response, 200, { data: record(object, item) });
  };

  const updatePerson = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('record_permission:read-write') ?? need('object_configuration:read');
    if (denied) return send(response, denied);
    const id = request.params[0] as string;
    const person = people.get(id);
    if (!person) return send(response, notFound(id));
    const values = ((request.json ?? {}) as { data?: { values?: Record<string, unknown> } }).data?.values;
    if (!values)
      return send(
        response,
        error(
          400,
          'invalid_request_error',
          'validation_type',
          'Body payload validation error: data.values is required.',
        ),
      );
    for (const [slug, value] of Object.entries(values)) {
      if (!PEOPLE_ATTRIBUTES.has(slug)) {
        return send(
          response,
          error(
            400,
            'invalid_request_error',
            'value_not_found',
            `Cannot find attribute with slug/ID "${slug}".`,
          ),
        );
      }
      if (slug === 'lead_status' && !LEAD_STATUS_OPTIONS.includes(String(value))) {
        return send(
          response,
          error(
            400,
            'invalid_request_error',
            'value_not_found',
            `Cannot find select option with title "${String(value)}".`,
          ),
        );
      }
    }
    for (const [slug, value] of Object.entries(values)) {
      person.values[slug] = [
        slug === 'lead_status'
          ? attioValue('select', { option: { title: String(value), is_archived: false } })
          : attioValue(slug === 'lead_score' ? 'number' : 'text', { value }),
      ];
    }
    personUpdates.push({ id, values });
    sendJson(response, 200, { data: record('people', person) });
  };

  const createNote = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('note:read-write');
    if (denied) return send(response, denied);
    const data = ((request.json ?? {}) as { data?: Record<string, unknown> }).data ?? {};
    if (data.format !== 'plaintext' && data.format !== 'markdown') {
      return send(
        response,
        error(
          400,
          'invalid_request_error',
          'validation_type',
          'Body payload validation error: format must be plaintext or markdown.',
        ),
      );
    }
    if (data.parent_object !== 'people' || !people.has(String(data.parent_record_id))) {
      return send(response, notFound(String(data.parent_record_id)));
    }
    const note: AttioNote = {
      note_id: randomUUID(),
      parent_object: 'people',
      parent_record_id: String(data.parent_record_id),
      title: String(data.title ?? ''),
      content_plaintext: String(data.content ?? ''),
      created_at: new Date().toISOString(),
    };
    notes.push(note);
    sendJson(response, 200, { data: noteView(note) });
  };

  const listNotes = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('note:read-write');
    if (denied) return send(response, denied);
    // "List notes": `limit` default 10, at most 50; `offset`.
    const limit = Number(request.query.get('limit') ?? '10');
    const offset = Number(request.query.get('offset') ?? '0');
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) {
      return send(
        response,
        error(400, 'invalid_request_error', 'validation_type', 'limit must be between 1 and 50.'),
      );
    }
    const matching = notes.filter(
      (n) =>
        n.parent_object === request.query.get('parent_object') &&
        n.parent_record_id === request.query.get('parent_record_id'),
    );
    sendJson(response, 200, { data: matching.slice(offset, offset + limit).map(noteView) });
  };

  const fake = await startRestFake({
    authorize: (request) =>
      /^Bearer\s+(\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1] === token
        ? undefined
        : error(
            401,
            'auth_error',
            'unauthorized',
            'Authentication failed: the access token is invalid or has been revoked.',
          ),
    notFound: () => error(404, 'invalid_request_error', 'not_found', 'Route not found.'),
    routes: [
      { method: 'POST', path: /^\/v2\/objects\/([^/]+)\/records\/query$/, handle: query },
      { method: 'GET', path: /^\/v2\/objects\/([^/]+)\/records\/([^/]+)$/, handle: getRecord },
      { method: 'PATCH', path: /^\/v2\/objects\/people\/records\/([^/]+)$/, handle: updatePerson },
      { method: 'POST', path: /^\/v2\/notes$/, handle: createNote },
      { method: 'GET', path: /^\/v2\/notes$/, handle: listNotes },
    ],
  });

  return {
    ...fake,
    apiUrl: fake.url,
    people,
    companies,
    notes,
    personUpdates,
    rotate(next) {
      token = next;
    },
    throttle(times = 1, path) {
      const answer = error(
        429,
        'rate_limit_error',
        'rate_limit_exceeded',
        'Rate limit exceeded, please try again later',
      );
      fake.failNext(
        { ...answer, headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } },
        times,
        path ? { path } : {},
      );
    },
  };
}

function noteView(note: AttioNote) {
  return {
    id: { workspace_id: WORKSPACE_ID, note_id: note.note_id },
    parent_object: note.parent_object,
    parent_record_id: note.parent_record_id,
    title: note.title,
    content_plaintext: note.content_plaintext,
    content_markdown: note.content_plaintext,
    tags: [],
    created_by_actor: actor,
    created_at: note.created_at,
  };
}

function send(response: ServerResponse, answer: FakeErrorAnswer): void {
  sendJson(response, answer.status, answer.body, { ...answer.headers });
}

function error(status: number, type: string, code: string, message: string): FakeErrorAnswer {
  return { status, body: { status_code: status, type, code, message } };
}

function notFound(id: string): FakeErrorAnswer {
  return error(404, 'invalid_request_error', 'not_found', `Record with ID "${id}" not found.`);
}
