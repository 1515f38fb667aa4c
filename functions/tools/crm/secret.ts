/**
 * The `crm_default` secret: `{"provider":"hubspot","token"}` (a private app's
 * access token) or `{"provider":"attio","token"}` (an Attio access token).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { vendorFamilySecret, vendorToken } from '../../runtime/secrets/secret-payload';

/** The secret every CRM tool reads. */
export const CRM_SECRET = 'crm_default';

const hubspot = builtOnce(() => z.strictObject({ provider: z.literal('hubspot'), token: vendorToken() }));
const attio = builtOnce(() => z.strictObject({ provider: z.literal('attio'), token: vendorToken() }));

/** The parsed `crm_default` secret. */
export type CrmSecret = z.output<ReturnType<typeof hubspot>> | z.output<ReturnType<typeof attio>>;

/** The family's secret: its spec, each provider's, and its read. */
export const CRM_SECRET_FAMILY = vendorFamilySecret<CrmSecret>({
  name: CRM_SECRET,
  label: 'CRM',
  service: 'crm',
  accepted:
    '{ "provider": "hubspot", "token": "pat-na1-…" } (a private app access token) or { "provider": "attio", "token": "…" } (an Attio access token); docs/crm.md',
  providers: {
    hubspot: {
      label: 'HubSpot',
      schema: hubspot,
      example: { provider: 'hubspot', token: 'example-hubspot-token-0123' },
    },
    attio: {
      label: 'Attio',
      schema: attio,
      example: { provider: 'attio', token: 'example-attio-token-0123' },
    },
  },
});
