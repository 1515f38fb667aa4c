import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, type IRole, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  ROLE_CHAINING_MAX_SECONDS,
  SECRET_NAME_TAG,
  TENANT_SECRET_NAME_PREFIX,
  TENANT_TAG,
  VENDOR_ROLE_PATH,
} from '../functions/runtime/aws/trust';
import { acknowledgeWildcardResources } from './nag';

/** The session's tenant as an IAM policy variable (IAM User Guide, "IAM policy elements: Variables and tags"). */
export const SESSION_TENANT = `\${aws:PrincipalTag/${TENANT_TAG}}`;

/**
 * ARN pattern of every tenant secret of the stack's account and region:
 * `arn:<partition>:secretsmanager:<region>:<account>:secret:etp/*`. The trailing
 * wildcard also covers the random suffix Secrets Manager appends to secret ARNs.
 */
export function tenantSecretsArn(scope: Construct): string {
  return Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${TENANT_SECRET_NAME_PREFIX}*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** The ARN pattern of the platform account's roles under `path` (default: the vendor's, {@link VENDOR_ROLE_PATH}). */
export function toolRolesArn(scope: Construct, path: string = VENDOR_ROLE_PATH): string {
  return Stack.of(scope).formatArn({
    service: 'iam',
    region: '',
    resource: 'role',
    resourceName: `${path.replace(/^\//, '')}*`,
  });
}

/**
 * A role only the vendor (the dispatcher, `/etp-vendor/`) may assume, or the roles
 * under `trustedPaths`, and only with a non-empty `etp-tenant` session tag and no
 * other tag and a `SourceIdentity` `etp.*`, for one hour at most (role chaining).
 * Its policies use the session's tenant (`aws:PrincipalTag/etp-tenant`) to confine what it reaches.
 *
 * @param trustedPaths - the IAM paths of the platform account's roles that may assume it. @default [VENDOR_ROLE_PATH]
 */
export function vendedTenantRole(
  scope: Construct,
  id: string,
  description: string,
  trustedPaths: readonly string[] = [VENDOR_ROLE_PATH],
): Role {
  const platformAccount = new AccountRootPrincipal();
  const vendor = { ArnLike: { 'aws:PrincipalArn': trustedPaths.map((path) => toolRolesArn(scope, path)) } };
  const tenantTagOnly = {
    ...vendor,
    StringLike: { [`aws:RequestTag/${TENANT_TAG}`]: '?*' },
    'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_TAG] },
  };
  const role = new Role(scope, id, {
    description,
    assumedBy: platformAccount.withConditions(tenantTagOnly),
    maxSessionDuration: Duration.seconds(ROLE_CHAINING_MAX_SECONDS),
  });
  role.assumeRolePolicy?.addStatements(
    new PolicyStatement({
      actions: ['sts:TagSession'],
      principals: [platformAccount],
      conditions: tenantTagOnly,
    }),
    new PolicyStatement({
      actions: ['sts:SetSourceIdentity'],
      principals: [platformAccount],
      conditions: { ...vendor, StringLike: { 'sts:SourceIdentity': 'etp.*' } },
    }),
  );
  return role;
}

/** Properties of {@link TenantIdempotencyRecords}. */
export interface TenantIdempotencyRecordsProps {
  /** The idempotency table (partition key `id` = `<tenant>#<tool>#<hash>`, Powertools' key with our prefix). */
  readonly table: ITable;
}

/**
 * Exactly-once records confined to the call's tenant by IAM: one role, vended by
 * the dispatcher to a write tool with the session tag `etp-tenant=T`, that may
 * read, take, complete and release only items whose partition key starts with
 * `T#` (`dynamodb:LeadingKeys`, `ForAllValues:StringLike` on
 * `${aws:PrincipalTag/etp-tenant}#*`; tenant ids hold no `#`, `*` or `?`). Tool roles
 * hold no right on the table.
 */
export class TenantIdempotencyRecords extends Construct {
  /** The role whose tenant-tagged sessions reach one tenant's records. */
  public readonly role: Role;

  constructor(scope: Construct, id: string, props: TenantIdempotencyRecordsProps) {
    super(scope, id);
    this.role = vendedTenantRole(
      this,
      'Role',
      `Reads and writes one tenant's exactly-once records: the tenant of the session tag ${TENANT_TAG}`,
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'OwnTenantIdempotencyRecords',
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        resources: [props.table.tableArn],
        conditions: {
          Null: { [`aws:PrincipalTag/${TENANT_TAG}`]: 'false' },
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SESSION_TENANT}#*`] },
        },
      }),
    );
  }
}

/** Properties of {@link TenantSecretReaders}. */
export interface TenantSecretReadersProps {
  /** The secret-reference table. */
  readonly table: ITable;
  /** The secret names tools read (the union of the specs' `requiresSecrets`). */
  readonly secretNames: readonly string[];
}

/**
 * Tenant isolation enforced by IAM (docs/tenant-isolation.md): one reader role
 * per secret name S. For a call of tenant T, the dispatcher (the vendor, the
 * trusted edge that checked T) assumes S's reader role with the session tag
 * `etp-tenant=T` and hands the session to the tool; the role allows only
 *
 * - `dynamodb:GetItem` on the reference table where every leading key (the
 *   partition key, `tenant_id`) equals the session's tenant (`dynamodb:LeadingKeys`);
 * - `secretsmanager:GetSecretValue` on `etp/*` secrets tagged `etp-tenant` = the
 *   session's tenant and `etp-secret` = S.
 *
 * Its trust policy admits the platform account's vendor role (path `/etp-vendor/`,
 * the dispatcher's) only, and only with a non-empty `etp-tenant` tag and no other
 * tag, for one hour at most (role chaining). No tool role may assume a reader:
 * which names a tool gets is decided by the vendor, from the tool's spec.
 */
export class TenantSecretReaders extends Construct {
  /** The reader role of each secret name. */
  public readonly roles: Readonly<Record<string, Role>>;

  constructor(scope: Construct, id: string, props: TenantSecretReadersProps) {
    super(scope, id);
    const secrets = tenantSecretsArn(this);
    const roles: Record<string, Role> = Object.create(null);
    for (const name of [...new Set(props.secretNames)].sort()) {
      const role = vendedTenantRole(
        this,
        `Reader${name}`,
        `Reads one tenant's ${name} reference and secret: the tenant of the session tag ${TENANT_TAG}`,
      );
      const tagged = { Null: { [`aws:PrincipalTag/${TENANT_TAG}`]: 'false' } };
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'OwnTenantReferenceRows',
          actions: ['dynamodb:GetItem'],
          resources: [props.table.tableArn],
          conditions: {
            ...tagged,
            'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [SESSION_TENANT] },
          },
        }),
      );
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'OwnTenantSecret',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [secrets],
          conditions: {
            ...tagged,
            StringEquals: {
              [`aws:ResourceTag/${TENANT_TAG}`]: SESSION_TENANT,
              [`aws:ResourceTag/${SECRET_NAME_TAG}`]: name,
            },
          },
        }),
      );
      acknowledgeWildcardResources(
        role,
        [secrets],
        `The ${name} reader reads the secret of the tenant its session is tagged with: which secret that is ` +
          `is decided at run time, by the secret's tags (${TENANT_TAG} = the session's tenant, ` +
          `${SECRET_NAME_TAG} = ${name}, both required by the condition), under the ${TENANT_SECRET_NAME_PREFIX} ` +
          'prefix; Secrets Manager appends a random suffix to every ARN, so the grant is that prefix.',
      );
      roles[name] = role;
    }
    this.roles = roles;
  }

  /**
   * Lets `vendorRole` (the dispatcher's, under `/etp-vendor/`) open reader sessions
   * for `secretNames`: `sts:AssumeRole`, `sts:TagSession` and
   * `sts:SetSourceIdentity` on those names' reader roles. Never granted to a tool role.
   *
   * @returns the map of each name to its reader role ARN (what the vendor gets as `SECRET_READER_ROLES`).
   * @throws Error for a name no reader exists for.
   */
  grantReadersTo(vendorRole: IRole, secretNames: readonly string[]): Record<string, string> {
    const arns: Record<string, string> = {};
    for (const name of secretNames) {
      const reader = Object.hasOwn(this.roles, name) ? this.roles[name] : undefined;
      if (!reader) throw new Error(`No tenant-secrets reader for ${name}`);
      arns[name] = reader.roleArn;
    }
    if (secretNames.length > 0) {
      vendorRole.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'],
          resources: Object.values(arns),
        }),
      );
    }
    return arns;
  }
}
