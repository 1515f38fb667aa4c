/**
 * The console's check of a Secrets Manager secret's tenant tags: DescribeSecret
 * (metadata and tags, never the value; the console's role has no
 * GetSecretValue), read by the same rule as `etp secrets seed`.
 */
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { awsRequestHandler } from '../runtime/aws/http-timeouts';
import { secretRegion } from '../runtime/secrets/secrets-manager-provider';
import { tenantTagStatus } from '../runtime/secrets/tenant-tags';
import type { SecretTagReader } from './backend';

/**
 * A {@link SecretTagReader} over DescribeSecret, one client per region (created on
 * first use, kept for the container's life). A secret that cannot be described
 * is `unknown`, with the error's name (not its message); deployed, one the
 * tenant's session may not describe (AccessDeniedException: tagged for another
 * tenant, or outside `etp/`) is `other`.
 *
 * @param credentials - the tenant's session (deployed); @default the process's credentials
 */
export function secretsManagerTagReader(credentials?: AwsCredentialIdentityProvider): SecretTagReader {
  const clients = new Map<string, SecretsManagerClient>();
  const clientFor = (region: string) => {
    let client = clients.get(region);
    if (!client) {
      client = new SecretsManagerClient({
        region,
        requestHandler: awsRequestHandler(),
        maxAttempts: 2,
        ...(credentials ? { credentials } : {}),
      });
      clients.set(region, client);
    }
    return client;
  };
  return async (arn, tenant, secretName) => {
    try {
      const described = await clientFor(secretRegion(arn) ?? process.env.AWS_REGION ?? 'us-east-1').send(
        new DescribeSecretCommand({ SecretId: arn }),
      );
      const standing = tenantTagStatus(described.Tags, tenant, secretName);
      return standing.conflict
        ? { status: 'other', detail: `tagged ${standing.conflict.key}=${standing.conflict.value}` }
        : { status: standing.status };
    } catch (err) {
      if (credentials && (err as Error).name === 'AccessDeniedException')
        return {
          status: 'other',
          detail: "not describable by this tenant's session (tagged for another tenant, or outside etp/)",
        };
      return { status: 'unknown', detail: `DescribeSecret failed (${(err as Error).name ?? 'Error'})` };
    }
  };
}
