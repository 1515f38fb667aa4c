/**
 * HubSpot as the CRM family's provider: CRM API v3 with a private app's access
 * token (developers.hubspot.com, "Private apps"). Leads are contacts, read with
 * the search endpoint (POST /crm/v3/objects/contacts/search, `after` cursors in
 * `paging.next.after`, at most 200 per page and 10,000 per query, and its own
 * limit of five requests per second per account, "CRM search" → "Limitations");
 * companies by id; writes are a PATCH of the contact's properties and a note
 * associated with the contact (association type 202, "Notes").
 */
import type { ToolContext } from '../../runtime/context';
import { bearerAuth } from '../../runtime/http/auth';
import { defineRestConnector, type RestRequest, type RestSession } from '../../runtime/http/connector';
import { bodyMessage, field, iso, str } from '../../runtime/http/json-fields';
import { cursorPaginator } from '../../runtime/http/pagination';
import { sharedRateLimiter } from '../../runtime/http/rate-limit';
import { quotaHeaders } from '../../runtime/http/rate-limit-headers';
import { readRecordPages } from '../../runtime/http/record-pages';
import type { ErrorAnswer, ErrorTable } from '../../runtime/http/rest-errors';
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
import { HUBSPOT_SCOPES } from './scopes';
import { CRM_SECRET_FAMILY, type CrmSecret } from './secret';

/** Custom contact properties the tools use (docs/crm.md, "HubSpot set-up"). */
export const HUBSPOT_PROPERTIES = { score: 'etp_lead_score', marker: 'etp_update_key' } as const;

/** Contact properties a lead is read from. */
const LEAD_PROPERTIES = [
  'email',
  'firstname',
  'lastname',
  'jobtitle',
  'company',
  'associatedcompanyid',
  'hs_lead_status',
  HUBSPOT_PROPERTIES.score,
  'createdate',
  'lastmodifieddate',
];

/** Company properties a company is read from. */
const COMPANY_PROPERTIES = [
  'name',
  'domain',
  'industry',
  'numberofemployees',
  'annualrevenue',
  'country',
  'city',
  'description',
  'linkedin_company_page',
  'github_org',
  'createdate',
];

/** Most results of one search page ("CRM search": `limit` at most 200). */
export const HUBSPOT_SEARCH_PAGE = 200;

/** Most results one search query pages through ("CRM search" → "Limitations": 10,000; past it HubSpot answers 400). */
export const HUBSPOT_SEARCH_MAX_RESULTS = 10_000;

/** The search endpoints' own limit: five requests per second per account ("CRM search" → "Limitations"). */
const SEARCH_RATE = { burst: 5, perSecond: 5 };

/** Note → contact association ("Associations v4": HUBSPOT_DEFINED type 202). */
const NOTE_TO_CONTACT = 202;

type HubSpotSecret = Extract<CrmSecret, { provider: 'hubspot' }>;

/** A HubSpot object as the API returns it. */
interface HubSpotObject {
  id: string;
  properties: Record<string, string | null | undefined>;
  associations?: { notes?: { results?: { id: string }[]; paging?: { next?: { after?: string } } } };
}

const hubspotErrors: ErrorTable = {
  message: bodyMessage,
  fieldMessages: (answer) => validationMessages(answer),
  missingScope: (answer) => {
    const errors = field(answer.body, 'errors');
    const scopes = Array.isArray(errors)
      ? errors.flatMap((e) => {
          const wanted = field(field(e, 'context'), 'requiredGranularScopes');
          return Array.isArray(wanted) ? wanted.map(String) : [];
        })
      : [];
    return scopes.length > 0 ? `the scope ${scopes.join(' or ')}` : undefined;
  },
};

/**
 * The connector: bearer token, HubSpot's own quota headers
 * (`x-hubspot-ratelimit-remaining` over `-interval-milliseconds`, "Usage details"),
 * 10 requests per second (private apps get 100-190 per 10 seconds by tier).
 */
export const hubspot = defineRestConnector<HubSpotSecret>({
  scopes: HUBSPOT_SCOPES,
  service: 'hubspot',
  label: 'HubSpot',
  secret: CRM_SECRET_FAMILY.provider('hubspot'),
  baseUrl: () => process.env.HUBSPOT_API_URL || 'https://api.hubapi.com',
  authenticator: () => bearerAuth((secret: HubSpotSecret) => secret.token),
  headers: { accept: 'application/json' },
  rateLimit: { burst: 10, perSecond: 10 },
  quota: quotaHeaders({
    remaining: 'x-hubspot-ratelimit-remaining',
    reset: 'x-hubspot-ratelimit-interval-milliseconds',
    resetUnit: 'delta_ms',
  }),
  errors: hubspotErrors,
});

/** The provider for one call. */
export function hubspotProvider(
  ctx: ToolContext,
  session: RestSession<HubSpotSecret> = hubspot.session(ctx),
): CrmProvider {
  // Every search request takes a token of the account's search bucket as well as the host's.
  const searching = {
    request: async (request: RestRequest) => {
      await sharedRateLimiter.acquire(`${ctx.tenant}\u0000hubspot-search`, SEARCH_RATE, {
        remainingMs: ctx.deadline.remainingMs(),
        signal: ctx.deadline.signal,
        service: 'hubspot',
      });
      return session.request(request);
    },
  };
  return {
    name: 'hubspot',
    maxPageSize: HUBSPOT_SEARCH_PAGE,
    requests: () => session.requests,
    async listLeads(query: LeadQuery): Promise<LeadPage> {
      const property = query.field === 'updated' ? 'lastmodifieddate' : 'createdate';
      const { records, ...read } = await readRecordPages<HubSpotObject>(
        searching,
        {
          method: 'POST',
          path: '/crm/v3/objects/contacts/search',
          idempotent: true,
          body: {
            filterGroups: [
              {
                filters: [
                  { propertyName: property, operator: 'GTE', value: String(Date.parse(query.since)) },
                ],
              },
            ],
            sorts: [{ propertyName: property, direction: 'ASCENDING' }],
            properties: LEAD_PROPERTIES,
          },
        },
        {
          paginator: cursorPaginator({
            cursorParam: 'after',
            placement: 'body',
            pageSizeParam: 'limit',
            pageSize: query.pageSize,
            maxEnd: HUBSPOT_SEARCH_MAX_RESULTS,
            nextCursor: (body) => str(field(field(field(body, 'paging'), 'next'), 'after')),
          }),
          recordsAt: 'results',
          maxPages: query.maxPages,
          maxBytes: LEADS_MAX_BYTES,
          resume: query.resume,
        },
        ctx.deadline,
      );
      return { ...read, leads: records.map(lead) };
    },
    async getCompany(companyId: string): Promise<Company> {
      const body = await session.json<HubSpotObject>({
        method: 'GET',
        path: `/crm/v3/objects/companies/${encodeURIComponent(companyId)}`,
        query: { properties: COMPANY_PROPERTIES.join(',') },
      });
      return company(body);
    },
    async createNote(leadId: string, text: string): Promise<string> {
      const body = await session.json<HubSpotObject>({
        method: 'POST',
        path: '/crm/v3/objects/notes',
        body: {
          properties: { hs_timestamp: new Date().toISOString(), hs_note_body: text },
          associations: [
            {
              to: { id: leadId },
              types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: NOTE_TO_CONTACT }],
            },
          ],
        },
      });
      return body.id;
    },
    async setProperties(update: LeadUpdate): Promise<void> {
      await session.json({
        method: 'PATCH',
        path: `/crm/v3/objects/contacts/${encodeURIComponent(update.leadId)}`,
        body: {
          properties: {
            ...(update.score === undefined ? {} : { [HUBSPOT_PROPERTIES.score]: String(update.score) }),
            ...(update.status === undefined ? {} : { hs_lead_status: update.status.toUpperCase() }),
            [HUBSPOT_PROPERTIES.marker]: update.marker,
          },
        },
      });
    },
    async findMarker(leadId: string, marker: string) {
      // The contact with its note associations: consistent at once, unlike search's index.
      const contact = await session.json<HubSpotObject>({
        method: 'GET',
        path: `/crm/v3/objects/contacts/${encodeURIComponent(leadId)}`,
        query: { properties: HUBSPOT_PROPERTIES.marker, associations: 'notes' },
      });
      const updated = contact.properties[HUBSPOT_PROPERTIES.marker] === marker;
      const associated = contact.associations?.notes;
      // The GET embeds at most 100 associations per type, then `paging.next` (HubSpot's v3
      // association change of January 2021): notes past them are not read here.
      const notesUnread = associated?.paging?.next
        ? `the contact has more than ${associated.results?.length ?? 0} notes and only those were read; the rest were not checked`
        : undefined;
      const unread = notesUnread === undefined ? {} : { notesUnread };
      const noteIds = (associated?.results ?? []).map((n) => n.id).slice(-100);
      if (noteIds.length === 0) return { updated, ...unread };
      const notes = await session.json<{ results?: HubSpotObject[] }>({
        method: 'POST',
        path: '/crm/v3/objects/notes/batch/read',
        idempotent: true,
        body: { properties: ['hs_note_body'], inputs: noteIds.map((id) => ({ id })) },
      });
      const note = (notes.results ?? []).find((n) => (n.properties.hs_note_body ?? '').includes(marker));
      return note ? { updated, noteId: note.id } : { updated, ...unread };
    },
  };
}

/** A contact as a lead. */
function lead(contact: HubSpotObject): Lead {
  const p = contact.properties;
  const status = (p.hs_lead_status ?? '').toLowerCase();
  const score = p[HUBSPOT_PROPERTIES.score];
  return {
    id: contact.id,
    email: p.email ?? null,
    first_name: p.firstname ?? null,
    last_name: p.lastname ?? null,
    job_title: p.jobtitle ?? null,
    company_id: p.associatedcompanyid || null,
    company_name: p.company ?? null,
    status: (LEAD_STATUSES as readonly string[]).includes(status) ? (status as LeadStatus) : null,
    score: score === null || score === undefined || score === '' ? null : Number(score),
    created_at: iso(p.createdate) ?? '',
    updated_at: iso(p.lastmodifieddate),
  };
}

function company(body: HubSpotObject): Company {
  const p = body.properties;
  return {
    id: body.id,
    name: p.name ?? null,
    domain: p.domain ?? null,
    industry: p.industry ?? null,
    employees: num(p.numberofemployees),
    employee_range: null,
    annual_revenue_usd: num(p.annualrevenue),
    revenue_range: null,
    country: p.country ?? null,
    city: p.city ?? null,
    description: p.description ? p.description.slice(0, DESCRIPTION_CHARS) : null,
    linkedin_url: p.linkedin_company_page ?? null,
    github_org: p.github_org ?? null,
    created_at: iso(p.createdate),
  };
}

/** A VALIDATION_ERROR's property messages ("Property values were not valid: [{…name, message}]"). */
function validationMessages(answer: ErrorAnswer): string[] {
  const message = bodyMessage(answer) ?? '';
  const start = message.indexOf('[');
  if (start < 0) return [];
  try {
    const items = JSON.parse(message.slice(start)) as { name?: string; message?: string }[];
    return items.map((item) => `${item.name ?? '?'}: ${item.message ?? 'invalid'}`);
  } catch {
    return [];
  }
}

function num(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}
