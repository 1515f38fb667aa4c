import { GetParameterError } from '@aws-lambda-powertools/parameters/errors';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { awsRequestHandler } from '../aws/http-timeouts';
import { SecretNotFoundError } from '../errors';
import type { SecretReference } from './reference';
import type { SecretValueProvider } from './value-provider';

/**
 * The region of a Secrets Manager secret ARN (`arn:aws:secretsmanager:eu-west-1:…`),
 * or undefined when `secretId` is not an ARN.
 *
 * @example secretRegion('arn:aws:secretsmanager:eu-west-1:123456789012:secret:etp/slack-AbCdEf') // 'eu-west-1'
 */
export function secretRegion(secretId: string): string | undefined {
  return /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):/.exec(secretId)?.[1];
}

/** Creates the Secrets Manager client of a region (undefined: the SDK's default region). */
export type SecretsManagerClientFactory = (region: string | undefined) => SecretsManagerClient;

/**
 * A Secrets Manager client for `region` with the platform's HTTP timeouts
 * (`awsRequestHandler`), signing with `credentials` (a tenant's reader session)
 * or, without, the default chain.
 */
export function secretsManagerClient(
  region: string | undefined,
  credentials?: AwsCredentialIdentityProvider,
): SecretsManagerClient {
  return new SecretsManagerClient({
    ...(region ? { region } : {}),
    ...(credentials ? { credentials } : {}),
    requestHandler: awsRequestHandler(),
  });
}

/**
 * `ref_kind: secrets_manager` — GetSecretValue through Powertools Parameters,
 * which caches each value for `maxAge` seconds (`0` fetches again). Binary
 * secrets are read as UTF-8.
 *
 * A secret is read in the region of its ARN, whatever region the function runs
 * in (a secret lives in one region; GetSecretValue elsewhere finds nothing):
 * one Powertools `SecretsProvider` and client per region, created on first use
 * and kept for the container's life.
 */
export class SecretsManagerSecretProvider implements SecretValueProvider {
  readonly #providers = new Map<string, SecretsProvider>();

  /** @param createClient - the client of a region. @default {@link secretsManagerClient} */
  constructor(private readonly createClient: SecretsManagerClientFactory = secretsManagerClient) {}

  #providerFor(region: string | undefined): SecretsProvider {
    const key = region ?? '';
    let provider = this.#providers.get(key);
    if (!provider) {
      provider = new SecretsProvider({ awsSdkV3Client: this.createClient(region) });
      this.#providers.set(key, provider);
    }
    return provider;
  }

  /**
   * @throws SecretNotFoundError (`secret_not_found`) when the secret does not exist or has no value.
   * @throws the SDK's error (AccessDeniedException…) otherwise, unwrapped from Powertools'
   *   `GetParameterError` so `normalizeError` maps it by its AWS name.
   */
  async read(reference: SecretReference, maxAgeSeconds: number): Promise<string> {
    let value: unknown;
    try {
      // Powertools serves its cache while an entry is younger than the maxAge it was stored
      // with; a forced refresh (maxAge 0) must bypass it, hence forceFetch.
      value = await this.#providerFor(secretRegion(reference.ref_value)).get(reference.ref_value, {
        maxAge: maxAgeSeconds,
        forceFetch: maxAgeSeconds <= 0,
      });
    } catch (err) {
      const cause = err instanceof GetParameterError && err.cause !== undefined ? err.cause : err;
      if ((cause as { name?: unknown } | null)?.name === 'ResourceNotFoundException') {
        throw new SecretNotFoundError(
          `Secret "${reference.secret_name}" of tenant "${reference.tenant_id}" points at a Secrets Manager secret that does not exist (${reference.ref_value})`,
          { service: 'secretsmanager', cause },
        );
      }
      throw cause;
    }
    if (value === undefined || value === null) {
      throw new SecretNotFoundError(`Secret "${reference.secret_name}" has no value in Secrets Manager`, {
        service: 'secretsmanager',
      });
    }
    return typeof value === 'string' ? value : Buffer.from(value as Uint8Array).toString('utf8');
  }
}
