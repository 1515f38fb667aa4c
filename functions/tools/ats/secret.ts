/**
 * The `ats_default` secret: `{"provider":"greenhouse","token","user_id"?}` (a
 * Harvest API key; `user_id` is the Greenhouse user notes are written on behalf
 * of) or `{"provider":"lever","token","user_id"?}` (a Lever API key; `user_id`
 * is the Lever user notes are made as, `perform_as`).
 */
import * as z from 'zod/mini';
import type { ToolContext } from '../../runtime/context';
import { readVendorSecret, type VendorSecretSpec, vendorToken } from '../../runtime/secrets/vendor-secret';

/** The secret every ATS tool reads. */
export const ATS_SECRET = 'ats_default';

const greenhouseUser = z.optional(
  z.union([z.int().check(z.positive()), z.string().check(z.regex(/^\d{1,20}$/, 'a Greenhouse user id'))]),
);
const leverUser = z.optional(z.string().check(z.regex(/^[0-9a-f-]{36}$/, 'a Lever user id (a UUID)')));

const greenhouseSecret = z.strictObject({
  provider: z.literal('greenhouse'),
  token: vendorToken,
  user_id: greenhouseUser,
});
const leverSecret = z.strictObject({ provider: z.literal('lever'), token: vendorToken, user_id: leverUser });
const atsSecretSchema = z.discriminatedUnion('provider', [greenhouseSecret, leverSecret]);

/** The parsed `ats_default` secret. */
export type AtsSecret = z.output<typeof atsSecretSchema>;

const ACCEPTED =
  '{ "provider": "greenhouse", "token": "<Harvest API key>", "user_id"?: <Greenhouse user id, needed by ats_add_note> } or { "provider": "lever", "token": "<Lever API key>", "user_id"?: "<Lever user id, needed by ats_add_note>" }; docs/ats.md';

/** How the secret is read and checked. */
export const ATS_SECRET_SPEC: VendorSecretSpec<AtsSecret['provider'], AtsSecret> = {
  secretName: ATS_SECRET,
  service: 'ats',
  providers: ['greenhouse', 'lever'],
  schema: atsSecretSchema,
  accepted: ACCEPTED,
};

/** The secret as one provider's connector reads it: `ats_default` holding that provider's form. */
export function atsProviderSecret<P extends AtsSecret['provider']>(provider: P) {
  return {
    name: ATS_SECRET,
    label: provider === 'greenhouse' ? 'Greenhouse' : 'Lever',
    service: provider,
    schema: (provider === 'greenhouse' ? greenhouseSecret : leverSecret) as unknown as z.ZodMiniType<
      Extract<AtsSecret, { provider: P }>
    >,
    accepted: ACCEPTED,
  };
}

/**
 * Reads and checks the tenant's ATS secret.
 *
 * @throws SecretInvalidError naming the faulty fields, never their values.
 */
export function readAtsSecret(ctx: ToolContext, fresh = false): Promise<AtsSecret> {
  return readVendorSecret(ctx, ATS_SECRET_SPEC, fresh);
}
