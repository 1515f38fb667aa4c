import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Aws, CfnOutput, CfnStackSet, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ORGANIZATION_ROLE_NAME, ROLE_CHAINING_MAX_SECONDS } from '../functions/runtime/aws/trust';
import type { ToolCatalog } from '../functions/runtime/catalog';
import { toolCatalog } from '../functions/tools/catalog';
import {
  addSessionTrust,
  CustomerAccessStack,
  customerAccessParameters,
  trustPlatformToolRoles,
} from './customer-access-stack';
import { acknowledgeWildcardResources } from './nag';
import { TemplateOnlySynthesizer } from './template-only-synthesizer';

/**
 * What the organization role may do, and nothing else: read the organization's
 * structure the way `resolveAccounts` does (functions/runtime/aws/organization-accounts.ts:
 * DescribeOrganization, ListRoots, ListOrganizationalUnitsForParent,
 * ListAccountsForParent) and its consolidated costs by account (`costByLinkedAccount`:
 * Cost Explorer GetCostAndUsage). Service Authorization Reference, "Actions
 * defined by AWS Organizations": these list actions take no resource-level
 * condition the platform could know in advance, hence `*`.
 */
export const ORGANIZATION_ROLE_ACTIONS = [
  'organizations:DescribeOrganization',
  'organizations:ListRoots',
  'organizations:ListOrganizationalUnitsForParent',
  'organizations:ListAccountsForParent',
  'ce:GetCostAndUsage',
] as const;

/**
 * CloudFormation's limit on a template passed inline (`TemplateBody`), in bytes
 * (AWS CloudFormation User Guide, "CloudFormation quotas": template body size in a
 * request, 51,200 bytes).
 */
export const TEMPLATE_BODY_MAX_BYTES = 51_200;

/** The StackSet's name, the same in every organization. */
export const AUDIT_STACK_SET_NAME = 'ExternalToolsPlatformAudit';

/** Properties of an {@link OrganizationAccessStack}. */
export interface OrganizationAccessStackProps extends StackProps {
  /**
   * Where the StackSet deploys the audit role: root ids (`r-…`, the whole
   * organization) and OU ids (`ou-…`, with the OUs under them). New accounts
   * joining these get the role automatically (auto-deployment).
   */
  readonly organizationalUnitIds: readonly string[];
  /**
   * The one region the stack instances are created in. IAM is global: a second
   * region would create the same role name again and fail.
   * @default the region this stack is deployed in
   */
  readonly instanceRegion?: string;
  /**
   * `SELF` when this stack is deployed in the management account,
   * `DELEGATED_ADMIN` in a delegated administrator account for CloudFormation StackSets.
   * @default 'SELF'
   */
  readonly callAs?: 'SELF' | 'DELEGATED_ADMIN';
  /** Whose AWS tools' statements the member role allows. @default toolCatalog */
  readonly catalog?: ToolCatalog;
}

/**
 * The template of {@link CustomerAccessStack} for `catalog`, as JSON: synthesized in
 * an app of its own (with `scope`'s context, so feature flags match) into a
 * temporary directory that is removed afterwards.
 *
 * @throws Error when the template exceeds {@link TEMPLATE_BODY_MAX_BYTES}.
 */
export function customerAccessTemplateBody(scope: Construct, catalog: ToolCatalog = toolCatalog): string {
  const outdir = mkdtempSync(path.join(tmpdir(), 'etp-member-template-'));
  try {
    const app = new App({ outdir, context: scope.node.getAllContext() });
    const member = new CustomerAccessStack(app, 'ExternalToolsCustomerAccess', { catalog });
    const body = JSON.stringify(app.synth().getStackArtifact(member.artifactId).template);
    const bytes = Buffer.byteLength(body);
    if (bytes > TEMPLATE_BODY_MAX_BYTES) {
      throw new Error(
        `The member template is ${bytes} bytes, over CloudFormation's ${TEMPLATE_BODY_MAX_BYTES}-byte TemplateBody limit`,
      );
    }
    return body;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * The stack an organization deploys in its management account (or a delegated
 * administrator account) to be audited as a whole (docs/organizations.md):
 *
 * - the organization role, named `ORGANIZATION_ROLE_NAME`, trusted as the customer
 *   role is (the platform's AWS tool roles only, with the ExternalId, for the one
 *   tenant, a SourceIdentity `etp.*`, one hour), allowed
 *   {@link ORGANIZATION_ROLE_ACTIONS} and nothing else;
 * - a service-managed StackSet, {@link AUDIT_STACK_SET_NAME}, of the very template
 *   of {@link CustomerAccessStack} with the same parameters, deployed to the
 *   OUs named, in one region, and to every account that joins them later
 *   (auto-deployment; the stack is removed from an account that leaves).
 *
 * Service-managed StackSets never deploy to the management account: audit it
 * with a `CustomerAccessStack` of its own, or leave it out (the default of
 * `accounts: "all"`). Parameters: `PlatformAccountId`, `ExternalId` (NoEcho),
 * `TenantId`. Outputs: `OrganizationRoleArn` (the secret's
 * `management_role_arn`), `StackSetId`.
 *
 * @example new OrganizationAccessStack(app, 'ExternalToolsOrganizationAccess', { organizationalUnitIds: ['r-ab12'] });
 */
export class OrganizationAccessStack extends Stack {
  /** The role that lists the organization and reads its costs. */
  public readonly organizationRole: Role;
  /** The StackSet of the member audit role. */
  public readonly stackSet: CfnStackSet;

  constructor(scope: Construct, id: string, props: OrganizationAccessStackProps) {
    super(scope, id, {
      description:
        'External Tools Platform: organization role and the StackSet of the read-only audit role in every member account',
      synthesizer: new TemplateOnlySynthesizer(),
      ...props,
    });
    if (props.organizationalUnitIds.length === 0) {
      throw new Error('OrganizationAccessStack needs at least one root (r-…) or OU (ou-…) id to deploy to');
    }
    const bad = props.organizationalUnitIds.filter(
      (target) => !/^(r-[0-9a-z]{4,32}|ou-[0-9a-z]{4,32}-[a-z0-9]{8,32})$/.test(target),
    );
    if (bad.length > 0) {
      throw new Error(`OrganizationAccessStack: ${bad.join(', ')} is not a root (r-…) or OU (ou-…) id`);
    }
    const parameters = customerAccessParameters(this);

    this.organizationRole = new Role(this, 'OrganizationRole', {
      roleName: ORGANIZATION_ROLE_NAME,
      description:
        'External Tools Platform: lists the organization accounts and OUs and reads its costs by account',
      maxSessionDuration: Duration.seconds(ROLE_CHAINING_MAX_SECONDS),
      assumedBy: trustPlatformToolRoles(this, parameters),
    });
    addSessionTrust(this.organizationRole, parameters);
    this.organizationRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...ORGANIZATION_ROLE_ACTIONS], resources: ['*'] }),
    );
    acknowledgeWildcardResources(
      this.organizationRole,
      ['*'],
      'Organizations list actions and Cost Explorer GetCostAndUsage take no resource the platform knows in advance ' +
        '(Service Authorization Reference); the role may call these five read actions and nothing else.',
    );

    this.stackSet = new CfnStackSet(this, 'AuditStackSet', {
      stackSetName: AUDIT_STACK_SET_NAME,
      description: 'External Tools Platform: the read-only audit role in every member account',
      permissionModel: 'SERVICE_MANAGED',
      autoDeployment: { enabled: true, retainStacksOnAccountRemoval: false },
      callAs: props.callAs ?? 'SELF',
      capabilities: ['CAPABILITY_NAMED_IAM'],
      managedExecution: { Active: true },
      operationPreferences: {
        failureTolerancePercentage: 10,
        maxConcurrentPercentage: 25,
      },
      parameters: [
        { parameterKey: 'PlatformAccountId', parameterValue: parameters.platformAccount.valueAsString },
        { parameterKey: 'ExternalId', parameterValue: parameters.externalId.valueAsString },
        { parameterKey: 'TenantId', parameterValue: parameters.tenant.valueAsString },
      ],
      stackInstancesGroup: [
        {
          deploymentTargets: { organizationalUnitIds: [...props.organizationalUnitIds] },
          regions: [props.instanceRegion ?? Aws.REGION],
        },
      ],
      templateBody: customerAccessTemplateBody(this, props.catalog),
    });

    new CfnOutput(this, 'OrganizationRoleArn', {
      description:
        'Seed as the aws_org_default of the tenant: {"management_role_arn": <this>, "external_id": <ExternalId>, "member_role_name": "ExternalToolsPlatformAudit"}',
      value: this.organizationRole.roleArn,
    });
    new CfnOutput(this, 'StackSetId', {
      description: 'The StackSet of the member audit role',
      value: this.stackSet.attrStackSetId,
    });
  }
}
