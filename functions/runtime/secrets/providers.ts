import { SecretInvalidError, SecretNotFoundError } from '../errors';
import type { RefKind, SecretReference } from './reference';
import type { SecretValueProvider } from './value-provider';

/** `ref_kind: env` — the value of an environment variable of the running process. */
export class EnvSecretProvider implements SecretValueProvider {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async read(reference: SecretReference): Promise<string> {
    const raw = this.env[reference.ref_value];
    const named = `Secret "${reference.secret_name}" of tenant "${reference.tenant_id}" points at environment variable ${reference.ref_value}`;
    if (raw === undefined) throw new SecretNotFoundError(`${named}, which is not set`);
    // Set but empty is a secret without a value, not an absent one: a local AWS tool falls back to
    // the default credential chain for an absent secret only, never for an `export ETP_AWS_DEFAULT=`.
    if (raw === '') throw new SecretInvalidError(`${named}, which is set but empty`);
    return raw;
  }
}

/**
 * What a tenant id and a secret name must look like to have a conventional
 * variable: lowercase letters and digits in runs joined by single `_`
 * (`default`, `aws_default`). For these, upper-casing is reversible and `__`
 * never occurs inside a part, so `ETP_SECRET_<TENANT>__<NAME>` names exactly one
 * (tenant, name) pair: no two pairs share a variable.
 */
const CONVENTIONAL_PART = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** The convention in words, for error messages and docs. */
export const CONVENTION_RULE =
  'ETP_SECRET_<TENANT>__<NAME>, upper-cased, for tenant ids and secret names of lowercase letters and ' +
  'digits joined by single _';

/**
 * The environment variable a local run reads for a tenant's secret when the
 * tenant has no reference row: `ETP_SECRET_<TENANT>__<NAME>` upper-cased, the two
 * parts joined by a double underscore (`default` + `aws_default` →
 * `ETP_SECRET_DEFAULT__AWS_DEFAULT`). Collisions are impossible by construction:
 * the convention applies only to ids of lowercase letters and digits joined by
 * single `_` ({@link CONVENTIONAL_PART}); any other id (`Acme`, `team-1`,
 * `a__b`) has no conventional variable and needs a reference row.
 *
 * @returns the variable name, or undefined when either part does not fit the convention.
 * @example conventionalSecretVariable('acme', 'slack_default') // 'ETP_SECRET_ACME__SLACK_DEFAULT'
 */
export function conventionalSecretVariable(tenantId: string, secretName: string): string | undefined {
  if (!CONVENTIONAL_PART.test(tenantId) || !CONVENTIONAL_PART.test(secretName)) return undefined;
  return `ETP_SECRET_${tenantId.toUpperCase()}__${secretName.toUpperCase()}`;
}

/** The providers a resolver uses, one per supported `ref_kind`. */
export type SecretProviders = Readonly<Record<RefKind, SecretValueProvider>>;

/**
 * Env, Secrets Manager and inline providers. The Secrets Manager provider (its
 * SDK client and Powertools Parameters) and the inline provider (the KMS client)
 * are loaded and created on the first reference of their kind a call reads: a
 * function whose tenants keep `env` references never loads them (cold start).
 */
export function defaultProviders(): SecretProviders {
  let secretsManager: SecretValueProvider | undefined;
  let inline: SecretValueProvider | undefined;
  return {
    env: new EnvSecretProvider(),
    secrets_manager: {
      read: (reference, maxAge) => {
        if (!secretsManager) {
          const loaded = require('./secrets-manager-provider') as typeof import('./secrets-manager-provider');
          secretsManager = new loaded.SecretsManagerSecretProvider();
        }
        return secretsManager.read(reference, maxAge);
      },
    },
    inline: {
      read: (reference, maxAge) => {
        if (!inline) {
          const loaded = require('./inline-kms') as typeof import('./inline-kms');
          inline = new loaded.InlineSecretProvider();
        }
        return inline.read(reference, maxAge);
      },
    },
  };
}

/**
 * A secret's value as tools see it (docs/design.md): a value that parses as a JSON
 * object is used as is; anything else becomes `{ "value": "<raw>" }`.
 *
 * @example
 * parseSecretValue('{"bot_token":"xoxb-…"}'); // { bot_token: 'xoxb-…' }
 * parseSecretValue('plain');                 // { value: 'plain' }
 * parseSecretValue('[1,2]');                 // { value: '[1,2]' }
 */
export function parseSecretValue(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // not JSON: used as a plain value below
  }
  return { value: raw };
}
