/**
 * A local HubSpot: enough of the CRM v3 API for the `crm_*` tools, with the
 * shapes of developers.hubspot.com — "CRM search" (POST
 * /crm/v3/objects/{object}/search: `filterGroups`, `sorts`, `properties`,
 * `limit` ≤ 200, `after` cursor in `paging.next.after`, at most 10,000 results,
 * five requests per second per account), "Contacts" and "Companies" (GET by id
 * with `properties`, PATCH `properties`), "Notes" (POST with associations to a
 * contact, type 202), "Usage details" (the `X-HubSpot-RateLimit-*` headers of
 * every non-search answer, 429 with `errorType: RATE_LIMIT`), "Error handling"
 * (`status`, `message`, `correlationId`, `category`: INVALID_AUTHENTICATION,
 * MISSING_SCOPES with `requiredGranularScopes`, OBJECT_NOT_FOUND,
 * VALIDATION_ERROR). Fixtures follow the docs' examples (Bryan Cooper of
 * Biglytics). Auth: a private app's access token as `Authorization: Bearer`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './loopback-server';
import { type FakeErrorAnswer, type FakeRequest, isoAt, type RestFake, startRestFake } from './rest-fake';

/** The private app token accepted unless told otherwise (HubSpot's `pat-<region>-<uuid>` shape). */
export const HUBSPOT_TOKEN = 'pat-na1-11111111-2222-4333-8444-555555555555';

/** Every scope the tools use. */
export const HUBSPOT_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
] as const;

/** A stored CRM object. */
export interface HubSpotObject {
  readonly id: string;
  properties: Record<string, string | null>;
  readonly createdAt: string;
  updatedAt: string;
  /** Notes only: the contacts it is associated with. */
  readonly associatedContacts?: readonly string[];
}

/** Properties a portal has for contacts (defaults plus the ones the docs ask an admin to create). */
const CONTACT_PROPERTIES = new Set([
  'email',
  'firstname',
  'lastname',
  'jobtitle',
  'company',
  'associatedcompanyid',
  'hs_lead_status',
  'createdate',
  'lastmodifieddate',
  'hs_object_id',
  'etp_lead_score',
  'etp_update_key',
]);

/** hs_lead_status's default options ("Default contact properties"). */
const LEAD_STATUS_OPTIONS = new Set([
  'NEW',
  'OPEN',
  'IN_PROGRESS',
  'OPEN_DEAL',
  'UNQUALIFIED',
  'ATTEMPTED_TO_CONTACT',
  'CONNECTED',
  'BAD_TIMING',
]);

const SEARCH_DEFAULTS: Record<string, string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  notes: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
};

/** What the server starts with. */
export interface HubSpotServerOptions {
  readonly token?: string;
  /** Scopes granted to the token. @default {@link HUBSPOT_SCOPES} */
  readonly scopes?: readonly string[];
  readonly contacts?: readonly HubSpotObject[];
  readonly companies?: readonly HubSpotObject[];
  /** Search requests allowed per second ("five requests per second"); past that a 429. @default 5 */
  readonly searchPerSecond?: number;
}

/** Associations of one type an object's GET embeds before `paging.next`. */
const EMBEDDED_ASSOCIATIONS = 100;

/** A running local HubSpot. */
export interface LocalHubSpot extends RestFake {
  /** The API base URL (what `HUBSPOT_API_URL` takes). */
  readonly apiUrl: string;
  /** The token accepted now; {@link rotate} changes it. */
  token: string;
  readonly contacts: Map<string, HubSpotObject>;
  readonly companies: Map<string, HubSpotObject>;
  readonly notes: HubSpotObject[];
  /** Every PATCH of a contact received and applied, in order. */
  readonly contactUpdates: { id: string; properties: Record<string, unknown> }[];
  /** Accepts only `token` from now on (a rotated private app token). */
  rotate(token: string): void;
  /** The next `times` requests (in scope) answered HubSpot's 429. */
  throttle(times?: number, path?: RegExp): void;
}

/** A contact of the docs' example shape: `n` gives a distinct, ordered one. */
export function hubspotContact(n: number, overrides: Record<string, string | null> = {}): HubSpotObject {
  const createdAt = isoAt(n);
  return {
    id: String(500 + n),
    properties: {
      email: `lead${n}@biglytics.net`,
      firstname: n === 12 ? 'Bryan' : `Lead${n}`,
      lastname: n === 12 ? 'Cooper' : `Person${n}`,
      jobtitle: n % 3 === 0 ? 'VP Engineering' : 'Developer',
      company: 'Biglytics',
      associatedcompanyid: '6000',
      hs_lead_status: 'NEW',
      etp_lead_score: null,
      etp_update_key: null,
      createdate: createdAt,
      lastmodifieddate: createdAt,
      hs_object_id: String(500 + n),
      ...overrides,
    },
    createdAt,
    updatedAt: createdAt,
  };
}

/** The docs' example company, Biglytics (id 6000), naming its GitHub organization. */
export function hubspotCompany(id = '6000', overrides: Record<string, string | null> = {}): HubSpotObject {
  return {
    id,
    properties: {
      name: 'Biglytics',
      domain: 'biglytics.net',
      industry: 'COMPUTER_SOFTWARE',
      numberofemployees: '250',
      annualrevenue: '25000000',
      country: 'United States',
      city: 'Cambridge',
      description: 'Biglytics builds analytics for big data teams.',
      linkedin_company_page: 'https://www.linkedin.com/company/biglytics',
      github_org: 'biglytics',
      hs_object_id: id,
      createdate: isoAt(0),
      ...overrides,
    },
    createdAt: isoAt(0),
    updatedAt: isoAt(0),
  };
}

/** Starts a local HubSpot. */
export async function startHubSpotServer(options: HubSpotServerOptions = {}): Promise<LocalHubSpot> {
  const scopes = new Set(options.scopes ?? HUBSPOT_SCOPES);
  const contacts = new Map((options.contacts ?? [hubspotContact(12)]).map((c) => [c.id, c]));
  const companies = new Map((options.companies ?? [hubspotCompany()]).map((c) => [c.id, c]));
  const notes: HubSpotObject[] = [];
  const contactUpdates: LocalHubSpot['contactUpdates'] = [];
  const searchPerSecond = options.searchPerSecond ?? 5;
  const searches: number[] = [];
  let token = options.token ?? HUBSPOT_TOKEN;
  let dailyRemaining = 250_000;

  const need = (scope: string): FakeErrorAnswer | undefined =>
    scopes.has(scope)
      ? undefined
      : error(403, 'MISSING_SCOPES', "This app hasn't been granted all required scopes to make this call.", {
          errors: [
            {
              message: 'One or more of the following scopes are required.',
              context: { requiredGranularScopes: [scope] },
            },
          ],
        });

  const search = (request: FakeRequest, response: ServerResponse, object: 'contacts' | 'notes') => {
    const now = Date.now();
    while (searches.length > 0 && (searches[0] as number) < now - 1000) searches.shift();
    if (searches.length >= searchPerSecond) return send(response, rateLimited('SECONDLY'));
    searches.push(now);
    const denied = need(object === 'contacts' ? 'crm.objects.contacts.read' : 'crm.objects.contacts.read');
    if (denied) return send(response, denied);
    const body = (request.json ?? {}) as {
      filterGroups?: { filters?: { propertyName: string; operator: string; value?: string }[] }[];
      sorts?: ({ propertyName: string; direction?: string } | string)[];
      properties?: string[];
      limit?: number;
      after?: string;
    };
    const limit = body.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      return send(response, error(400, 'VALIDATION_ERROR', 'limit must be between 1 and 200'));
    }
    const after = Number(body.after ?? '0');
    if (!Number.isInteger(after) || after < 0) {
      return send(response, error(400, 'VALIDATION_ERROR', `Invalid after value "${body.after}"`));
    }
    if (after + limit > 10_000) {
      return send(response, error(400, 'VALIDATION_ERROR', 'Search results are limited to 10,000 per query'));
    }
    const pool = object === 'contacts' ? [...contacts.values()] : notes;
    const filters = body.filterGroups?.[0]?.filters ?? [];
    const matching = pool.filter((item) => filters.every((f) => matches(item, f)));
    const sort = body.sorts?.[0];
    const sortBy = typeof sort === 'string' ? sort : sort?.propertyName;
    if (sortBy) {
      const descending = typeof sort !== 'string' && sort?.direction === 'DESCENDING';
      matching.sort((a, b) => {
        const order = String(a.properties[sortBy] ?? '').localeCompare(String(b.properties[sortBy] ?? ''));
        return (descending ? -order : order) || Number(a.id) - Number(b.id);
      });
    }
    const page = matching.slice(after, after + limit);
    const wanted = body.properties ?? SEARCH_DEFAULTS[object] ?? [];
    const next = after + limit < matching.length ? String(after + limit) : undefined;
    sendJson(response, 200, {
      total: matching.length,
      results: page.map((item) => view(item, wanted)),
      ...(next ? { paging: { next: { after: next, link: `?after=${next}` } } } : {}),
    });
  };

  const readObject = (
    request: FakeRequest,
    response: ServerResponse,
    store: Map<string, HubSpotObject>,
    scope: string,
  ) => {
    const denied = need(scope);
    if (denied) return send(response, denied);
    const id = request.params[0] as string;
    const item = store.get(id);
    if (!item) return send(response, notFound(id));
    const wanted = (request.query.get('properties') ?? '').split(',').filter(Boolean);
    const associations = (request.query.get('associations') ?? '').split(',');
    sendJson(response, 200, {
      ...view(item, wanted),
      ...(store === contacts && associations.includes('notes')
        ? {
            // At most 100 associations per type, then `paging.next` (HubSpot's v3 change of
            // January 2021, "a change to how v3 CRM APIs return association data").
            associations: { notes: noteAssociations(id) },
          }
        : {}),
    });
  };

  const noteAssociations = (id: string) => {
    const all = notes
      .filter((n) => n.associatedContacts?.includes(id))
      .map((n) => ({ id: n.id, type: 'contact_to_note' }));
    const results = all.slice(0, EMBEDDED_ASSOCIATIONS);
    const after = results.at(-1)?.id;
    return all.length > EMBEDDED_ASSOCIATIONS && after !== undefined
      ? {
          results,
          paging: {
            next: { after, link: `/crm/v3/objects/0-1/${id}/associations/0-46?after=${after}` },
          },
        }
      : { results };
  };

  const readNotes = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('crm.objects.contacts.read');
    if (denied) return send(response, denied);
    const body = (request.json ?? {}) as { properties?: string[]; inputs?: { id: string }[] };
    if ((body.inputs ?? []).length > 100) {
      return send(response, error(400, 'VALIDATION_ERROR', 'At most 100 inputs per batch'));
    }
    const found = (body.inputs ?? []).flatMap((input) => notes.filter((n) => n.id === input.id));
    sendJson(response, 200, {
      status: 'COMPLETE',
      results: found.map((n) => view(n, body.properties ?? [])),
      startedAt: new Date().toISOString(),
      completedAt: new Date().toISOString(),
    });
  };

  const updateContact = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('crm.objects.contacts.write');
    if (denied) return send(response, denied);
    const id = request.params[0] as string;
    const contact = contacts.get(id);
    if (!contact) return send(response, notFound(id));
    const properties = ((request.json ?? {}) as { properties?: Record<string, unknown> }).properties ?? {};
    const invalid = Object.entries(properties).flatMap(([name, value]) => {
      if (!CONTACT_PROPERTIES.has(name)) {
        return [
          {
            isValid: false,
            message: `Property "${name}" does not exist`,
            error: 'PROPERTY_DOESNT_EXIST',
            name,
          },
        ];
      }
      if (name === 'hs_lead_status' && !LEAD_STATUS_OPTIONS.has(String(value))) {
        return [
          {
            isValid: false,
            message: `${String(value)} was not one of the allowed options: ${[...LEAD_STATUS_OPTIONS].join(', ')}`,
            error: 'INVALID_OPTION',
            name,
          },
        ];
      }
      return [];
    });
    if (invalid.length > 0) {
      return send(
        response,
        error(400, 'VALIDATION_ERROR', `Property values were not valid: ${JSON.stringify(invalid)}`),
      );
    }
    for (const [name, value] of Object.entries(properties)) {
      contact.properties[name] = value === null ? null : String(value);
    }
    contact.updatedAt = new Date().toISOString();
    contact.properties.lastmodifieddate = contact.updatedAt;
    contactUpdates.push({ id, properties });
    sendJson(response, 200, view(contact, Object.keys(properties)));
  };

  const createNote = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('crm.objects.contacts.write');
    if (denied) return send(response, denied);
    const body = (request.json ?? {}) as {
      properties?: Record<string, string>;
      associations?: { to?: { id?: string }; types?: { associationTypeId?: number }[] }[];
    };
    if (!body.properties?.hs_timestamp) {
      return send(response, error(400, 'VALIDATION_ERROR', 'Property "hs_timestamp" is required'));
    }
    const to = (body.associations ?? [])
      .filter((a) => a.types?.some((t) => t.associationTypeId === 202))
      .map((a) => String(a.to?.id));
    const missing = to.find((id) => !contacts.has(id));
    if (missing) return send(response, notFound(missing));
    const now = new Date().toISOString();
    const note: HubSpotObject = {
      id: String(90_000 + notes.length),
      properties: { ...body.properties, hs_object_id: String(90_000 + notes.length), hs_createdate: now },
      createdAt: now,
      updatedAt: now,
      associatedContacts: to,
    };
    notes.push(note);
    sendJson(response, 201, view(note, Object.keys(body.properties)));
  };

  const fake = await startRestFake({
    authorize: (request) =>
      bearerOf(request) === token
        ? undefined
        : error(
            401,
            'INVALID_AUTHENTICATION',
            'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
          ),
    notFound: () => ({ status: 404, body: '' }),
    headers: (request): Record<string, string> => {
      if (request.path.endsWith('/search')) return {};
      dailyRemaining--;
      return {
        'x-hubspot-ratelimit-daily': '250000',
        'x-hubspot-ratelimit-daily-remaining': String(dailyRemaining),
        'x-hubspot-ratelimit-interval-milliseconds': '10000',
        'x-hubspot-ratelimit-max': '190',
        'x-hubspot-ratelimit-remaining': '189',
      };
    },
    routes: [
      {
        method: 'POST',
        path: /^\/crm\/v3\/objects\/contacts\/search$/,
        handle: (q, r) => search(q, r, 'contacts'),
      },
      { method: 'POST', path: /^\/crm\/v3\/objects\/notes\/batch\/read$/, handle: readNotes },
      {
        method: 'GET',
        path: /^\/crm\/v3\/objects\/contacts\/([^/]+)$/,
        handle: (q, r) => readObject(q, r, contacts, 'crm.objects.contacts.read'),
      },
      {
        method: 'GET',
        path: /^\/crm\/v3\/objects\/companies\/([^/]+)$/,
        handle: (q, r) => readObject(q, r, companies, 'crm.objects.companies.read'),
      },
      { method: 'PATCH', path: /^\/crm\/v3\/objects\/contacts\/([^/]+)$/, handle: updateContact },
      { method: 'POST', path: /^\/crm\/v3\/objects\/notes$/, handle: createNote },
    ],
  });

  return {
    ...fake,
    apiUrl: fake.url,
    get token() {
      return token;
    },
    set token(value: string) {
      token = value;
    },
    contacts,
    companies,
    notes,
    contactUpdates,
    rotate(next) {
      token = next;
    },
    throttle(times = 1, path) {
      fake.failNext(rateLimited('TEN_SECONDLY_ROLLING'), times, path ? { path } : {});
    },
  };
}

function bearerOf(request: FakeRequest): string | undefined {
  return /^Bearer\s+(\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
}

function send(response: ServerResponse, answer: FakeErrorAnswer): void {
  sendJson(response, answer.status, answer.body, { ...answer.headers });
}

/** HubSpot's error body ("Error handling"). */
function error(
  status: number,
  category: string,
  message: string,
  extra: Record<string, unknown> = {},
): FakeErrorAnswer {
  return { status, body: { status: 'error', message, correlationId: randomUUID(), category, ...extra } };
}

function notFound(id: string): FakeErrorAnswer {
  return error(404, 'OBJECT_NOT_FOUND', 'Object not found.  objectId are usually numeric.', {
    context: { id: [id] },
  });
}

/** HubSpot's 429 ("Usage details": `errorType: RATE_LIMIT`, the policy that was hit; no Retry-After). */
function rateLimited(policyName: string): FakeErrorAnswer {
  return {
    status: 429,
    body: {
      status: 'error',
      message: 'You have reached your secondly limit.',
      errorType: 'RATE_LIMIT',
      correlationId: randomUUID(),
      policyName,
    },
  };
}

function matches(
  item: HubSpotObject,
  filter: { propertyName: string; operator: string; value?: string },
): boolean {
  if (filter.propertyName === 'associations.contact') {
    return filter.operator === 'EQ' && (item.associatedContacts ?? []).includes(String(filter.value));
  }
  const actual = item.properties[filter.propertyName];
  if (actual === null || actual === undefined) return filter.operator === 'NOT_HAS_PROPERTY';
  // Date properties are compared as instants; HubSpot takes epoch milliseconds or ISO strings.
  const asTime = (v: string) => (/^\d+$/.test(v) ? Number(v) : Date.parse(v));
  const a = asTime(actual);
  const b = asTime(String(filter.value));
  const comparable = !Number.isNaN(a) && !Number.isNaN(b);
  switch (filter.operator) {
    case 'EQ':
      return actual === filter.value;
    case 'GTE':
      return comparable && a >= b;
    case 'GT':
      return comparable && a > b;
    case 'LTE':
      return comparable && a <= b;
    case 'LT':
      return comparable && a < b;
    case 'HAS_PROPERTY':
      return true;
    case 'CONTAINS_TOKEN':
      return actual.includes(String(filter.value));
    default:
      return false;
  }
}

function view(item: HubSpotObject, wanted: readonly string[]) {
  const properties: Record<string, string | null> = { hs_object_id: item.id };
  for (const name of wanted) properties[name] = item.properties[name] ?? null;
  return { id: item.id, properties, createdAt: item.createdAt, updatedAt: item.updatedAt, archived: false };
}
