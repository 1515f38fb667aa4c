import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import { InvalidArgsError } from '../errors';
import { SECRET_NAME, TENANT_ID } from '../ids';
import { redact, redactString } from '../redact';
import { MAX_ARGS_DEPTH, tooDeepAt, violationsOf } from '../schema-violations';
import '../zod-locale';

/** Reference kinds a provider exists for (docs/design.md, "Secret references"). */
export const REF_KINDS = ['env', 'secrets_manager'] as const;

/** One supported reference kind. */
export type RefKind = (typeof REF_KINDS)[number];

/**
 * A row of the secret-reference table: where a tenant's secret lives, never the
 * secret itself. Keys: `tenant_id` (partition), `secret_name` (sort).
 * Timestamps are ISO 8601 UTC.
 */
export interface SecretReference {
  readonly tenant_id: string;
  readonly secret_name: string;
  /** Read as a string: a row written by hand may hold a kind no provider handles (`unsupported_ref_kind`). */
  readonly ref_kind: string;
  /** `env`: an environment variable name; `secrets_manager`: a secret ARN. */
  readonly ref_value: string;
  readonly metadata?: Record<string, unknown>;
  readonly notes?: string;
  readonly created_by?: string;
  readonly created_at?: string;
  readonly updated_at?: string;
}

/** Where secret-reference rows are kept: the DynamoDB table, or the embedded store of local runs. */
export interface SecretReferenceStore {
  /** The row, or undefined when the tenant has none for the name. */
  get(tenantId: string, secretName: string): Promise<SecretReference | undefined>;
  /** Rows of one tenant, or of every tenant, sorted by tenant then name. */
  list(tenantId?: string): Promise<SecretReference[]>;
  /** Creates or replaces a row (keeping `created_at`/`created_by` of a replaced row). */
  put(reference: SecretReference): Promise<SecretReference>;
  /** Deletes a row; false when there was none. */
  delete(tenantId: string, secretName: string): Promise<boolean>;
}

const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
/** Secrets Manager ARN (AWS docs, "Secrets Manager ARNs"): the secret name ends with `-` and 6 random chars. */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;

/** Built on first use: a tool function reads references, it never validates one (cold start). */
const referenceInput = builtOnce(() =>
  z.strictObject({
    tenant_id: z.string().check(z.regex(TENANT_ID.pattern, TENANT_ID.accepted)),
    secret_name: z.string().check(z.regex(SECRET_NAME.pattern, SECRET_NAME.accepted)),
    ref_kind: z.enum(REF_KINDS),
    ref_value: z.string().check(z.minLength(1)),
    metadata: z.optional(z.record(z.string(), z.unknown())),
    notes: z.optional(z.string().check(z.maxLength(1024))),
    created_by: z.optional(z.string().check(z.maxLength(256))),
  }),
);

/** What `etp secrets seed` and the store accept for a new row. */
export type SecretReferenceInput = z.input<ReturnType<typeof referenceInput>>;

/**
 * A row's own fields, without the timestamps a store sets itself: stores validate
 * this, so a row read from a store can be changed and written back with `put`.
 *
 * @example referenceInputOf({ ...row, notes: 'rotated' }) // row without created_at/updated_at
 */
export function referenceInputOf(reference: SecretReference): SecretReferenceInput {
  const { created_at, updated_at, ...input } = reference;
  return input as SecretReferenceInput;
}

/**
 * Validates a row before it is written.
 *
 * @throws InvalidArgsError naming each wrong field and what is accepted: a
 *   `ref_kind` other than `env`/`secrets_manager`, an `env` ref that is not a
 *   variable name, a `secrets_manager` ref that is not a secret ARN, or a
 *   `ref_value`, `notes` or `metadata` that looks like a credential (the table
 *   never holds a secret), or `metadata` nested deeper than `MAX_ARGS_DEPTH`.
 */
export function validateReference(input: SecretReferenceInput): z.output<ReturnType<typeof referenceInput>> {
  // Checked first: zod, and the redaction below, walk metadata recursively.
  if (input.metadata !== undefined && tooDeepAt(input.metadata, MAX_ARGS_DEPTH) !== undefined) {
    throw new InvalidArgsError(
      `Invalid secret reference: metadata nests objects and arrays deeper than ${MAX_ARGS_DEPTH} levels`,
    );
  }
  const schema = referenceInput();
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const problems = violationsOf(parsed.error, input, schema).map((v) => `${v.path}: ${v.message}`);
    throw new InvalidArgsError(`Invalid secret reference: ${problems.join('; ')}`);
  }
  const row = parsed.data;
  if (redactString(row.ref_value) !== row.ref_value) {
    throw new InvalidArgsError(
      'ref_value looks like a credential; the table stores references only (an env var name or a Secrets Manager ARN)',
    );
  }
  if (row.notes !== undefined && redactString(row.notes) !== row.notes) {
    throw new InvalidArgsError(
      'notes look like they hold a credential (a token, key or webhook URL); the table stores references only: describe the secret, never paste it',
    );
  }
  const secretLooking = credentialLookingKeys(row.metadata);
  if (secretLooking.length > 0) {
    throw new InvalidArgsError(
      `metadata ${secretLooking.join(', ')} look${secretLooking.length === 1 ? 's' : ''} like a credential (a secret-named key such as token or api_key, or a token, key or webhook URL value); the table stores references only`,
    );
  }
  if (row.ref_kind === 'env' && !ENV_VAR.test(row.ref_value)) {
    throw new InvalidArgsError(
      // The value is not echoed: what was typed where a variable name belongs may be the secret itself.
      'ref_value for ref_kind env must be an environment variable name (letters, digits and _, not starting with a digit)',
    );
  }
  if (row.ref_kind === 'secrets_manager' && !SECRET_ARN.test(row.ref_value)) {
    throw new InvalidArgsError(
      'ref_value for ref_kind secrets_manager must be a secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)',
    );
  }
  return row;
}

/** The top-level metadata keys whose entry `redact()` would change: a secret-named key, or a credential-looking value. */
function credentialLookingKeys(metadata: Record<string, unknown> | undefined): string[] {
  if (metadata === undefined) return [];
  const redacted = redact(metadata);
  return Object.keys(metadata).filter(
    (key) => JSON.stringify(redacted[key]) !== JSON.stringify(metadata[key]),
  );
}
