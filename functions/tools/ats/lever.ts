/**
 * Lever (API v1) as the ATS family's provider (hire.lever.co/developer/documentation):
 * the API key as the Basic auth user with an empty password; "Pagination":
 * `limit` 1-100 and an opaque `offset` token answered as `next` with `hasNext`;
 * "Rate limits": a steady 10 requests per second per key, bursts to 20, 429 past
 * them. Candidates are opportunities ("List all opportunities": `posting_id`,
 * `stage_id`, `created_at_start`/`_end` and `updated_at_start`/`_end` in epoch
 * ms, `expand=applications`), stage names from "List all stages", stage history
 * from an opportunity's `stageChanges`, notes through "Create a note" as the
 * secret's user (`perform_as`). Never calls the resumes or files endpoints.
 */
import type { ToolContext } from '../../runtime/context';
import { InvalidArgsError, PlatformError, SecretInvalidError } from '../../runtime/errors';
import { basicAuth } from '../../runtime/http/auth';
import { defineRestConnector, type RestSession } from '../../runtime/http/connector';
import { bodyMessage, field, iso, str } from '../../runtime/http/json-fields';
import { cursorPaginator } from '../../runtime/http/pagination';
import { readRecordPages } from '../../runtime/http/record-pages';
import type { ErrorTable } from '../../runtime/http/rest-errors';
import type {
  Application,
  AtsProvider,
  Candidate,
  CandidatePage,
  CandidateQuery,
  CandidateSummary,
} from './family';
import { LEVER_SCOPES } from './scopes';
import { ATS_SECRET_FAMILY, type AtsSecret } from './secret';

/** Most opportunities per page ("Pagination": `limit` 1-100). */
export const LEVER_PAGE = 100;

const MAX_BYTES = 4 * 1024 * 1024;

/** Most pages of an opportunity's notes a marker lookup reads (100 notes each). */
const NOTE_LOOKUP_PAGES = 10;

type LeverSecret = Extract<AtsSecret, { provider: 'lever' }>;

interface LeverApplication {
  id: string;
  posting?: string | null;
  createdAt?: number;
  archived?: { archivedAt?: number } | null;
}

/** A note as "List all notes" answers it: its body in `text` and in its fields' `value`s. */
interface LeverNote {
  id: string;
  text?: string;
  fields?: { value?: unknown }[];
}

/** Whether a note's body holds `marker`: its `text`, or any field's `value` (where "Create a note" puts `value`). */
function noteCarries(note: LeverNote, marker: string): boolean {
  if ((note.text ?? '').includes(marker)) return true;
  return (note.fields ?? []).some((f) => typeof f?.value === 'string' && f.value.includes(marker));
}

interface LeverOpportunity {
  id: string;
  name?: string;
  headline?: string | null;
  createdAt?: number;
  updatedAt?: number;
  lastInteractionAt?: number;
  stage?: string | { id: string; text?: string };
  stageChanges?: { toStageId: string; updatedAt: number }[];
  tags?: string[];
  sources?: string[];
  archived?: { reason?: string; archivedAt?: number } | null;
  applications?: (LeverApplication | string)[];
}

const leverErrors: ErrorTable = {
  message: bodyMessage,
  fieldMessages: (answer) => {
    const message = bodyMessage(answer);
    return message ? [message] : [];
  },
};

/** The connector: Basic auth, 10 requests per second ("Rate limits"). */
export const lever = defineRestConnector<LeverSecret>({
  scopes: LEVER_SCOPES,
  service: 'lever',
  label: 'Lever',
  secret: ATS_SECRET_FAMILY.provider('lever'),
  baseUrl: () => process.env.LEVER_API_URL || 'https://api.lever.co',
  authenticator: () => basicAuth((secret: LeverSecret) => secret.token),
  headers: { accept: 'application/json' },
  rateLimit: { burst: 10, perSecond: 10 },
  errors: leverErrors,
});

/** The provider for one call. */
export function leverProvider(
  ctx: ToolContext,
  session: RestSession<LeverSecret> = lever.session(ctx),
): AtsProvider {
  let stages: Map<string, string> | undefined;
  const stageNames = async () => {
    if (!stages) {
      const body = await session.json<{ data?: { id: string; text: string }[] }>({
        method: 'GET',
        path: '/v1/stages',
      });
      stages = new Map((body.data ?? []).map((s) => [s.id, s.text]));
    }
    return stages;
  };
  const opportunityPath = (id: string) => `/v1/opportunities/${encodeURIComponent(id)}`;
  return {
    name: 'lever',
    maxPageSize: LEVER_PAGE,
    requests: () => session.requests,
    async listCandidates(query: CandidateQuery): Promise<CandidatePage> {
      const names = await stageNames();
      let stageId: string | undefined;
      if (query.stage !== undefined) {
        const wanted = query.stage.toLowerCase();
        stageId = [...names].find(([, text]) => text.toLowerCase() === wanted)?.[0];
        if (!stageId) {
          throw new InvalidArgsError(
            `Lever has no stage named "${query.stage}"; its stages: ${[...names.values()].join(', ')}`,
          );
        }
      }
      const time = query.field === 'updated' ? 'updated_at' : 'created_at';
      const { records, ...read } = await readRecordPages<LeverOpportunity>(
        session,
        {
          method: 'GET',
          path: '/v1/opportunities',
          query: {
            expand: 'applications',
            posting_id: query.jobId,
            stage_id: stageId,
            ...(query.since ? { [`${time}_start`]: Date.parse(query.since) } : {}),
            ...(query.until ? { [`${time}_end`]: Date.parse(query.until) - 1 } : {}),
          },
        },
        {
          paginator: leverPages(query.pageSize),
          recordsAt: 'data',
          maxPages: query.maxPages,
          maxBytes: MAX_BYTES,
          resume: query.continueFrom,
        },
        ctx.deadline,
      );
      return {
        ...read,
        scanned: records.length,
        candidates: records.map((o) => row(o, names, query.jobId)),
      };
    },
    async getCandidate(candidateId: string): Promise<Candidate> {
      const body = await session.json<{ data: LeverOpportunity }>({
        method: 'GET',
        path: opportunityPath(candidateId),
        query: { expand: 'applications' },
      });
      const names = await stageNames();
      const o = body.data;
      return {
        id: o.id,
        name: o.name ?? `Opportunity ${o.id}`,
        company: o.headline ?? null,
        title: null,
        tags: [...(o.tags ?? [])],
        created_at: iso(o.createdAt),
        updated_at: iso(o.updatedAt),
        applications: applications(o).map((a) => application(o, a, names)),
        stage_history: (o.stageChanges ?? [])
          .map((c) => ({
            stage: names.get(c.toStageId) ?? c.toStageId,
            job: null,
            at: iso(c.updatedAt) ?? '',
          }))
          .sort((a, b) => a.at.localeCompare(b.at)),
      };
    },
    async addNote(candidateId: string, text: string, visibility: 'private' | 'public'): Promise<string> {
      const secret = await session.secret();
      if (!secret.user_id) {
        throw new SecretInvalidError(
          'ats_add_note needs the Lever user the note is made as (perform_as): add "user_id" to ats_default (docs/ats.md)',
          { service: 'lever' },
        );
      }
      const body = await session.json<{ data: { noteId: string } }>({
        method: 'POST',
        path: `${opportunityPath(candidateId)}/notes`,
        query: { perform_as: secret.user_id },
        body: { value: text, secret: visibility === 'private' },
      });
      return body.data.noteId;
    },
    async findNote(candidateId: string, marker: string): Promise<string | undefined> {
      const carries = (n: LeverNote) => noteCarries(n, marker);
      // "List all notes" is paginated like every Lever list (`hasNext`, `next`): every page is read.
      const read = await readRecordPages<LeverNote>(
        session,
        { method: 'GET', path: `${opportunityPath(candidateId)}/notes` },
        {
          paginator: leverPages(LEVER_PAGE),
          recordsAt: 'data',
          maxPages: NOTE_LOOKUP_PAGES,
          maxBytes: MAX_BYTES,
          until: (page) => page.some(carries),
        },
        ctx.deadline,
      );
      const found = read.records.find(carries);
      if (found) return found.id;
      // Not every note was read: the note may be there, unseen (the caller must not write it again).
      if (!read.complete) {
        throw new PlatformError(
          'upstream_error',
          `only ${read.pages} pages of the opportunity's notes could be read (${read.stoppedBy})`,
          { service: 'lever' },
        );
      }
      return undefined;
    },
  };
}

/**
 * Lever's pagination ("Pagination"): `limit` 1-100, and while `hasNext` is true
 * the opaque `next` token sent back as `offset`.
 */
function leverPages(pageSize: number) {
  return cursorPaginator({
    cursorParam: 'offset',
    pageSizeParam: 'limit',
    pageSize,
    nextCursor: (body) => (field(body, 'hasNext') === true ? str(field(body, 'next')) : undefined),
  });
}

function applications(o: LeverOpportunity): LeverApplication[] {
  return (o.applications ?? []).map((a) => (typeof a === 'string' ? { id: a } : a));
}

function stageOf(o: LeverOpportunity, names: Map<string, string>): string | null {
  if (typeof o.stage === 'string') return names.get(o.stage) ?? o.stage;
  return o.stage ? (o.stage.text ?? names.get(o.stage.id) ?? o.stage.id) : null;
}

function application(o: LeverOpportunity, a: LeverApplication, names: Map<string, string>): Application {
  return {
    id: a.id,
    job: a.posting ? { id: a.posting, name: null } : null,
    status: a.archived || o.archived ? 'archived' : 'active',
    stage: stageOf(o, names),
    applied_at: iso(a.createdAt),
    rejected_at: null,
    source: o.sources?.[0] ?? null,
  };
}

function row(o: LeverOpportunity, names: Map<string, string>, jobId: string | undefined): CandidateSummary {
  const apps = applications(o);
  const app = apps.find((a) => jobId === undefined || a.posting === jobId) ?? apps[0];
  const mapped = app ? application(o, app, names) : undefined;
  return {
    id: o.id,
    name: o.name ?? `Opportunity ${o.id}`,
    application_id: mapped?.id ?? null,
    job: mapped?.job ?? null,
    stage: stageOf(o, names),
    status: o.archived ? 'archived' : 'active',
    applied_at: mapped?.applied_at ?? iso(o.createdAt),
    last_activity_at: iso(o.lastInteractionAt),
    source: o.sources?.[0] ?? null,
  };
}
