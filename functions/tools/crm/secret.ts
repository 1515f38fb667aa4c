/**
 * The `crm_default` secret: `{"provider":"hubspot","token"}` (a private app's
 * access token) or `{"provider":"attio","token"}` (an Attio access token).
 */
import * as z from 'zod/mini';
import type { ToolContext } from '../../runtime/context';
import { readVendorSecret, type VendorSecretSpec, vendorToken } from '../../runtime/secrets/vendor-secret';

/** The secret every CRM tool reads. */
export const CRM_SECRET = 'crm_default';

const hubspotSecret = z.strictObject({ provider: z.literal('hubspot'), token: vendorToken });
const attioSecret = z.strictObject({ provider: z.literal('attio'), token: vendorToken });
const crmSecretSchema = z.discriminatedUnion('provider', [hubspotSecret, attioSecret]);

/** The parsed `crm_default` secret. */
export type CrmSecret = z.output<typeof crmSecretSchema>;

const ACCEPTED =
  '{ "provider": "hubspot", "token": "pat-na1-…" } (a private app access token) or { "provider": "attio", "token": "…" } (an Attio access token); docs/crm.md';

/** How the secret is read and checked. */
export const CRM_SECRET_SPEC: VendorSecretSpec<CrmSecret['provider'], CrmSecret> = {
  secretName: CRM_SECRET,
  service: 'crm',
  providers: ['hubspot', 'attio'],
  schema: crmSecretSchema,
  accepted: ACCEPTED,
};

/**
 * The secret as one provider's connector reads it (its session re-reads it
 * after a 401): `crm_default` holding that provider's form.
 */
export function crmProviderSecret<P extends CrmSecret['provider']>(provider: P) {
  return {
    name: CRM_SECRET,
    label: provider === 'hubspot' ? 'HubSpot' : 'Attio',
    service: provider,
    schema: (provider === 'hubspot' ? hubspotSecret : attioSecret) as unknown as z.ZodMiniType<
      Extract<CrmSecret, { provider: P }>
    >,
    accepted: ACCEPTED,
  };
}

/**
 * Reads and checks the tenant's CRM secret.
 *
 * @throws SecretInvalidError naming the faulty fields, never their values.
 */
export function readCrmSecret(ctx: ToolContext, fresh = false): Promise<CrmSecret> {
  return readVendorSecret(ctx, CRM_SECRET_SPEC, fresh);
}
