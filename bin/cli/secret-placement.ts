/**
 * What `etp secrets seed` does for a Secrets Manager reference so that tenant
 * isolation holds (docs/tenant-isolation.md): tag the secret with its tenant and
 * secret name — the tags the reader roles' policy requires — and warn when the
 * secret lies where no deployed function may read it.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeSecretCommand,
  SecretsManagerClient,
  TagResourceCommand,
} from '@aws-sdk/client-secrets-manager';
import { awsRequestHandler } from '../../functions/runtime/aws/http-timeouts';
import { SECRET_NAME_TAG, TENANT_SECRET_NAME_PREFIX, TENANT_TAG } from '../../functions/runtime/aws/trust';
import { PlatformError } from '../../functions/runtime/errors';
import { secretRegion } from '../../functions/runtime/secrets/secrets-manager-provider';
import { tenantTagStatus } from '../../functions/runtime/secrets/tenant-tags';

/** What a seed of a Secrets Manager reference found and did. */
export interface SecretPlacement {
  /** Whether the secret now carries both tags (false with `--no-tag`). */
  readonly tagged: boolean;
  /** Each reason deployed functions may fail to read the secret, in words. */
  readonly warnings: string[];
}

/** The parts of a secret ARN: `arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 chars>`. */
function partsOf(arn: string): { region: string; account: string; name: string } {
  const [, , , region = '', account = '', , ...rest] = arn.split(':');
  return { region, account, name: rest.join(':').replace(/-[A-Za-z0-9]{6}$/, '') };
}

/** The account and region of the secret-reference table, from its ARN; undefined when it cannot be read. */
async function platformOf(table: string): Promise<{ account: string; region: string } | undefined> {
  const client = new DynamoDBClient({ requestHandler: awsRequestHandler() });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    const [, , , region, account] = (Table?.TableArn ?? '').split(':');
    return region && account ? { region, account } : undefined;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

/**
 * Warnings about where the secret is: deployed functions read secrets named under
 * `etp/`, in the platform's own account and region (that of the table).
 */
async function placementWarnings(arn: string, tenant: string, table: string): Promise<string[]> {
  const warnings: string[] = [];
  const { region, account, name } = partsOf(arn);
  if (!name.startsWith(TENANT_SECRET_NAME_PREFIX)) {
    warnings.push(
      `the secret is named ${name}: deployed functions read only secrets named ${TENANT_SECRET_NAME_PREFIX}… ` +
        `(conventionally ${TENANT_SECRET_NAME_PREFIX}${tenant}/<secret name>)`,
    );
  } else if (!name.startsWith(`${TENANT_SECRET_NAME_PREFIX}${tenant}/`)) {
    warnings.push(
      `the secret is named ${name}, not ${TENANT_SECRET_NAME_PREFIX}${tenant}/…: readable once tagged, but its name ` +
        'suggests another tenant',
    );
  }
  const platform = await platformOf(table);
  if (!platform) {
    warnings.push(
      `could not read the account and region of table ${table} to check the secret's (DescribeTable)`,
    );
  } else if (platform.account !== account || platform.region !== region) {
    warnings.push(
      `the secret is in account ${account}, region ${region}: deployed functions read secrets of the platform's ` +
        `account ${platform.account} in ${platform.region} only`,
    );
  }
  return warnings;
}

/**
 * Tags the secret `etp-tenant=<tenant>` and `etp-secret=<secret name>` (what the
 * reader roles require), after checking it serves no other tenant or name, and
 * collects placement warnings.
 *
 * @param tag - false (`--no-tag`): check only, and warn that the secret is not tagged.
 * @throws PlatformError (`access_denied`) when the secret is already tagged for another
 *   tenant or secret name: one secret serves one tenant's one name.
 * @throws the SDK's error when DescribeSecret or TagResource fails (the row is then not written).
 */
export async function placeTenantSecret(
  arn: string,
  tenant: string,
  secretName: string,
  table: string,
  tag: boolean,
): Promise<SecretPlacement> {
  const warnings = await placementWarnings(arn, tenant, table);
  const client = new SecretsManagerClient({ region: secretRegion(arn), requestHandler: awsRequestHandler() });
  try {
    const described = await client.send(new DescribeSecretCommand({ SecretId: arn }));
    const standing = tenantTagStatus(described.Tags, tenant, secretName);
    if (standing.conflict) {
      const { key, value } = standing.conflict;
      throw new PlatformError(
        'access_denied',
        `The secret is tagged ${key}=${value}: it serves another ${key === TENANT_TAG ? 'tenant' : 'secret name'}. ` +
          `One secret serves one tenant's one secret name: create a secret for ${tenant}/${secretName}`,
      );
    }
    if (described.KmsKeyId && !/alias\/aws\/secretsmanager$/.test(described.KmsKeyId)) {
      warnings.push(
        `the secret is encrypted with the KMS key ${described.KmsKeyId}: its key policy must allow kms:Decrypt ` +
          "to the platform's tenant-secrets reader roles (docs/tenant-isolation.md)",
      );
    }
    if (standing.status === 'tagged') return { tagged: true, warnings };
    if (!tag) {
      warnings.push(
        `the secret is not tagged ${TENANT_TAG}=${tenant}, ${SECRET_NAME_TAG}=${secretName}: deployed functions ` +
          'cannot read it until it is',
      );
      return { tagged: false, warnings };
    }
    await client.send(
      new TagResourceCommand({
        SecretId: arn,
        Tags: [
          { Key: TENANT_TAG, Value: tenant },
          { Key: SECRET_NAME_TAG, Value: secretName },
        ],
      }),
    );
    return { tagged: true, warnings };
  } finally {
    client.destroy();
  }
}
