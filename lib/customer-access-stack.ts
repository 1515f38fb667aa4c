import { CfnOutput, CfnParameter, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase } from 'aws-cdk-lib/aws-glue';
import { ArnPrincipal, type IPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  AWS_TOOL_ROLE_PATH,
  CUSTOMER_ROLE_NAME,
  CUSTOMER_SESSION_TAG_KEYS,
  ROLE_CHAINING_MAX_SECONDS,
  TENANT_TAG,
} from '../functions/runtime/aws/trust';
import type { ToolCatalog } from '../functions/runtime/catalog';
import { TENANT_ID } from '../functions/runtime/ids';
import { toolCatalog } from '../functions/tools/catalog';
import { DEFAULT_DATABASE, DEFAULT_WORKGROUP } from '../functions/tools/snapshots/athena/settings';
import { customerRoleDenies, customerRoleGrants } from './aws-tool-grants';
import { allowGrant, denyStatement } from './iam-statements';
import { type SnapshotAthenaProps, snapshotAthenaEnvironment } from './snapshot-athena-settings';
import { TemplateOnlySynthesizer } from './template-only-synthesizer';

/** The parameters every customer-side role is built from. */
export interface CustomerAccessParameters {
  readonly platformAccount: CfnParameter;
  readonly externalId: CfnParameter;
  readonly tenant: CfnParameter;
}

/**
 * The parameters of a customer-side stack: `PlatformAccountId` (12 digits),
 * `ExternalId` (NoEcho, 2-1,224 of `[\w+=,.@:/-]`, STS API reference, "AssumeRole"),
 * `TenantId` (the platform's tenant id rule).
 */
export function customerAccessParameters(stack: Stack): CustomerAccessParameters {
  const platformAccount = new CfnParameter(stack, 'PlatformAccountId', {
    type: 'String',
    description: 'The AWS account the External Tools Platform runs in (12 digits)',
    allowedPattern: '^\\d{12}$',
    constraintDescription: 'a 12-digit AWS account id',
  });
  const externalId = new CfnParameter(stack, 'ExternalId', {
    type: 'String',
    noEcho: true,
    description:
      'The ExternalId the platform presents (2-1224 of [\\w+=,.@:/-]); seed the same value as external_id',
    allowedPattern: '^[\\w+=,.@:\\/-]{2,1224}$',
    constraintDescription: '2-1224 characters of letters, digits and _+=,.@:/-',
  });
  const tenant = new CfnParameter(stack, 'TenantId', {
    type: 'String',
    description: 'The tenant id this account belongs to on the platform',
    allowedPattern: TENANT_ID.pattern.source,
    constraintDescription: TENANT_ID.accepted,
  });
  return { platformAccount, externalId, tenant };
}

function trustConditions(stack: Stack, parameters: CustomerAccessParameters) {
  const toolRoles = `arn:${stack.partition}:iam::${parameters.platformAccount.valueAsString}:role${AWS_TOOL_ROLE_PATH}*`;
  return {
    platform: new ArnPrincipal(
      `arn:${stack.partition}:iam::${parameters.platformAccount.valueAsString}:root`,
    ),
    fromToolRoles: { ArnLike: { 'aws:PrincipalArn': toolRoles } },
    forTenant: { [`aws:RequestTag/${TENANT_TAG}`]: parameters.tenant.valueAsString },
  };
}

/**
 * Who may assume a customer-side role: the platform account's AWS tool roles
 * (path `/etp-tools/aws/`) only, with the ExternalId, for the one tenant, setting
 * a SourceIdentity `etp.*`.
 */
export function trustPlatformToolRoles(stack: Stack, parameters: CustomerAccessParameters): IPrincipal {
  const { platform, fromToolRoles, forTenant } = trustConditions(stack, parameters);
  return platform.withConditions({
    ...fromToolRoles,
    StringEquals: { 'sts:ExternalId': parameters.externalId.valueAsString, ...forTenant },
    StringLike: { 'sts:SourceIdentity': 'etp.*' },
  });
}

/**
 * The trust statements a tagged, attributed session needs besides AssumeRole:
 * `sts:TagSession` for the tenant's session with the call tags only
 * ({@link CUSTOMER_SESSION_TAG_KEYS}), `sts:SetSourceIdentity` `etp.*`.
 */
export function addSessionTrust(role: Role, parameters: CustomerAccessParameters): void {
  const { platform, fromToolRoles, forTenant } = trustConditions(Stack.of(role), parameters);
  role.assumeRolePolicy?.addStatements(
    new PolicyStatement({
      actions: ['sts:TagSession'],
      principals: [platform],
      conditions: {
        ...fromToolRoles,
        StringEquals: forTenant,
        'ForAllValues:StringEquals': { 'aws:TagKeys': [...CUSTOMER_SESSION_TAG_KEYS] },
      },
    }),
    new PolicyStatement({
      actions: ['sts:SetSourceIdentity'],
      principals: [platform],
      conditions: { ...fromToolRoles, StringLike: { 'sts:SourceIdentity': 'etp.*' } },
    }),
  );
}

/** Properties of a {@link CustomerAccessStack}. */
export interface CustomerAccessStackProps extends StackProps {
  /** Whose AWS tools' statements the role allows. @default toolCatalog */
  readonly catalog?: ToolCatalog;
  /**
   * The Athena route's workgroup and database to create: the same names as the
   * platform's `snapshotAthena` (lib/snapshot-athena-settings.ts), checked at synth.
   * @default - DEFAULT_WORKGROUP (etp-snapshots) and DEFAULT_DATABASE (etp_snapshots)
   */
  readonly snapshotAthena?: Pick<SnapshotAthenaProps, 'workGroup' | 'database'>;
}

/**
 * The stack a customer deploys in the account the platform audits (docs/design.md,
 * "Shape"; docs/tenant-isolation.md, "The customer stack"): one read-only role,
 * named {@link CUSTOMER_ROLE_NAME}, whose permissions are the union of the AWS
 * tools' declared statements ({@link customerRoleGrants}: derived from the tool
 * catalog, never a second list) and which only the platform account's AWS tool
 * roles (path `/etp-tools/aws/`) may assume, and only
 *
 * - with the ExternalId the customer chose (`sts:ExternalId`, the confused-deputy guard);
 * - for the one tenant the customer is (`aws:RequestTag/etp-tenant`), tagging the
 *   session with tenant, scenario, run and (in an organization run) the member
 *   account, and nothing else;
 * - setting a SourceIdentity `etp.*`, which CloudTrail then records on every call;
 * - for one hour at most (role chaining caps it anyway).
 *
 * Parameters: `PlatformAccountId`, `ExternalId` (NoEcho), `TenantId`. Output:
 * `AuditRoleArn`, to seed as the tenant's `aws_default` `role_arn`. Synthesized
 * as a template alone ({@link TemplateOnlySynthesizer}): it deploys with `cdk
 * deploy`, `aws cloudformation deploy` or a service-managed StackSet in an account
 * that never ran `cdk bootstrap`.
 *
 * @example new CustomerAccessStack(app, 'ExternalToolsCustomerAccess');
 */
export class CustomerAccessStack extends Stack {
  /** The read-only audit role. */
  public readonly auditRole: Role;

  constructor(scope: Construct, id: string, props: CustomerAccessStackProps = {}) {
    super(scope, id, {
      description: 'External Tools Platform: read-only audit role the platform assumes in this account',
      // No assets and no bootstrap resources: the customer deploys it with their own credentials, with
      // `cdk deploy` or the synthesized template alone (`aws cloudformation deploy`, a StackSet).
      synthesizer: new TemplateOnlySynthesizer(),
      ...props,
    });
    const parameters = customerAccessParameters(this);
    this.auditRole = new Role(this, 'AuditRole', {
      roleName: CUSTOMER_ROLE_NAME,
      description: 'Read-only audit role of the External Tools Platform (the union of its AWS tools actions)',
      maxSessionDuration: Duration.seconds(ROLE_CHAINING_MAX_SECONDS),
      assumedBy: trustPlatformToolRoles(this, parameters),
    });
    addSessionTrust(this.auditRole, parameters);

    const catalog = props.catalog ?? toolCatalog;
    for (const grant of customerRoleGrants(catalog)) {
      this.auditRole.addToPrincipalPolicy(
        allowGrant(this.auditRole, grant, 'The customer role (the union of the AWS tools)'),
      );
    }

    // What no AWS tool may do with this role, whatever an administrator grants it later (the snapshot tools: read content).
    for (const deny of customerRoleDenies(catalog)) this.auditRole.addToPrincipalPolicy(denyStatement(deny));

    const athena = snapshotAthenaEnvironment(props.snapshotAthena);
    this.addAthenaRoute(athena.ETP_ATHENA_WORKGROUP, athena.ETP_ATHENA_DATABASE);

    new CfnOutput(this, 'AuditRoleArn', {
      description: 'Seed as the aws_default of the tenant: {"role_arn": <this>, "external_id": <ExternalId>}',
      value: this.auditRole.roleArn,
    });
  }

  /**
   * Where the snapshot tools' Athena route queries S3 Inventory in this account
   * (docs/snapshot-tools.md, "Athena route"): the workgroup (`snapshotAthena.workGroup`,
   * {@link DEFAULT_WORKGROUP} by default) with Athena managed query results (results kept
   * by Athena, read only through GetQueryResults: no results bucket, nothing
   * written to the customer's or the platform's S3), its settings enforced so
   * no query can name an output location, and at most
   * {@link ATHENA_BYTES_SCANNED_CUTOFF} scanned per query; and the Glue database
   * (`snapshotAthena.database`, {@link DEFAULT_DATABASE} by default) the route creates its `inventory_*` tables in. The
   * audit role may use only these (`ATHENA_ROUTE_QUERY`, `ATHENA_ROUTE_TABLES`).
   */
  private addAthenaRoute(workGroup: string, database: string): void {
    new CfnWorkGroup(this, 'SnapshotQueries', {
      name: workGroup,
      description:
        'External Tools Platform: S3 Inventory queries of the snapshot tools (managed query results)',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: ATHENA_BYTES_SCANNED_CUTOFF,
        managedQueryResultsConfiguration: { enabled: true },
      },
    });
    new CfnDatabase(this, 'SnapshotTables', {
      catalogId: this.account,
      databaseInput: {
        name: database,
        description:
          'External Tools Platform: S3 Inventory tables of the snapshot tools (one per report layout)',
      },
    });
  }
}

/**
 * The Athena workgroup's data usage control: 250 GB scanned per query (Athena
 * User Guide, "Configure per-query data usage controls"), about $1.25 at $5 per
 * TB: four times what a comparison of two 1-billion-object Parquet reports reads
 * at most (bench/snapshots-athena.ts: 60.9 GB of whole data files).
 */
export const ATHENA_BYTES_SCANNED_CUTOFF = 250 * 1e9;
