/**
 * Argument schemas and settings shared by the CRM tools' spec files (zod/mini, no client).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { LEAD_STATUSES } from './family';
import { CRM_SECRET } from './secret';

/** Most leads one `crm_list_leads` call returns. */
export const LEADS_MAX_LIMIT = 1_000;

/** Most distinct companies `include_companies` reads in one call (one request each). */
export const COMPANIES_PER_CALL = 25;

/** A CRM record id: HubSpot's numeric ids, Attio's UUIDs. */
export const recordIdArg = (what: string) =>
  z.string().check(
    z.regex(/^(?:\d{1,20}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/, {
      error: `${what}: a HubSpot record id (digits, such as "512") or an Attio record id (a UUID)`,
    }),
    z.describe(`${what} (as crm_list_leads returns it).`),
  );

/** A lead status in the family's words. */
export const leadStatusArg = builtOnce(() => z.enum(LEAD_STATUSES));

/** Settings every CRM tool shares. */
export const CRM_SETTINGS = {
  service: 'crm',
  requiresSecrets: [CRM_SECRET],
  iam: [],
} as const;
