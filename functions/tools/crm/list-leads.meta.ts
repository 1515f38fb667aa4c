import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import { COMPANIES_PER_CALL, CRM_SETTINGS, LEADS_MAX_LIMIT } from './schemas';

/** `crm_list_leads`: leads (contacts) created or changed since a time, oldest first, with their companies when asked. */
export const crmListLeadsSpec = defineToolSpec({
  name: 'crm_list_leads',
  tokenScopes: {
    hubspot: ['crm.objects.contacts.read', 'crm.objects.companies.read'],
    attio: ['record_permission:read', 'object_configuration:read'],
  },
  description:
    "Lists the tenant CRM's leads (HubSpot contacts, Attio people) created (or, HubSpot only, changed) at or after " +
    '`since`, oldest first. Each lead: id, email, first_name, last_name, job_title, company_id, company_name, status, ' +
    `score, created_at, updated_at. At most ${LEADS_MAX_LIMIT} leads per call (continue with next_cursor; ` +
    'next_since is the since of a later read that returns only leads not read yet); with ' +
    `include_companies, each distinct company of the page is read too (at most ${COMPANIES_PER_CALL}, one request each). ` +
    'HubSpot search answers at most 10,000 leads per query and 5 requests per second.',
  inputSchema: () =>
    z.strictObject({
      since: isoTimeArg('Leads created (or changed) at or after this instant.'),
      field: z
        ._default(z.enum(['created', 'updated']), 'created')
        .check(z.describe('Which time is compared with since: created (default) or updated (HubSpot only).')),
      limit: z
        ._default(z.int().check(z.minimum(1), z.maximum(LEADS_MAX_LIMIT)), 100)
        .check(z.describe(`Leads to return, 1-${LEADS_MAX_LIMIT} (default 100).`)),
      include_companies: z
        ._default(z.boolean(), false)
        .check(z.describe("Also read the leads' companies (crm_get_company's fields).")),
      cursor: z
        .optional(z.string().check(z.minLength(1), z.maxLength(500)))
        .check(z.describe('next_cursor of a previous call with the same since and field.')),
    }),
  tags: ['crm', 'read_only'],
  sideEffects: 'none',
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
  ...CRM_SETTINGS,
});
