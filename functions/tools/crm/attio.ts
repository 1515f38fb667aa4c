/**
 * Attio as the CRM family's provider: REST API v2 with an access token
 * (docs.attio.com, "Authenticating requests"). Leads are people records, read
 * with "List records" (POST /v2/objects/people/records/query, `limit`/`offset`,
 * sorted by `created_at`: Attio keeps no modification time on records, so only
 * `field: created` is offered); companies by record id; writes are a PATCH of
 * the person's values (custom attributes `lead_score`, `lead_status`,
 * `etp_update_key`) and a note on the person ("Create a note").
 */
import type { ToolContext } from '../../runtime/context';
import { InvalidArgsError } from '../../runtime/errors';
import { bearerAuth } from '../../runtime/http/auth';
import { defineRestConnector, type RestSession } from '../../runtime/http/connector';
import { bodyMessage, field, iso, str } from '../../runtime/http/json-fields';
import { offsetPaginator } from '../../runtime/http/pagination';
import { readRecordPages } from '../../runtime/http/record-pages';
import type { ErrorTable } from '../../runtime/http/rest-errors';
import {
  type Company,
  type CrmProvider,
  DESCRIPTION_CHARS,
  LEAD_STATUSES,
  LEADS_MAX_BYTES,
  type Lead,
  type LeadPage,
  type LeadQuery,
  type LeadStatus,
  type LeadUpdate,
} from './family';
import { ATTIO_SCOPES } from './scopes';
import { CRM_SECRET_FAMILY, type CrmSecret } from './secret';

/** Custom attributes of people the tools use (docs/crm.md, "Attio set-up"). */
export const ATTIO_ATTRIBUTES = {
  score: 'lead_score',
  status: 'lead_status',
  marker: 'etp_update_key',
} as const;

/** Records per query page: 200 (List records takes up to 500; smaller pages keep each answer near 0.5 MB). */
export const ATTIO_PAGE = 200;

/** Notes per page of a marker lookup ("List notes": `limit` at most 50). */
const NOTES_PAGE = 50;

/** Most pages of a person's notes a marker lookup reads (500 notes). */
const NOTE_LOOKUP_PAGES = 10;

/** A note as "List notes" answers it (only what the lookup reads). */
interface AttioNote {
  id: { note_id: string };
  content_plaintext?: string;
}

type AttioSecret = Extract<CrmSecret, { provider: 'attio' }>;

/** An Attio record: values by attribute slug, each an array of value objects. */
interface AttioRecord {
  id: { record_id: string };
  created_at: string;
  values: Record<string, Record<string, unknown>[] | undefined>;
}

const attioErrors: ErrorTable = {
  message: bodyMessage,
  fieldMessages: (answer) => {
    const code = str(field(answer.body, 'code'));
    const message = bodyMessage(answer);
    return code && message ? [`${code}: ${message}`] : [];
  },
  missingScope: (answer) => {
    const scope = /\b([a-z_]+:[a-z-]+)\b/.exec(bodyMessage(answer) ?? '')?.[1];
    return scope ? `the scope ${scope}` : undefined;
  },
};

/**
 * The connector: bearer token; 25 requests per second, Attio's limit for
 * writes ("Handling rate limits": 100 reads and 25 writes per second), which
 * answers 429 with `Retry-After` as an HTTP date.
 */
export const attio = defineRestConnector<AttioSecret>({
  scopes: ATTIO_SCOPES,
  service: 'attio',
  label: 'Attio',
  secret: CRM_SECRET_FAMILY.provider('attio'),
  baseUrl: () => process.env.ATTIO_API_URL || 'https://api.attio.com',
  authenticator: () => bearerAuth((secret: AttioSecret) => secret.token),
  headers: { accept: 'application/json' },
  rateLimit: { burst: 25, perSecond: 25 },
  errors: attioErrors,
});

/** The provider for one call. */
export function attioProvider(
  ctx: ToolContext,
  session: RestSession<AttioSecret> = attio.session(ctx),
): CrmProvider {
  return {
    name: 'attio',
    maxPageSize: ATTIO_PAGE,
    requests: () => session.requests,
    async listLeads(query: LeadQuery): Promise<LeadPage> {
      if (query.field === 'updated') {
        throw new InvalidArgsError(
          'Attio keeps no modification time on records: crm_list_leads takes field "created" with an Attio CRM',
        );
      }
      // Attio takes limit and offset in the JSON body; the offset paginator keeps them in the query.
      const { records, ...read } = await readRecordPages<AttioRecord>(
        {
          request: (request) => {
            const { limit, offset, ...rest } = request.query ?? {};
            return session.request({
              ...request,
              query: rest,
              body: { ...(request.body as Record<string, unknown>), limit, offset },
            });
          },
        },
        {
          method: 'POST',
          path: '/v2/objects/people/records/query',
          idempotent: true,
          body: {
            filter: { created_at: { $gte: query.since } },
            sorts: [{ attribute: 'created_at', direction: 'asc' }],
          },
        },
        {
          paginator: offsetPaginator({ pageSize: query.pageSize }),
          recordsAt: 'data',
          maxPages: query.maxPages,
          maxBytes: LEADS_MAX_BYTES,
          resume: query.resume,
        },
        ctx.deadline,
      );
      return { ...read, leads: records.map(lead) };
    },
    async getCompany(companyId: string): Promise<Company> {
      const body = await session.json<{ data: AttioRecord }>({
        method: 'GET',
        path: `/v2/objects/companies/records/${encodeURIComponent(companyId)}`,
      });
      return company(body.data);
    },
    async createNote(leadId: string, text: string): Promise<string> {
      const body = await session.json<{ data: { id: { note_id: string } } }>({
        method: 'POST',
        path: '/v2/notes',
        body: {
          data: {
            parent_object: 'people',
            parent_record_id: leadId,
            title: 'Lead qualification',
            format: 'plaintext',
            content: text,
          },
        },
      });
      return body.data.id.note_id;
    },
    async setProperties(update: LeadUpdate): Promise<void> {
      await session.json({
        method: 'PATCH',
        path: `/v2/objects/people/records/${encodeURIComponent(update.leadId)}`,
        body: {
          data: {
            values: {
              ...(update.score === undefined ? {} : { [ATTIO_ATTRIBUTES.score]: update.score }),
              ...(update.status === undefined ? {} : { [ATTIO_ATTRIBUTES.status]: update.status }),
              [ATTIO_ATTRIBUTES.marker]: update.marker,
            },
          },
        },
      });
    },
    async findMarker(leadId: string, marker: string) {
      const person = await session.json<{ data: AttioRecord }>({
        method: 'GET',
        path: `/v2/objects/people/records/${encodeURIComponent(leadId)}`,
      });
      const updated = text(person.data, ATTIO_ATTRIBUTES.marker) === marker;
      const carries = (n: AttioNote) => (n.content_plaintext ?? '').includes(marker);
      // "List notes" pages by limit (at most 50) and offset: every page is read, not only the first.
      const read = await readRecordPages<AttioNote>(
        session,
        { method: 'GET', path: '/v2/notes', query: { parent_object: 'people', parent_record_id: leadId } },
        {
          paginator: offsetPaginator({ pageSize: NOTES_PAGE }),
          recordsAt: 'data',
          maxPages: NOTE_LOOKUP_PAGES,
          maxBytes: LEADS_MAX_BYTES,
          until: (page) => page.some(carries),
        },
        ctx.deadline,
      );
      const note = read.records.find(carries);
      if (note) return { updated, noteId: note.id.note_id };
      // Not every note was read: the note may be there, unseen (the caller must not write it
      // again); the person's own marker is known all the same.
      if (!read.complete) {
        return {
          updated,
          notesUnread: `only ${read.pages} pages of the person's notes could be read (${read.stoppedBy})`,
        };
      }
      return { updated };
    },
  };
}

/** The first active value of an attribute. */
function first(record: AttioRecord, slug: string): Record<string, unknown> | undefined {
  return record.values[slug]?.[0];
}

function text(record: AttioRecord, slug: string): string | null {
  const value = first(record, slug)?.value;
  return typeof value === 'string' ? value : null;
}

function option(record: AttioRecord, slug: string): string | null {
  return str(field(first(record, slug)?.option, 'title')) ?? null;
}

function lead(person: AttioRecord): Lead {
  const name = first(person, 'name');
  const status = option(person, ATTIO_ATTRIBUTES.status);
  const score = first(person, ATTIO_ATTRIBUTES.score)?.value;
  return {
    id: person.id.record_id,
    email: str(first(person, 'email_addresses')?.email_address) ?? null,
    first_name: str(name?.first_name) ?? null,
    last_name: str(name?.last_name) ?? null,
    job_title: text(person, 'job_title'),
    company_id: str(first(person, 'company')?.target_record_id) ?? null,
    // Attio references the company by id only: include_companies reads its name.
    company_name: null,
    status: status && (LEAD_STATUSES as readonly string[]).includes(status) ? (status as LeadStatus) : null,
    score: typeof score === 'number' ? score : null,
    created_at: iso(person.created_at) ?? '',
    updated_at: null,
  };
}

function company(record: AttioRecord): Company {
  const location = first(record, 'primary_location');
  const description = text(record, 'description');
  return {
    id: record.id.record_id,
    name: text(record, 'name'),
    domain: str(first(record, 'domains')?.domain) ?? null,
    industry: option(record, 'categories'),
    employees: null,
    employee_range: option(record, 'employee_range'),
    annual_revenue_usd: null,
    revenue_range: option(record, 'estimated_arr_usd'),
    country: str(location?.country_code) ?? null,
    city: str(location?.locality) ?? null,
    description: description ? description.slice(0, DESCRIPTION_CHARS) : null,
    linkedin_url: text(record, 'linkedin'),
    github_org: text(record, 'github_org'),
    created_at: iso(record.created_at),
  };
}
