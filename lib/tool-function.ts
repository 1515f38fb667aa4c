import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { CUSTOMER_ROLE_NAME_ENV } from '../functions/runtime/aws/credentials';
import { ORGANIZATION_ROLE_NAME_ENV } from '../functions/runtime/aws/organization';
import {
  AWS_TOOL_ROLE_PATH,
  CUSTOMER_ROLE_NAME,
  ORGANIZATION_ROLE_NAME,
  TOOL_ROLE_PATH,
} from '../functions/runtime/aws/trust';
import { IDEMPOTENCY_RECORD_SECONDS, IDEMPOTENCY_RECORD_SECONDS_ENV } from '../functions/runtime/call-key';
import type { FunctionToolEntry } from '../functions/runtime/catalog';
import { SECRET_SESSIONS_ENV } from '../functions/runtime/secrets/vended';
import { type ToolSpec, toolTimeoutSeconds } from '../functions/runtime/spec';
import { CUSTOMER_ROLE_ACTIONS, isAwsTool, isOrganizationTool } from './aws-tool-grants';
import { allowGrant, denyStatement } from './iam-statements';
import { acknowledgeWildcardResources } from './nag';
import { type FunctionSettings, PlatformFunction } from './platform-function';
import type { RunWorkspaceBucket } from './run-workspace-bucket';

/** The folder the catalog's implementation paths are relative to. */
const TOOLS_DIR = path.join(__dirname, '../functions/tools');

/** The Lambda entry file of a function tool: its catalog implementation module. */
export function toolEntryPath(entry: FunctionToolEntry): string {
  return path.join(TOOLS_DIR, `${entry.implementation}.ts`);
}

/**
 * The customer role in every account: `arn:<partition>:iam::*:role/<CUSTOMER_ROLE_NAME>`.
 * The account is a wildcard (each tenant's account is known at run time only, from
 * its secret); the name is the one `CustomerAccessStack` creates, with no path.
 */
export function customerRoleArnPattern(scope: Construct): string {
  return roleInAnyAccount(scope, CUSTOMER_ROLE_NAME);
}

/**
 * The organization role in every account: `arn:<partition>:iam::*:role/<ORGANIZATION_ROLE_NAME>`
 * (the management or delegated-administrator account is known at run time only,
 * from the tenant's `aws_org_*` secret); the name `OrganizationAccessStack` creates.
 */
export function organizationRoleArnPattern(scope: Construct): string {
  return roleInAnyAccount(scope, ORGANIZATION_ROLE_NAME);
}

function roleInAnyAccount(scope: Construct, roleName: string): string {
  return Stack.of(scope).formatArn({
    service: 'iam',
    region: '',
    account: '*',
    resource: 'role',
    resourceName: roleName,
  });
}

/** Properties of a {@link ToolFunction}. */
export interface ToolFunctionProps {
  /** The tool's catalog entry: sizing, secrets and IAM statements come from its spec, the code from its module. */
  readonly tool: FunctionToolEntry;
  /** The function's name (the dispatcher invokes it by this name). */
  readonly functionName: string;
  /** The secret-reference table, read with the reader sessions the dispatcher vends. */
  readonly secretReferenceTable: ITable;
  /**
   * Where a `write` tool records each call once (functions/runtime/idempotency.ts);
   * required for `sideEffects: 'write'`, ignored otherwise.
   */
  readonly idempotencyTable?: ITable;
  /**
   * How long a `write` tool keeps each call's record, in seconds, handed over as
   * `IDEMPOTENCY_RECORD_SECONDS` (lib/scenarios/asl.ts, `recordLifetimeSeconds`:
   * the longest scenario run plus Step Functions' 14-day redrive window).
   * @default IDEMPOTENCY_RECORD_SECONDS (24 hours: the runtime's own)
   */
  readonly idempotencyRecordSeconds?: number;
  /**
   * The platform's run workspaces; required for a spec with `workspaceAccess`
   * (its objects granted, `RUN_BUCKET` set), ignored otherwise.
   */
  readonly runWorkspace?: RunWorkspaceBucket;
  /** Bound on one ToolResult in bytes, handed over as `RESULT_MAX_BYTES`. */
  readonly resultMaxBytes: number;
  /** How long the log group keeps events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Operator overrides (memory, reserved concurrency, VPC). @default - the spec's sizing */
  readonly settings?: FunctionSettings;
}

/**
 * A tool's own function (a {@link PlatformFunction}) whose role holds exactly:
 * the spec's `iam` statements (no right on the tenant-secrets reader roles: it reads
 * rows and secrets with the sessions the dispatcher vends for each call,
 * `SECRET_SESSIONS=vended`, docs/tenant-isolation.md); for an AWS tool, the same three STS actions on the
 * customer role name in any account and no other role (for an organization tool,
 * {@link isOrganizationTool}: the same actions on the organization role name only, and
 * not its spec's `iam`, which the organization role holds); and writes to its own log
 * group. Nothing else: no table access, no Lambda invoke. Only the dispatcher is
 * granted to invoke it. Its role lives under the path `/etp-tools/` (AWS tools:
 * `/etp-tools/aws/`), which the customer role's trust policy matches.
 * A `write` tool reaches its exactly-once records (`IDEMPOTENCY_TABLE`) only with the
 * records session the dispatcher vends for the call's tenant; a spec with `workspaceAccess`
 * reaches its files (`RUN_BUCKET`) only with the run-data session the dispatcher vends,
 * narrowed to them in the call's run. The spec's `iamDeny` statements, as explicit
 * Deny, and an explicit Deny of the run workspaces to the role itself (listing and
 * objects). Spec ARNs are written in the stack's partition.
 *
 * cdk-nag's IAM5 is acknowledged, with the reason, for the wildcards this model
 * needs: those of statements whose actions are all read-only ({@link allowGrant}),
 * and the customer role in any account. A wildcard on any other action stays a
 * finding and fails synthesis, so a write action on `*` needs a human decision.
 */
export class ToolFunction extends PlatformFunction {
  /** The spec this function runs. */
  public readonly spec: ToolSpec;

  constructor(scope: Construct, id: string, props: ToolFunctionProps) {
    const { spec } = props.tool;
    const awsTool = isAwsTool(spec);
    const organizationTool = isOrganizationTool(spec);
    super(scope, id, {
      rolePath: awsTool ? AWS_TOOL_ROLE_PATH : TOOL_ROLE_PATH,
      entry: toolEntryPath(props.tool),
      functionName: props.functionName,
      settings: props.settings,
      description: `External Tools Platform tool ${spec.name}`,
      logRetention: props.logRetention,
      memorySizeMb: spec.runtime?.memorySizeMb,
      timeoutSeconds: toolTimeoutSeconds(spec),
      environment: {
        SECRET_REFS_TABLE: props.secretReferenceTable.tableName,
        POWERTOOLS_SERVICE_NAME: spec.name,
        RESULT_MAX_BYTES: String(props.resultMaxBytes),
        ...(awsTool && !organizationTool ? { [CUSTOMER_ROLE_NAME_ENV]: CUSTOMER_ROLE_NAME } : {}),
        ...(organizationTool ? { [ORGANIZATION_ROLE_NAME_ENV]: ORGANIZATION_ROLE_NAME } : {}),
        ...(spec.runtime?.nodeOptions ? { NODE_OPTIONS: spec.runtime.nodeOptions } : {}),
      },
    });
    this.spec = spec;
    if (spec.requiresSecrets.length > 0) {
      // Its rows and secrets are read with the sessions the dispatcher vends for each call's tenant.
      this.lambdaFunction.addEnvironment(SECRET_SESSIONS_ENV, 'vended');
    }
    if (organizationTool) {
      const organizationRole = organizationRoleArnPattern(this);
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: [...CUSTOMER_ROLE_ACTIONS], resources: [organizationRole] }),
      );
      acknowledgeWildcardResources(
        this.role,
        [organizationRole],
        `${spec.name} lists the organization of the tenant it acts for, whose management account is known at ` +
          `run time from the tenant's aws_org_* secret: it may assume the role named ${ORGANIZATION_ROLE_NAME} ` +
          '(which OrganizationAccessStack creates, trusting this platform with an ExternalId) in any account, and no other role.',
      );
    } else if (awsTool) {
      const customerRole = customerRoleArnPattern(this);
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: [...CUSTOMER_ROLE_ACTIONS], resources: [customerRole] }),
      );
      acknowledgeWildcardResources(
        this.role,
        [customerRole],
        `${spec.name} reads the account of the tenant it acts for, known at run time from the tenant's ` +
          `aws_default secret: it may assume the role named ${CUSTOMER_ROLE_NAME} (which CustomerAccessStack ` +
          'creates, trusting this platform with an ExternalId) in any account, and no other role.',
      );
    }

    // An organization tool's statements are the organization role's: its own role only assumes that role.
    if (!organizationTool) {
      for (const grant of spec.iam) this.role.addToPrincipalPolicy(allowGrant(this.role, grant, spec.name));
    }

    if (spec.sideEffects === 'write') {
      if (!props.idempotencyTable) {
        throw new Error(`Tool ${spec.name} has side effects: it needs the idempotency table`);
      }
      // Exactly once per call, through the records session the dispatcher vends for the call's
      // tenant (lib/tenant-secret-readers.ts, TenantIdempotencyRecords): no right of its own on the table.
      this.lambdaFunction.addEnvironment('IDEMPOTENCY_TABLE', props.idempotencyTable.tableName);
      this.lambdaFunction.addEnvironment(
        IDEMPOTENCY_RECORD_SECONDS_ENV,
        String(props.idempotencyRecordSeconds ?? IDEMPOTENCY_RECORD_SECONDS),
      );
      this.lambdaFunction.addEnvironment(SECRET_SESSIONS_ENV, 'vended');
    }

    if (spec.workspaceAccess) {
      if (!props.runWorkspace)
        throw new Error(`Tool ${spec.name} keeps data in the run workspace: it needs the bucket`);
      // Its files are reached with the run-data session the dispatcher vends for the call, narrowed
      // to them in the call's run (functions/runtime/run-data-sessions.ts): no right of its own.
      this.lambdaFunction.addEnvironment('RUN_BUCKET', props.runWorkspace.bucket.bucketName);
      this.lambdaFunction.addEnvironment(SECRET_SESSIONS_ENV, 'vended');
    }
    for (const deny of spec.iamDeny ?? []) this.role.addToPrincipalPolicy(denyStatement(deny));
    // No tool role reaches the run workspaces with its own rights (docs/tenant-isolation.md).
    props.runWorkspace?.denyToolRole(this.role);
  }
}
