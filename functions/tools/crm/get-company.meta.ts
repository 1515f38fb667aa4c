import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { DESCRIPTION_CHARS } from './family';
import { CRM_SETTINGS, recordIdArg } from './schemas';

/** `crm_get_company`: one company record of the tenant's CRM. */
export const crmGetCompanySpec = defineToolSpec({
  name: 'crm_get_company',
  tokenScopes: {
    hubspot: ['crm.objects.companies.read'],
    attio: ['record_permission:read', 'object_configuration:read'],
  },
  description:
    "Reads one company of the tenant's CRM (HubSpot or Attio) by id (a lead's company_id): name, domain, industry, " +
    'employees or employee_range, annual_revenue_usd or revenue_range, country, city, description (cut at ' +
    `${DESCRIPTION_CHARS} characters), linkedin_url, github_org (the custom github_org field), created_at. One request.`,
  inputSchema: () => z.strictObject({ company_id: recordIdArg('The company record id') }),
  tags: ['crm', 'read_only'],
  sideEffects: 'none',
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
  ...CRM_SETTINGS,
});
