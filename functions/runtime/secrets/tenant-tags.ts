/**
 * The tags tenant isolation needs on a Secrets Manager secret: `etp-tenant=<tenant>`
 * and `etp-secret=<secret name>`, which the tenant-secrets reader roles' policies
 * require (docs/tenant-isolation.md). One reading of them for `etp secrets seed`
 * (bin/cli/secret-placement.ts) and the console (functions/console/secret-tags.ts).
 */
import { SECRET_NAME_TAG, TENANT_TAG } from '../aws/trust';

/** How a secret's tags stand for one tenant's secret name. */
export interface TenantTagStatus {
  /** `tagged`: both tags name this tenant and name; `untagged`: one is missing; `other`: one names another. */
  readonly status: 'tagged' | 'untagged' | 'other';
  /** The tag naming another tenant or secret name, for `other`. */
  readonly conflict?: { readonly key: string; readonly value: string };
}

/**
 * Reads `tags` (DescribeSecret's `Tags`) for `tenant`'s `secretName`.
 *
 * @example tenantTagStatus([{ Key: 'etp-tenant', Value: 'acme' }], 'acme', 'slack_default') // { status: 'untagged' }
 */
export function tenantTagStatus(
  tags: readonly { readonly Key?: string; readonly Value?: string }[] | undefined,
  tenant: string,
  secretName: string,
): TenantTagStatus {
  const byKey = new Map((tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
  for (const [key, expected] of [
    [TENANT_TAG, tenant],
    [SECRET_NAME_TAG, secretName],
  ] as const) {
    const value = byKey.get(key);
    if (value !== undefined && value !== expected) return { status: 'other', conflict: { key, value } };
  }
  return byKey.get(TENANT_TAG) === tenant && byKey.get(SECRET_NAME_TAG) === secretName
    ? { status: 'tagged' }
    : { status: 'untagged' };
}
