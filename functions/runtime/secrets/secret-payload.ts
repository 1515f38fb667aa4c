/**
 * Checks a connector's secret payload against its zod schema, the way the AWS
 * and Slack secrets are checked: a failure names the faulty fields and the
 * accepted forms, never a value.
 */
import type * as z from 'zod/mini';
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
  readonly schema: z.ZodMiniType<S>;
  /** The accepted forms (`{ "token": "ghp_…" } or { "app_id", "private_key", "installation_id" }`). */
  readonly accepted: string;
}

/**
 * The payload parsed by `spec.schema`.
 *
 * @throws SecretInvalidError naming the faulty fields (or saying it is not a JSON object) and the accepted forms.
 * @example parseSecretPayload({ token: 'ghp_…' }, githubSecretSpec) // { token: 'ghp_…' }
 */
export function parseSecretPayload<S>(raw: Readonly<Record<string, unknown>>, spec: SecretPayloadSpec<S>): S {
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const shape = notJsonObjectProblem(raw);
  const problem = shape ? `: ${shape}` : ` in: ${faultyFields(parsed.error.issues).join(', ')}`;
  throw new SecretInvalidError(
    `${spec.label} secret ${spec.name} is invalid${problem}. Accepted: ${spec.accepted}`,
    {
      service: spec.service,
    },
  );
}
