/**
 * What the console's tenant role may reach, each right confined to the session's
 * tenant tag: the rights half of the console construct (lib/console.ts), kept
 * apart so the policy reads as one list.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { TENANT_SECRET_NAME_PREFIX, TENANT_TAG } from '../functions/runtime/aws/trust';
import { RUNS_PREFIX } from '../functions/runtime/workspace-path';
import { acknowledgeWildcardResources } from './nag';
import type { RunWorkspaceBucket } from './run-workspace-bucket';
import { SESSION_TENANT } from './tenant-secret-readers';

/**
 * The console tenant role's rights, each confined to the session's tenant
 * (`aws:PrincipalTag/etp-tenant`, set from the request's path once the user's
 * groups are checked): its secret references (GetItem, Query, UpdateItem,
 * DeleteItem where every leading key `tenant_id` is the tenant: no Scan), its
 * run records (Query, UpdateItem, likewise), its run workspaces (GetObject on
 * `runs/<tenant>/*`, ListBucket under `runs/<tenant>/`), the tags of its secrets
 * (DescribeSecret on `etp/…` secrets tagged for the tenant or not tagged yet, so
 * the page can say "untagged"), and never a secret value (explicit Deny).
 */
export function grantConsoleTenantData(
  scope: Construct,
  props: {
    readonly secretReferenceTable: ITable;
    readonly runRecordsTable: ITable;
    readonly runWorkspace: RunWorkspaceBucket;
  },
  role: Role,
): void {
  const tagged = { Null: { [`aws:PrincipalTag/${TENANT_TAG}`]: 'false' } };
  const ownKeys = { ...tagged, 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [SESSION_TENANT] } };
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'OwnTenantSecretReferences',
      actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      resources: [props.secretReferenceTable.tableArn],
      conditions: ownKeys,
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'OwnTenantRunRecords',
      actions: ['dynamodb:Query', 'dynamodb:UpdateItem'],
      resources: [props.runRecordsTable.tableArn],
      conditions: ownKeys,
    }),
  );
  const prefix = `${RUNS_PREFIX}${SESSION_TENANT}/`;
  const objects = props.runWorkspace.bucket.arnForObjects(`${prefix}*`);
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'OwnTenantWorkspaces',
      actions: ['s3:GetObject'],
      resources: [objects],
      conditions: tagged,
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'ListOwnTenantWorkspaces',
      actions: ['s3:ListBucket'],
      resources: [props.runWorkspace.bucket.bucketArn],
      conditions: { ...tagged, StringLike: { 's3:prefix': [`${prefix}*`] } },
    }),
  );
  const secrets = Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${TENANT_SECRET_NAME_PREFIX}*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'OwnTenantSecretTags',
      actions: ['secretsmanager:DescribeSecret'],
      resources: [secrets],
      conditions: { ...tagged, StringEquals: { [`aws:ResourceTag/${TENANT_TAG}`]: SESSION_TENANT } },
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'UntaggedSecretTags',
      actions: ['secretsmanager:DescribeSecret'],
      resources: [secrets],
      conditions: { ...tagged, Null: { ...tagged.Null, [`aws:ResourceTag/${TENANT_TAG}`]: 'true' } },
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:BatchGetSecretValue'],
      resources: ['*'],
    }),
  );
  acknowledgeWildcardResources(
    role,
    [objects],
    "Run workspaces are created per scenario and run at run time under their tenant's prefix " +
      "(runs/<tenant>/<scenario>/<runId>/); the grant is the session's own tenant's prefix (etp-tenant tag), GetObject only.",
  );
  acknowledgeWildcardResources(
    role,
    [secrets],
    "Tenants' secrets are created by operators under etp/<tenant>/…; the session reads the tags (DescribeSecret) " +
      'of those tagged for its own tenant or not tagged yet, never a value (GetSecretValue is denied).',
  );
}
