/**
 * A local Greenhouse Harvest (v1): enough for the `ats_*` tools, with the shapes
 * of developers.greenhouse.io/harvest.html — "Authentication" (the API key as the
 * Basic auth user, empty password), "Pagination" (`per_page` ≤ 500, `page`, an
 * RFC 5988 `Link` header with `next` and `last`), "Throttling" (`X-RateLimit-Limit`
 * and `X-RateLimit-Remaining` on every answer, 429 with `Retry-After` past the
 * limit of a 10-second window), "List Candidates" (`job_id`, `created_after`,
 * `updated_after`), "Retrieve Candidate", "Retrieve Activity Feed" (notes, emails,
 * activities with "Candidate Stage Change"), "Create Note" (POST with the
 * `On-Behalf-Of` header), errors as `{ message, errors? }`. Fixtures follow the
 * docs' examples (John Locke, Accounting Manager). Candidates carry resume
 * attachments whose URLs point back at this server, so a test can prove no tool
 * ever downloads one ({@link LocalGreenhouse.attachmentDownloads}).
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './loopback-server';
import {
  basicUser,
  type FakeErrorAnswer,
  type FakeRequest,
  isoAt,
  type RestFake,
  startRestFake,
} from './rest-fake';

/** The Harvest API key accepted unless told otherwise (the docs' example key). */
export const GREENHOUSE_KEY = 'a7183e1b7e9ab09b8a5cfa87d1934c3c';

/** The user notes are written on behalf of (the docs' Boone Carlyle). */
export const GREENHOUSE_USER_ID = 214;

/** Endpoints a Harvest key may be granted ("Harvest API key permissions"). */
export const GREENHOUSE_PERMISSIONS = [
  'GET: List Candidates',
  'GET: Retrieve Candidate',
  'GET: Retrieve Activity Feed',
  'POST: Add Note',
] as const;

/** A stored candidate, as Harvest returns it. */
export type GreenhouseCandidate = Record<string, unknown> & {
  id: number;
  created_at: string;
  updated_at: string;
};

export interface GreenhouseServerOptions {
  readonly key?: string;
  readonly permissions?: readonly string[];
  /** The candidates, given the server's URL (their attachment URLs point at it). @default John Locke */
  readonly candidates?: (baseUrl: string) => readonly GreenhouseCandidate[];
  /** Requests per 10-second window (`X-RateLimit-Limit`). @default 50 */
  readonly rateLimit?: number;
}

export interface LocalGreenhouse extends RestFake {
  readonly apiUrl: string;
  readonly candidates: Map<number, GreenhouseCandidate>;
  /** Notes created, by candidate id. */
  readonly notes: Map<number, Record<string, unknown>[]>;
  /** Requests for an attachment URL (must stay 0). */
  readonly attachmentDownloads: () => number;
  rotate(key: string): void;
  throttle(times?: number, path?: RegExp): void;
}

/** A candidate of the docs' example shape with one application to job 87752 ("Accounting Manager"). */
export function greenhouseCandidate(
  n: number,
  baseUrl: string,
  stage = 'Recruiter Phone Screen',
): GreenhouseCandidate {
  const id = 53_883_000 + n;
  const created = isoAt(n);
  return {
    id,
    first_name: n === 12 ? 'John' : `Candidate${n}`,
    last_name: n === 12 ? 'Locke' : `Person${n}`,
    company: 'The Tustin Box Company',
    title: 'Customer Success Representative',
    created_at: created,
    updated_at: created,
    last_activity: created,
    is_private: false,
    photo_url: null,
    attachments: [
      {
        filename: 'John_Locke_Offer_Packet_09_27_2017.pdf',
        url: `${baseUrl}/attachments/${id}/resume.pdf?X-Amz-Signature=0123456789abcdef0123456789abcdef`,
        type: 'resume',
        created_at: created,
      },
    ],
    application_ids: [69_306_000 + n],
    phone_numbers: [{ value: '555-555-5555', type: 'mobile' }],
    addresses: [{ value: '455 Broadway New York, NY 10280', type: 'home' }],
    email_addresses: [{ value: `candidate${n}@example.com`, type: 'personal' }],
    website_addresses: [],
    social_media_addresses: [],
    recruiter: { id: 92_120, first_name: 'Greenhouse', last_name: 'Admin', name: 'Greenhouse Admin' },
    coordinator: null,
    can_email: true,
    tags: ['Walkabout', 'Orientation'],
    applications: [
      {
        id: 69_306_000 + n,
        candidate_id: id,
        prospect: false,
        applied_at: created,
        rejected_at: null,
        last_activity_at: created,
        location: { address: 'New York, New York, USA' },
        source: { id: 2, public_name: 'Jobs page on your website' },
        credited_to: { id: 4_080, first_name: 'Kate', last_name: 'Austen', name: 'Kate Austen' },
        rejection_reason: null,
        rejection_details: null,
        jobs: [{ id: 87_752, name: 'Accounting Manager' }],
        status: 'active',
        current_stage: { id: 2_708_728, name: stage },
        answers: [{ question: 'How did you hear about this job?', answer: 'Online research' }],
        attachments: [],
      },
    ],
    custom_fields: { desired_salary: '1000000' },
  };
}

export async function startGreenhouseServer(options: GreenhouseServerOptions = {}): Promise<LocalGreenhouse> {
  let key = options.key ?? GREENHOUSE_KEY;
  const permissions = new Set(options.permissions ?? GREENHOUSE_PERMISSIONS);
  const limit = options.rateLimit ?? 50;
  const window: number[] = [];
  const candidates = new Map<number, GreenhouseCandidate>();
  const notes = new Map<number, Record<string, unknown>[]>();
  let downloads = 0;
  let baseUrl = '';

  const need = (permission: string): FakeErrorAnswer | undefined =>
    permissions.has(permission)
      ? undefined
      : {
          status: 403,
          body: { message: `This API Key does not have permission for this endpoint (${permission}).` },
        };

  const list = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('GET: List Candidates');
    if (denied) return send(response, denied);
    const perPage = Number(request.query.get('per_page') ?? '100');
    const page = Number(request.query.get('page') ?? '1');
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 500 || !Number.isInteger(page) || page < 1) {
      return send(response, {
        status: 422,
        body: {
          message: 'Validation error',
          errors: [{ message: 'per_page must be 1-500', field: 'per_page' }],
        },
      });
    }
    const jobId = request.query.get('job_id');
    const createdAfter = request.query.get('created_after');
    const updatedAfter = request.query.get('updated_after');
    const matching = [...candidates.values()]
      .filter(
        (c) =>
          !jobId ||
          (c.applications as { jobs: { id: number }[] }[]).some((a) =>
            a.jobs.some((j) => String(j.id) === jobId),
          ),
      )
      .filter((c) => !createdAfter || Date.parse(c.created_at) >= Date.parse(createdAfter))
      .filter((c) => !updatedAfter || Date.parse(c.updated_at) >= Date.parse(updatedAfter))
      .sort((a, b) => a.id - b.id);
    const last = Math.max(1, Math.ceil(matching.length / perPage));
    const link = (p: number, rel: string) => {
      const query = new URLSearchParams(request.query);
      query.set('page', String(p));
      query.set('per_page', String(perPage));
      return `<${baseUrl}${request.path}?${query}>; rel="${rel}"`;
    };
    const links = [
      ...(page < last ? [link(page + 1, 'next')] : []),
      ...(page > 1 ? [link(page - 1, 'prev')] : []),
      link(last, 'last'),
    ];
    sendJson(response, 200, matching.slice((page - 1) * perPage, page * perPage), { link: links.join(', ') });
  };

  const get = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('GET: Retrieve Candidate');
    if (denied) return send(response, denied);
    const candidate = candidates.get(Number(request.params[0]));
    if (!candidate) return send(response, { status: 404, body: { message: 'Resource not found' } });
    sendJson(response, 200, candidate);
  };

  const feed = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('GET: Retrieve Activity Feed');
    if (denied) return send(response, denied);
    const id = Number(request.params[0]);
    const candidate = candidates.get(id);
    if (!candidate) return send(response, { status: 404, body: { message: 'Resource not found' } });
    const user = {
      id: GREENHOUSE_USER_ID,
      first_name: 'Boone',
      last_name: 'Carlyle',
      name: 'Boone Carlyle',
      employee_id: '67890',
    };
    sendJson(response, 200, {
      notes: notes.get(id) ?? [],
      emails: [
        {
          id: 234_675,
          created_at: '2014-04-01T15:55:06Z',
          subject: 'Interview Scheduled',
          body: 'Hi John, we would like to meet you.',
          to: 'candidate@example.com',
          from: 'Boone Carlyle <boone@example.com>',
          cc: null,
          user,
        },
      ],
      activities: [
        {
          id: 6_757_869,
          created_at: '2014-03-26T20:26:38Z',
          subject: 'Candidate Stage Change',
          body: `${candidate.first_name} ${candidate.last_name} was moved into Recruiter Phone Screen for Accounting Manager on 03/27/2014 by Boone Carlyle`,
          user,
        },
        {
          id: 6_757_870,
          created_at: '2014-03-28T10:00:00Z',
          subject: 'Candidate Stage Change',
          body: `${candidate.first_name} ${candidate.last_name} was moved into Face to Face for Accounting Manager on 03/28/2014 by Boone Carlyle`,
          user,
        },
        {
          id: 6_756_789,
          created_at: '2014-04-01T15:55:29Z',
          subject: 'Candidate Rejected',
          body: 'Reason: Lacking hustle\n\nThis candidate turned out to be problematic for us...',
          user,
        },
      ],
    });
  };

  const addNote = (request: FakeRequest, response: ServerResponse) => {
    const denied = need('POST: Add Note');
    if (denied) return send(response, denied);
    const onBehalfOf = request.headers['on-behalf-of'];
    if (!onBehalfOf) {
      return send(response, {
        status: 422,
        body: {
          message: 'Validation error',
          errors: [{ message: 'On-Behalf-Of header is required', field: 'On-Behalf-Of' }],
        },
      });
    }
    const id = Number(request.params[0]);
    if (!candidates.has(id)) return send(response, { status: 404, body: { message: 'Resource not found' } });
    const body = (request.json ?? {}) as { user_id?: number; body?: string; visibility?: string };
    if (!body.body || !['admin_only', 'private', 'public'].includes(String(body.visibility))) {
      return send(response, {
        status: 422,
        body: {
          message: 'Validation error',
          errors: [
            {
              message: 'body and visibility (admin_only, private, public) are required',
              field: body.body ? 'visibility' : 'body',
            },
          ],
        },
      });
    }
    const note = {
      id: 222_000 + (notes.get(id)?.length ?? 0) + [...notes.values()].flat().length * 10,
      created_at: new Date().toISOString(),
      body: body.body,
      user: {
        id: Number(onBehalfOf),
        first_name: 'Boone',
        last_name: 'Carlyle',
        name: 'Boone Carlyle',
        employee_id: '67890',
      },
      private: body.visibility === 'private',
      visiblity: body.visibility,
      visibility: body.visibility,
    };
    notes.set(id, [...(notes.get(id) ?? []), note]);
    sendJson(response, 201, note);
  };

  const fake = await startRestFake({
    authorize: (request) => {
      if (request.path.startsWith('/attachments/')) return undefined;
      if (basicUser(request) !== key)
        return { status: 401, body: { message: 'Invalid Basic Auth credentials' } };
      const now = Date.now();
      while (window.length > 0 && (window[0] as number) < now - 10_000) window.shift();
      window.push(now);
      return window.length > limit
        ? {
            status: 429,
            body: { message: 'Rate limit exceeded' },
            headers: { 'retry-after': '1', 'x-ratelimit-reset': String(Math.ceil(now / 1000) + 10) },
          }
        : undefined;
    },
    headers: () => ({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - window.length)),
    }),
    notFound: () => ({ status: 404, body: { message: 'Resource not found' } }),
    routes: [
      { method: 'GET', path: /^\/v1\/candidates$/, handle: list },
      { method: 'GET', path: /^\/v1\/candidates\/(\d+)$/, handle: get },
      { method: 'GET', path: /^\/v1\/candidates\/(\d+)\/activity_feed$/, handle: feed },
      { method: 'POST', path: /^\/v1\/candidates\/(\d+)\/activity_feed\/notes$/, handle: addNote },
      {
        method: 'GET',
        path: /^\/attachments\//,
        handle: (_q, r) => {
          downloads++;
          r.writeHead(200, { 'content-type': 'application/pdf' });
          r.end('%PDF-1.4 resume');
        },
      },
    ],
  });
  baseUrl = fake.url;
  for (const candidate of options.candidates?.(baseUrl) ?? [greenhouseCandidate(12, baseUrl)])
    candidates.set(candidate.id, candidate);

  return {
    ...fake,
    apiUrl: fake.url,
    candidates,
    notes,
    attachmentDownloads: () => downloads,
    rotate(next) {
      key = next;
    },
    throttle(times = 1, path) {
      fake.failNext(
        {
          status: 429,
          body: { message: 'Rate limit exceeded' },
          headers: { 'retry-after': '1', 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0' },
        },
        times,
        path ? { path } : {},
      );
    },
  };
}

function send(response: ServerResponse, answer: FakeErrorAnswer): void {
  sendJson(response, answer.status, answer.body, { ...answer.headers });
}
