/**
 * The one payload checker of the connectors' secrets, the way the AWS and Slack
 * secrets are checked: a failure names the faulty fields (or the unknown
 * provider) and the accepted forms, never a value. A single-vendor connector's
 * secret (`github_default`) is one {@link SecretPayloadSpec}; a vendor family's
 * (`crm_default`, `ats_default`: the payload names its `provider`) is one
 * {@link vendorFamilySecret}, which gives the family's spec and each provider's.
 */
import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import type { ToolContext } from '../context';
import { SecretInvalidError } from '../errors';
import { faultyFields, notJsonObjectProblem } from './secret-shape';

/** A connector's secret: its name, its display label, its schema and the accepted forms in words. */
export interface SecretPayloadSpec<S> {
  /** `github_default`. */
  readonly name: string;
  /** For messages (`GitHub`). */
  readonly label: string;
  /** Reported as the error's `service`. */
  readonly service: string;
  /** The schema of the whole payload (strict: unknown fields refused). */
  readonly schema: z.ZodMiniType<S>;
  /** The accepted forms (`{ "token": "ghp_…" } or { "app_id", "private_key", "installation_id" }`). */
  readonly accepted: string;
  /**
   * A made-up payload the schema accepts (never a real credential): what a
   * generated tool's test (`etp dev new-tool --kind rest`) and the suite's fakes
   * seed as the tenant's secret, so a test follows the connector's own form.
   */
  readonly example: S;
  /** A vendor family's providers: a payload naming none of them is refused as such. @default none */
  readonly providers?: readonly string[];
}

/**
 * A token, leniently: 8-4096 characters without white space, not a URL. The
 * vendor answers 401 to a wrong one; only what is certainly no token is refused here.
 */
export const vendorToken = builtOnce(() =>
  z.string().check(
    z.regex(/^\S{8,4096}$/, 'a token of 8-4096 characters without white space'),
    z.refine((value) => !/^https?:/i.test(value), 'a token, not a URL'),
  ),
);

/** Why a family payload names no accepted provider, or undefined when it names one. */
function providerProblem(
  raw: Readonly<Record<string, unknown>>,
  providers: readonly string[] | undefined,
): string | undefined {
  if (!providers || providers.includes(raw.provider as string)) return undefined;
  return typeof raw.provider === 'string'
    ? `provider must be one of ${providers.join(', ')}`
    : `it names no provider (${providers.join(' or ')})`;
}

/**
 * The payload parsed by `spec.schema` (also what `etp secrets seed --ref-kind
 * inline` checks a value against before sealing it).
 *
 * @throws SecretInvalidError naming the faulty fields (or saying it is not a JSON
 *   object, or naming the accepted providers) and the accepted forms; never a value.
 * @example parseSecretPayload({ token: 'ghp_…' }, githubSecretSpec) // { token: 'ghp_…' }
 */
export function parseSecretPayload<S>(raw: Readonly<Record<string, unknown>>, spec: SecretPayloadSpec<S>): S {
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const shape = notJsonObjectProblem(raw) ?? providerProblem(raw, spec.providers);
  const problem = shape ? `: ${shape}` : ` in: ${faultyFields(parsed.error.issues, raw).join(', ')}`;
  throw new SecretInvalidError(
    `${spec.label} secret ${spec.name} is invalid${problem}. Accepted: ${spec.accepted}`,
    {
      service: spec.service,
    },
  );
}

/**
 * Reads and checks the tenant's secret.
 *
 * @param fresh - bypass every cache (after an auth failure: the token may have been rotated).
 * @throws SecretInvalidError as {@link parseSecretPayload}.
 */
export async function readSecretPayload<S>(
  ctx: ToolContext,
  spec: SecretPayloadSpec<S>,
  fresh = false,
): Promise<S> {
  return parseSecretPayload(await ctx.secret(spec.name, { fresh }), spec);
}

/**
 * `spec` whose `schema` is `schema()`, called when the property is first read
 * (as `defineToolSpec` does for a tool's `inputSchema`): a connector's schemas are
 * built when one of its payloads is parsed, not when its module loads (zod builds
 * a schema eagerly, and a function's cold start pays for every module-scope one).
 * `schema` should be `builtOnce(…)`: the getter calls it on every read.
 *
 * @example
 * secret: withSchemaBuiltOnRead({ name: 'pagerduty_default', … }, builtOnce(() => z.union([…])))
 */
export function withSchemaBuiltOnRead<S>(
  spec: Omit<SecretPayloadSpec<S>, 'schema'>,
  schema: () => z.ZodMiniType<S>,
): SecretPayloadSpec<S> {
  return Object.defineProperty({ ...spec }, 'schema', {
    get: schema,
    enumerable: true,
  }) as SecretPayloadSpec<S>;
}

/** One provider of a vendor family: its label, the strict schema of its payload form and an example of it. */
export interface FamilyProvider<S> {
  /** For messages (`HubSpot`). */
  readonly label: string;
  /**
   * The strict schema, built when a payload of the family is first parsed (its
   * provider module is imported by every function knowing the family's tools,
   * the dispatcher's and the engine's included, whose cold start would build it).
   */
  readonly schema: () => z.ZodMiniType<S>;
  /** A made-up payload `schema` accepts ({@link SecretPayloadSpec.example}). */
  readonly example: S;
}

/** A vendor family's secret, as {@link vendorFamilySecret} builds it. */
export interface VendorFamilySecret<S extends { provider: string }> {
  /** The family's spec: any provider's form (what the family's tools read first). */
  readonly spec: SecretPayloadSpec<S>;
  /** One provider's spec (its connector's session re-reads it after a 401). */
  provider<P extends S['provider']>(name: P): SecretPayloadSpec<Extract<S, { provider: P }>>;
  /** Reads and checks the tenant's secret in any provider's form. */
  read(ctx: ToolContext, fresh?: boolean): Promise<S>;
}

/**
 * The secret of a vendor family (`crm_default`: `{"provider":"hubspot","token"}`
 * or `{"provider":"attio","token"}`): one secret name, one form per provider,
 * told apart by `provider`.
 *
 * @example
 * const CRM = vendorFamilySecret({ name: 'crm_default', label: 'CRM', service: 'crm', accepted: '…',
 *   providers: { hubspot: { label: 'HubSpot', schema: hubspot }, attio: { label: 'Attio', schema: attio } } });
 * const secret = await CRM.read(ctx); // { provider: 'hubspot', token: '…' }
 */
export function vendorFamilySecret<S extends { provider: string }>(family: {
  readonly name: string;
  readonly label: string;
  readonly service: string;
  readonly accepted: string;
  readonly providers: { readonly [P in S['provider']]: FamilyProvider<Extract<S, { provider: P }>> };
}): VendorFamilySecret<S> {
  const names = Object.keys(family.providers) as S['provider'][];
  const spec = withSchemaBuiltOnRead<S>(
    {
      name: family.name,
      label: family.label,
      service: family.service,
      accepted: family.accepted,
      // The first provider's: a payload of any provider is one of the family's.
      example: family.providers[names[0] as S['provider']].example as S,
      providers: names,
    },
    builtOnce(() => {
      const schemas = names.map((name) => family.providers[name].schema()) as unknown as [
        z.ZodMiniObject,
        ...z.ZodMiniObject[],
      ];
      return z.discriminatedUnion('provider', schemas) as unknown as z.ZodMiniType<S>;
    }),
  );
  return {
    spec,
    provider(name) {
      const provider = family.providers[name];
      return withSchemaBuiltOnRead(
        {
          name: family.name,
          label: provider.label,
          service: name,
          accepted: family.accepted,
          example: provider.example,
          providers: [name],
        },
        provider.schema,
      );
    },
    read: (ctx, fresh = false) => readSecretPayload(ctx, spec, fresh),
  };
}
