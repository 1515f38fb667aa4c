/**
 * The secret of a vendor family (`crm_default`, `ats_default`): a JSON object
 * naming its `provider` and carrying that provider's `token`, plus the fields a
 * family allows. Validated before any request, errors naming the faulty fields
 * and what is accepted, never a value.
 */
import * as z from 'zod/mini';
import type { ToolContext } from '../context';
import { SecretInvalidError } from '../errors';
import { faultyFields, notJsonObjectProblem } from './secret-shape';

/**
 * A token, leniently: 8-4096 characters without white space, not a URL. The
 * vendor answers 401 to a wrong one; only what is certainly no token is refused here.
 */
export const vendorToken = z.string().check(
  z.regex(/^\S{8,4096}$/, 'a token without white space'),
  z.refine((value) => !/^https?:/i.test(value), 'a token, not a URL'),
);

/** How a family's secret is read. */
export interface VendorSecretSpec<P extends string, S extends { provider: P }> {
  /** The secret's name (`crm_default`). */
  readonly secretName: string;
  /** Reported as the error's `service` (`crm`). */
  readonly service: string;
  /** The accepted providers. */
  readonly providers: readonly P[];
  /** The schema of the whole payload (strict: unknown fields refused). */
  readonly schema: z.ZodMiniType<S>;
  /** The accepted forms, in words, for the error message. */
  readonly accepted: string;
}

/**
 * Reads and checks the tenant's family secret.
 *
 * @param fresh - bypass every cache (after an auth failure: the token may have been rotated).
 * @throws SecretInvalidError naming the faulty fields (or an unknown provider), never a value.
 */
export async function readVendorSecret<P extends string, S extends { provider: P }>(
  ctx: ToolContext,
  spec: VendorSecretSpec<P, S>,
  fresh = false,
): Promise<S> {
  return parseVendorSecret(await ctx.secret(spec.secretName, { fresh }), spec);
}

/**
 * Checks a family secret's parsed value (also what `etp secrets seed --ref-kind
 * inline` checks a value against before sealing it).
 *
 * @throws SecretInvalidError naming the faulty fields (or an unknown provider), never a value.
 */
export function parseVendorSecret<P extends string, S extends { provider: P }>(
  secret: Readonly<Record<string, unknown>>,
  spec: VendorSecretSpec<P, S>,
): S {
  const parsed = spec.schema.safeParse(secret);
  if (parsed.success) return parsed.data;
  const invalid = (problem: string) =>
    new SecretInvalidError(`${spec.secretName} is invalid: ${problem}. Accepted: ${spec.accepted}`, {
      service: spec.service,
    });
  const shape = notJsonObjectProblem(secret);
  if (shape) throw invalid(shape);
  if (!spec.providers.includes(secret.provider as P)) {
    throw invalid(
      typeof secret.provider === 'string'
        ? `provider must be one of ${spec.providers.join(', ')}`
        : `it names no provider (${spec.providers.join(' or ')})`,
    );
  }
  const fields = faultyFields(parsed.error.issues);
  throw invalid(`wrong or unknown fields: ${fields.join(', ')}`);
}
