/**
 * The `ats_default` secret: `{"provider":"greenhouse","token","user_id"?}` (a
 * Harvest API key; `user_id` is the Greenhouse user notes are written on behalf
 * of) or `{"provider":"lever","token","user_id"?}` (a Lever API key; `user_id`
 * is the Lever user notes are made as, `perform_as`).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { vendorFamilySecret, vendorToken } from '../../runtime/secrets/secret-payload';

/** The secret every ATS tool reads. */
export const ATS_SECRET = 'ats_default';

const greenhouse = builtOnce(() =>
  z.strictObject({
    provider: z.literal('greenhouse'),
    token: vendorToken(),
    user_id: z.optional(
      z.union([z.int().check(z.positive()), z.string().check(z.regex(/^\d{1,20}$/, 'a Greenhouse user id'))]),
    ),
  }),
);
const lever = builtOnce(() =>
  z.strictObject({
    provider: z.literal('lever'),
    token: vendorToken(),
    user_id: z.optional(z.string().check(z.regex(/^[0-9a-f-]{36}$/, 'a Lever user id (a UUID)'))),
  }),
);

/** The parsed `ats_default` secret. */
export type AtsSecret = z.output<ReturnType<typeof greenhouse>> | z.output<ReturnType<typeof lever>>;

/** The family's secret: its spec, each provider's, and its read. */
export const ATS_SECRET_FAMILY = vendorFamilySecret<AtsSecret>({
  name: ATS_SECRET,
  label: 'ATS',
  service: 'ats',
  accepted:
    '{ "provider": "greenhouse", "token": "<Harvest API key>", "user_id"?: <Greenhouse user id, needed by ats_add_note> } or { "provider": "lever", "token": "<Lever API key>", "user_id"?: "<Lever user id, needed by ats_add_note>" }; docs/ats.md',
  providers: {
    greenhouse: {
      label: 'Greenhouse',
      schema: greenhouse,
      example: { provider: 'greenhouse', token: 'example-harvest-key-0123', user_id: 4080 },
    },
    lever: { label: 'Lever', schema: lever, example: { provider: 'lever', token: 'example-lever-key-0123' } },
  },
});
