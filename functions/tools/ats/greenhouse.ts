/**
 * Greenhouse Harvest (v1) as the ATS family's provider (developers.greenhouse.io,
 * "Harvest API"): the API key as the Basic auth user with an empty password;
 * `Link` header pagination (`per_page` up to 500); "Throttling": a limit per
 * 10-second window in `X-RateLimit-Limit` (50 for most keys), what is left in
 * `X-RateLimit-Remaining`, 429 past it. Candidates from "List Candidates"
 * (`job_id`, `created_after`/`updated_after`, `created_before`/`updated_before`;
 * the stage is matched on each application's `current_stage`, which the API
 * cannot filter on), stage history from "Retrieve Activity Feed" (its
 * "Candidate Stage Change" activities), notes through "Create Note" with the
 * `On-Behalf-Of` user. Never calls an attachment URL or an endpoint that
 * returns one's content.
 */
import type { ToolContext } from '../../runtime/context';
import { SecretInvalidError } from '../../runtime/errors';
import { basicAuth } from '../../runtime/http/auth';
import { defineRestConnector, type RestSession } from '../../runtime/http/connector';
import { bodyMessage, field, iso, str } from '../../runtime/http/json-fields';
import { linkHeaderPaginator } from '../../runtime/http/pagination';
import { quotaHeaders } from '../../runtime/http/rate-limit-headers';
import { readRecordPages } from '../../runtime/http/record-pages';
import type { ErrorTable } from '../../runtime/http/rest-errors';
import type {
  Application,
  ApplicationStatus,
  AtsProvider,
  Candidate,
  CandidatePage,
  CandidateQuery,
  CandidateSummary,
  StageChange,
} from './family';
import { GREENHOUSE_SCOPES } from './scopes';
import { ATS_SECRET_FAMILY, type AtsSecret } from './secret';

/** Candidates per page: 100 ("Pagination" allows 500; a candidate with its applications is 2-4 KB). */
export const GREENHOUSE_PAGE = 100;

/** Most response bytes one candidate query reads. */
const MAX_BYTES = 4 * 1024 * 1024;

type GreenhouseSecret = Extract<AtsSecret, { provider: 'greenhouse' }>;

interface GreenhouseApplication {
  id: number;
  applied_at?: string | null;
  rejected_at?: string | null;
  last_activity_at?: string | null;
  status?: string;
  source?: { public_name?: string } | null;
  jobs?: { id: number; name?: string }[];
  current_stage?: { name?: string } | null;
  prospect?: boolean;
}

interface GreenhouseCandidate {
  id: number;
  first_name?: string;
  last_name?: string;
  company?: string | null;
  title?: string | null;
  created_at?: string;
  updated_at?: string;
  tags?: string[];
  applications?: GreenhouseApplication[];
}

const greenhouseErrors: ErrorTable = {
  message: bodyMessage,
  fieldMessages: (answer) => {
    const errors = field(answer.body, 'errors');
    return Array.isArray(errors)
      ? errors.map((e) => `${str(field(e, 'field')) ?? '?'}: ${str(field(e, 'message')) ?? 'invalid'}`)
      : [];
  },
  missingScope: (answer) => {
    const permission = /\(([A-Z]+: [^)]+)\)/.exec(bodyMessage(answer) ?? '')?.[1];
    return permission ? `the Harvest permission "${permission}"` : undefined;
  },
};

/** The connector: Basic auth, 50 requests per 10 seconds ("Throttling"). */
export const greenhouse = defineRestConnector<GreenhouseSecret>({
  scopes: GREENHOUSE_SCOPES,
  service: 'greenhouse',
  label: 'Greenhouse',
  secret: ATS_SECRET_FAMILY.provider('greenhouse'),
  baseUrl: () => process.env.GREENHOUSE_API_URL || 'https://harvest.greenhouse.io',
  authenticator: () => basicAuth((secret: GreenhouseSecret) => secret.token),
  headers: { accept: 'application/json' },
  rateLimit: { burst: 10, perSecond: 5 },
  quota: quotaHeaders({
    remaining: 'x-ratelimit-remaining',
    reset: 'x-ratelimit-reset',
    resetUnit: 'epoch_seconds',
  }),
  errors: greenhouseErrors,
});

/** The provider for one call. */
export function greenhouseProvider(
  ctx: ToolContext,
  session: RestSession<GreenhouseSecret> = greenhouse.session(ctx),
): AtsProvider {
  const candidatePath = (id: string) => `/v1/candidates/${encodeURIComponent(id)}`;
  return {
    name: 'greenhouse',
    maxPageSize: GREENHOUSE_PAGE,
    requests: () => session.requests,
    async listCandidates(query: CandidateQuery): Promise<CandidatePage> {
      const time = query.field === 'updated' ? 'updated' : 'created';
      const { records, ...read } = await readRecordPages<GreenhouseCandidate>(
        session,
        {
          method: 'GET',
          path: '/v1/candidates',
          query: {
            job_id: query.jobId,
            ...(query.since ? { [`${time}_after`]: query.since } : {}),
            ...(query.until ? { [`${time}_before`]: query.until } : {}),
          },
        },
        {
          paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: query.pageSize }),
          maxPages: query.maxPages,
          maxBytes: MAX_BYTES,
          resume: query.continueFrom,
        },
        ctx.deadline,
      );
      return { ...read, scanned: records.length, candidates: records.flatMap((c) => rows(c, query)) };
    },
    async getCandidate(candidateId: string): Promise<Candidate> {
      const candidate = await session.json<GreenhouseCandidate>({
        method: 'GET',
        path: candidatePath(candidateId),
      });
      const feed = await session.json<{
        activities?: { subject?: string; body?: string; created_at?: string }[];
      }>({
        method: 'GET',
        path: `${candidatePath(candidateId)}/activity_feed`,
      });
      return {
        id: String(candidate.id),
        name: nameOf(candidate),
        company: candidate.company ?? null,
        title: candidate.title ?? null,
        tags: [...(candidate.tags ?? [])],
        created_at: iso(candidate.created_at),
        updated_at: iso(candidate.updated_at),
        applications: (candidate.applications ?? []).map(application),
        stage_history: stageHistory(feed.activities ?? []),
      };
    },
    async addNote(candidateId: string, text: string, visibility: 'private' | 'public'): Promise<string> {
      const user = await noteUser(session);
      const note = await session.json<{ id: number }>({
        method: 'POST',
        path: `${candidatePath(candidateId)}/activity_feed/notes`,
        headers: { 'on-behalf-of': user },
        body: { user_id: Number(user), body: text, visibility },
      });
      return String(note.id);
    },
    async findNote(candidateId: string, marker: string): Promise<string | undefined> {
      const feed = await session.json<{ notes?: { id: number; body?: string }[] }>({
        method: 'GET',
        path: `${candidatePath(candidateId)}/activity_feed`,
      });
      const note = (feed.notes ?? []).find((n) => (n.body ?? '').includes(marker));
      return note ? String(note.id) : undefined;
    },
  };
}

/** The Greenhouse user notes are written on behalf of (`On-Behalf-Of`, "Create Note"). */
async function noteUser(session: RestSession<GreenhouseSecret>): Promise<string> {
  const secret = await session.secret();
  if (secret.user_id === undefined) {
    throw new SecretInvalidError(
      'ats_add_note needs the Greenhouse user the note is written on behalf of: add "user_id" to ats_default (docs/ats.md)',
      { service: 'greenhouse' },
    );
  }
  return String(secret.user_id);
}

function nameOf(candidate: GreenhouseCandidate): string {
  return [candidate.first_name, candidate.last_name].filter(Boolean).join(' ') || `Candidate ${candidate.id}`;
}

function statusOf(application: GreenhouseApplication): ApplicationStatus {
  return application.status === 'rejected' || application.status === 'hired' ? application.status : 'active';
}

function application(app: GreenhouseApplication): Application {
  const job = app.jobs?.[0];
  return {
    id: String(app.id),
    job: job ? { id: String(job.id), name: job.name ?? null } : null,
    status: statusOf(app),
    stage: app.current_stage?.name ?? null,
    applied_at: iso(app.applied_at),
    rejected_at: iso(app.rejected_at),
    source: app.source?.public_name ?? null,
  };
}

/** One row per application matching the job and stage (a candidate without applications: one row, unless filtered). */
function rows(candidate: GreenhouseCandidate, query: CandidateQuery): CandidateSummary[] {
  const wantedStage = query.stage?.toLowerCase();
  const apps = (candidate.applications ?? []).filter(
    (app) =>
      (query.jobId === undefined || (app.jobs ?? []).some((j) => String(j.id) === query.jobId)) &&
      (wantedStage === undefined || app.current_stage?.name?.toLowerCase() === wantedStage),
  );
  const base = { id: String(candidate.id), name: nameOf(candidate) };
  if (apps.length === 0) {
    return query.jobId === undefined &&
      wantedStage === undefined &&
      (candidate.applications ?? []).length === 0
      ? [
          {
            ...base,
            application_id: null,
            job: null,
            stage: null,
            status: 'active',
            applied_at: null,
            last_activity_at: null,
            source: null,
          },
        ]
      : [];
  }
  return apps.map((app) => {
    const mapped = application(app);
    return {
      ...base,
      application_id: mapped.id,
      job: mapped.job,
      stage: mapped.stage,
      status: mapped.status,
      applied_at: mapped.applied_at,
      last_activity_at: iso(app.last_activity_at),
      source: mapped.source,
    };
  });
}

/** "Candidate Stage Change" activities: "<name> was moved into <stage> for <job> on <date> by <user>". */
function stageHistory(activities: { subject?: string; body?: string; created_at?: string }[]): StageChange[] {
  return activities
    .filter((a) => a.subject === 'Candidate Stage Change')
    .flatMap((a) => {
      const match = /was moved into (.+?) for (.+?) on /.exec(a.body ?? '');
      const at = iso(a.created_at);
      return match?.[1] && at ? [{ stage: match[1], job: match[2] ?? null, at }] : [];
    })
    .sort((a, b) => a.at.localeCompare(b.at));
}
