/**
 * The CRM family's shape (`crm_*`), the same whatever the vendor: what the tools
 * return and take. A provider module (hubspot.ts, attio.ts) maps it to its API;
 * scenarios only see this shape, so one scenario works with either vendor.
 */
import type { PageRead } from '../../runtime/http/pagination';

/** A lead's status, the family's words. HubSpot: `hs_lead_status` (these are its default options, upper-cased); Attio: the `lead_status` select's option titles. */
export const LEAD_STATUSES = [
  'new',
  'open',
  'in_progress',
  'open_deal',
  'unqualified',
  'attempted_to_contact',
  'connected',
  'bad_timing',
] as const;

export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A lead (a HubSpot contact, an Attio person): the only fields the tools return. */
export interface Lead {
  readonly id: string;
  readonly email: string | null;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly job_title: string | null;
  /** The lead's (primary) company record id, for `crm_get_company`. */
  readonly company_id: string | null;
  readonly company_name: string | null;
  readonly status: LeadStatus | null;
  /** The score written by `crm_update_lead` (0-100), null when never scored. */
  readonly score: number | null;
  /** ISO 8601 UTC. */
  readonly created_at: string;
  /** ISO 8601 UTC; null where the CRM keeps no modification time (Attio). */
  readonly updated_at: string | null;
}

/** A company: the only fields the tools return. */
export interface Company {
  readonly id: string;
  readonly name: string | null;
  readonly domain: string | null;
  readonly industry: string | null;
  /** Head count when the CRM keeps a number (HubSpot), else null. */
  readonly employees: number | null;
  /** A head-count range when the CRM keeps one (Attio: `51-250`), else null. */
  readonly employee_range: string | null;
  /** Yearly revenue in USD when the CRM keeps a number (HubSpot), else null. */
  readonly annual_revenue_usd: number | null;
  /** An estimated-revenue range when the CRM keeps one (Attio: `$10M-$50M`), else null. */
  readonly revenue_range: string | null;
  readonly country: string | null;
  readonly city: string | null;
  /** At most {@link DESCRIPTION_CHARS} characters. */
  readonly description: string | null;
  readonly linkedin_url: string | null;
  /** The company's GitHub organization login, from the custom `github_org` property/attribute. */
  readonly github_org: string | null;
  /** ISO 8601 UTC. */
  readonly created_at: string | null;
}

/** Most response bytes one lead query reads (its byte budget): 4 MiB, far below Lambda's memory. */
export const LEADS_MAX_BYTES = 4 * 1024 * 1024;

/** Longest company description returned, characters. */
export const DESCRIPTION_CHARS = 500;

/** Which time a lead query compares with `since`. */
export type LeadTime = 'created' | 'updated';

/** A lead query: what to read and how much. */
export interface LeadQuery {
  /** ISO 8601: leads created (or changed) at or after this instant. */
  readonly since: string;
  readonly field: LeadTime;
  /** Leads per page, at most the provider's {@link CrmProvider.maxPageSize}. */
  readonly pageSize: number;
  /** Most pages read. */
  readonly maxPages: number;
  /** The provider's continuation (`PageRead.next` of an earlier read), absent for the first page. */
  readonly resume?: string;
}

/** The leads read, oldest first, and how the read ended (`paginate`'s account). */
export interface LeadPage extends Omit<PageRead<unknown>, 'records'> {
  readonly leads: readonly Lead[];
}

/** What `crm_update_lead` writes. */
export interface LeadUpdate {
  readonly leadId: string;
  readonly score?: number;
  readonly status?: LeadStatus;
  readonly note?: string;
  /** The call's key (`ctx.idempotency.key`): written with the effect, looked up after an unknown outcome. */
  readonly marker: string;
}

/** What was found of a marker's writes. */
export interface MarkerLookup {
  /** The lead's properties carry the marker: the update was applied. */
  readonly updated: boolean;
  /** The id of the note carrying the marker, when one exists. */
  readonly noteId?: string;
  /**
   * Why not every note of the lead was read, when not (the marker may be on one
   * unseen): a note lookup that did not find it cannot say it was not written.
   */
  readonly notesUnread?: string;
}

/**
 * What a CRM provider does, in the family's shape. Each method makes its own
 * requests through the platform's REST client; errors are thrown as the client
 * raises them (mapped by the provider's error table).
 */
export interface CrmProvider {
  readonly name: 'hubspot' | 'attio';
  /** Most leads one page request returns (HubSpot search: 200; Attio: 500). */
  readonly maxPageSize: number;
  listLeads(query: LeadQuery): Promise<LeadPage>;
  getCompany(companyId: string): Promise<Company>;
  /** Creates the note (text ending with the marker line); returns its id. */
  createNote(leadId: string, text: string): Promise<string>;
  /** Sets score and status with the marker; the request is not repeated when its outcome is unknown. */
  setProperties(update: LeadUpdate): Promise<void>;
  /** Looks for the marker on the lead and in its notes. */
  findMarker(leadId: string, marker: string): Promise<MarkerLookup>;
  /** Requests sent so far by this provider's session. */
  readonly requests: () => number;
}
