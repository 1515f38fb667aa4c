/**
 * A local Lever (API v1): enough for the `ats_*` tools, with the shapes of
 * hire.lever.co/developer/documentation — "Authentication" (the API key as the
 * Basic auth user, empty password), "Pagination" (`limit` 1-100, an opaque
 * `offset` token answered as `next` with `hasNext`), "Rate limits" (a steady 10
 * requests per second with bursts to 20; HTTP 429 past them), "List all
 * opportunities" (`posting_id`, `stage_id`, `created_at_start`/`_end`,
 * `updated_at_start` in epoch milliseconds, `expand=applications`), "Retrieve a
 * single opportunity" (with `stageChanges`), "List all stages", "Create a note"
 * (POST `.../notes?perform_as=<user id>`, answered `{ data: { noteId } }`), "List
 * all notes", errors as `{ code, message }`. Fixtures follow the docs' example
 * (Shane Smith). Resumes and files exist (`/v1/opportunities/:id/resumes`,
 * `/files`) so a test can prove no tool asks for them ({@link LocalLever.fileRequests}).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './loopback-server';
import { basicUser, type FakeErrorAnswer, type FakeRequest, type RestFake, startRestFake } from './rest-fake';

/** The API key accepted unless told otherwise (Lever's keys: 48 base62 characters). */
export const LEVER_KEY = 'LvrK3y0123456789abcdefghijKLMNOPQRSTuvwxyz012345';

/** The Lever user notes are made as (`perform_as`). */
export const LEVER_USER_ID = 'df0e3bd5-a1ad-4a3b-9d35-0d8f7ab2e2a1';

/** The account's pipeline ("List all stages"). */
export const LEVER_STAGES = [
  { id: 'lead-new', text: 'New lead' },
  { id: 'lead-reached-out', text: 'Reached out' },
  { id: 'applicant-new', text: 'New applicant' },
  { id: 'e4e8d1f3-phone-screen', text: 'Phone screen' },
  { id: 'offer', text: 'Offer' },
];

export type LeverOpportunity = Record<string, unknown> & {
  id: string;
  createdAt: number;
  updatedAt: number;
  stage: string;
};

export interface LeverServerOptions {
  readonly key?: string;
  readonly opportunities?: readonly LeverOpportunity[];
  /** Notes keep their body in `fields[].value` only, with no top-level `text` (default both, as the docs' example). */
  readonly noteBodyInFieldsOnly?: boolean;
}

export interface LocalLever extends RestFake {
  readonly apiUrl: string;
  readonly opportunities: Map<string, LeverOpportunity>;
  readonly notes: Map<string, Record<string, unknown>[]>;
  /** Requests for resumes or files (must stay 0). */
  readonly fileRequests: () => number;
  rotate(key: string): void;
  throttle(times?: number, path?: RegExp): void;
}

const POSTING_ID = 'f2f01e16-27f8-4711-a728-7d49499795a0';

/** An opportunity of the docs' example shape, applied to posting {@link POSTING_ID}. */
export function leverOpportunity(n: number, stage = 'e4e8d1f3-phone-screen'): LeverOpportunity {
  const createdAt = Date.parse('2026-03-01T00:00:00Z') + n * 60_000;
  const id = `250d8f03-738a-4bba-a671-${String(n).padStart(12, '0')}`;
  return {
    id,
    name: n === 12 ? 'Shane Smith' : `Candidate${n} Person${n}`,
    headline: 'Brickly LLC, Vandelay Industries, Inc, Central Perk',
    contact: randomUUID(),
    emails: [`candidate${n}@exampleq3.com`],
    phones: [{ type: 'mobile', value: '(123) 456-7891' }],
    confidentiality: 'non-confidential',
    location: 'Oakland',
    links: ['indeed.com/r/Shane-Smith/0b8c5d0d6f3ff5d9'],
    createdAt,
    updatedAt: createdAt,
    lastInteractionAt: createdAt,
    lastAdvancedAt: createdAt,
    snoozedUntil: null,
    archivedAt: null,
    archiveReason: null,
    stage,
    stageChanges: [
      { toStageId: 'applicant-new', toStageIndex: 2, updatedAt: createdAt, userId: LEVER_USER_ID },
      { toStageId: stage, toStageIndex: 3, updatedAt: createdAt + 1000, userId: LEVER_USER_ID },
    ],
    owner: LEVER_USER_ID,
    tags: ['San Francisco', 'Full-time', 'Support'],
    sources: ['linkedin'],
    origin: 'applied',
    sourcedBy: null,
    applications: [`cdb2b5b0-0000-4000-8000-${String(n).padStart(12, '0')}`],
    resume: null,
    followers: [LEVER_USER_ID],
    urls: { list: 'https://hire.lever.co/candidates', show: `https://hire.lever.co/candidates/${id}` },
    dataProtection: null,
    isAnonymized: false,
    archived: null,
  };
}

function application(opportunity: LeverOpportunity, applicationId: string) {
  return {
    id: applicationId,
    type: 'posting',
    candidateId: opportunity.id,
    opportunityId: opportunity.id,
    posting: POSTING_ID,
    postingHiringManager: LEVER_USER_ID,
    postingOwner: LEVER_USER_ID,
    name: opportunity.name,
    company: null,
    phone: { type: 'mobile', value: '(123) 456-7891' },
    email: (opportunity.emails as string[])[0],
    links: [],
    comments: null,
    user: null,
    customQuestions: [],
    createdAt: opportunity.createdAt,
    archived: null,
    requisitionForHire: null,
  };
}

export async function startLeverServer(options: LeverServerOptions = {}): Promise<LocalLever> {
  let key = options.key ?? LEVER_KEY;
  const opportunities = new Map((options.opportunities ?? [leverOpportunity(12)]).map((o) => [o.id, o]));
  const notes = new Map<string, Record<string, unknown>[]>();
  let files = 0;

  const expanded = (opportunity: LeverOpportunity, expand: readonly string[]) => ({
    ...opportunity,
    ...(expand.includes('applications')
      ? { applications: (opportunity.applications as string[]).map((id) => application(opportunity, id)) }
      : {}),
    ...(expand.includes('stage')
      ? {
          stage: LEVER_STAGES.find((s) => s.id === opportunity.stage) ?? {
            id: opportunity.stage,
            text: opportunity.stage,
          },
        }
      : {}),
  });

  const list = (request: FakeRequest, response: ServerResponse) => {
    const limit = Number(request.query.get('limit') ?? '100');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return send(response, error(400, 'BadRequestError', 'limit must be between 1 and 100'));
    const offset = request.query.get('offset');
    const start = offset ? Number(Buffer.from(offset, 'base64url').toString('utf8').replace(/^o:/, '')) : 0;
    if (!Number.isInteger(start) || start < 0)
      return send(response, error(400, 'BadRequestError', 'Invalid offset token'));
    const num = (name: string) =>
      request.query.get(name) === null ? undefined : Number(request.query.get(name));
    const createdStart = num('created_at_start');
    const createdEnd = num('created_at_end');
    const updatedStart = num('updated_at_start');
    const stages = request.query.getAll('stage_id');
    const postings = request.query.getAll('posting_id');
    const matching = [...opportunities.values()]
      .filter((o) => createdStart === undefined || o.createdAt >= createdStart)
      .filter((o) => createdEnd === undefined || o.createdAt <= createdEnd)
      .filter((o) => updatedStart === undefined || o.updatedAt >= updatedStart)
      .filter((o) => stages.length === 0 || stages.includes(o.stage))
      .filter(() => postings.length === 0 || postings.includes(POSTING_ID))
      .sort((a, b) => a.createdAt - b.createdAt);
    const page = matching.slice(start, start + limit);
    const hasNext = start + limit < matching.length;
    const expand = request.query.getAll('expand');
    sendJson(response, 200, {
      data: page.map((o) => expanded(o, expand)),
      hasNext,
      ...(hasNext ? { next: Buffer.from(`o:${start + limit}`).toString('base64url') } : {}),
    });
  };

  const get = (request: FakeRequest, response: ServerResponse) => {
    const opportunity = opportunities.get(request.params[0] as string);
    if (!opportunity) return send(response, error(404, 'ResourceNotFound', 'Opportunity not found'));
    sendJson(response, 200, { data: expanded(opportunity, request.query.getAll('expand')) });
  };

  const addNote = (request: FakeRequest, response: ServerResponse) => {
    const id = request.params[0] as string;
    if (!opportunities.has(id))
      return send(response, error(404, 'ResourceNotFound', 'Opportunity not found'));
    if (!request.query.get('perform_as'))
      return send(response, error(400, 'BadRequestError', 'perform_as is required when using an API key'));
    const body = (request.json ?? {}) as { value?: string; secret?: boolean };
    if (typeof body.value !== 'string' || body.value === '')
      return send(response, error(400, 'BadRequestError', 'value is required'));
    const noteId = randomUUID();
    notes.set(id, [
      ...(notes.get(id) ?? []),
      {
        id: noteId,
        ...(options.noteBodyInFieldsOnly ? {} : { text: body.value }),
        fields: [{ type: 'note', text: 'Note', value: body.value }],
        user: request.query.get('perform_as'),
        secret: body.secret === true,
        completedAt: null,
        deletedAt: null,
        createdAt: Date.now(),
      },
    ]);
    sendJson(response, 201, { data: { noteId } });
  };

  const listNotes = (request: FakeRequest, response: ServerResponse) => {
    const id = request.params[0] as string;
    if (!opportunities.has(id))
      return send(response, error(404, 'ResourceNotFound', 'Opportunity not found'));
    // Paginated like every Lever list ("Pagination"): `limit` 1-100 (default 100), `offset` token, `hasNext`/`next`.
    const limit = Number(request.query.get('limit') ?? '100');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return send(response, error(400, 'BadRequestError', 'limit must be between 1 and 100'));
    const offset = request.query.get('offset');
    const start = offset ? Number(Buffer.from(offset, 'base64url').toString('utf8').replace(/^n:/, '')) : 0;
    if (!Number.isInteger(start) || start < 0)
      return send(response, error(400, 'BadRequestError', 'Invalid offset token'));
    const all = notes.get(id) ?? [];
    const hasNext = start + limit < all.length;
    sendJson(response, 200, {
      data: all.slice(start, start + limit),
      hasNext,
      ...(hasNext ? { next: Buffer.from(`n:${start + limit}`).toString('base64url') } : {}),
    });
  };

  const fake = await startRestFake({
    authorize: (request) =>
      basicUser(request) === key ? undefined : error(401, 'UnauthorizedError', 'Invalid API key'),
    notFound: () => error(404, 'ResourceNotFound', 'Not found'),
    routes: [
      { method: 'GET', path: /^\/v1\/opportunities$/, handle: list },
      { method: 'GET', path: /^\/v1\/opportunities\/([^/]+)$/, handle: get },
      {
        method: 'GET',
        path: /^\/v1\/stages$/,
        handle: (_q, r) => sendJson(r, 200, { data: LEVER_STAGES, hasNext: false }),
      },
      { method: 'POST', path: /^\/v1\/opportunities\/([^/]+)\/notes$/, handle: addNote },
      { method: 'GET', path: /^\/v1\/opportunities\/([^/]+)\/notes$/, handle: listNotes },
      ...['resumes', 'files'].map((kind) => ({
        method: 'GET',
        path: new RegExp(`^/v1/opportunities/[^/]+/${kind}`),
        handle: (_q: FakeRequest, r: ServerResponse) => {
          files++;
          sendJson(r, 200, { data: [], hasNext: false });
        },
      })),
    ],
  });

  return {
    ...fake,
    apiUrl: fake.url,
    opportunities,
    notes,
    fileRequests: () => files,
    rotate(next) {
      key = next;
    },
    throttle(times = 1, path) {
      fake.failNext(
        error(429, 'TooManyRequests', 'Rate limit exceeded; retry later'),
        times,
        path ? { path } : {},
      );
    },
  };
}

function send(response: ServerResponse, answer: FakeErrorAnswer): void {
  sendJson(response, answer.status, answer.body, { ...answer.headers });
}

function error(status: number, code: string, message: string): FakeErrorAnswer {
  return { status, body: { code, message } };
}
