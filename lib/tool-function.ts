import * as path from 'node:path';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionToolEntry } from '../functions/runtime/catalog';
import { type ToolSpec, toolTimeoutSeconds } from '../functions/runtime/spec';
import { acknowledgeWildcardResources } from './nag';
import { type FunctionSettings, PlatformFunction } from './platform-function';

/** The folder the catalog's implementation paths are relative to. */
const TOOLS_DIR = path.join(__dirname, '../functions/tools');

/** The Lambda entry file of a function tool: its catalog implementation module. */
export function toolEntryPath(entry: FunctionToolEntry): string {
  return path.join(TOOLS_DIR, `${entry.implementation}.ts`);
}

/**
 * Tenant secrets in Secrets Manager are named `etp/<tenant>/<secret>`
 * (docs/deploying.md); a tool function may read secrets under this prefix only.
 */
export const TENANT_SECRET_NAME_PREFIX = 'etp/';

/** Actions that read and never change: the only ones a wildcard resource is acknowledged for. */
const READ_ONLY_ACTION = /^[a-z0-9-]+:(?:Describe|List|Get)[A-Za-z0-9]*$|^iam:GenerateCredentialReport$/;

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

/** Properties of a {@link ToolFunction}. */
export interface ToolFunctionProps {
  /** The tool's catalog entry: sizing, secrets and IAM statements come from its spec, the code from its module. */
  readonly tool: FunctionToolEntry;
  /** The function's name (the dispatcher invokes it by this name). */
  readonly functionName: string;
  /** The secret-reference table the tool reads its tenant's references from (GetItem only). */
  readonly secretReferenceTable: ITable;
  /**
   * Where a `write` tool records each call once (functions/runtime/idempotency.ts);
   * required for `sideEffects: 'write'`, ignored otherwise.
   */
  readonly idempotencyTable?: ITable;
  /** Bound on one ToolResult in bytes, handed over as `RESULT_MAX_BYTES`. */
  readonly resultMaxBytes: number;
  /** How long the log group keeps events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Operator overrides (memory, reserved concurrency, VPC). @default - the spec's sizing */
  readonly settings?: FunctionSettings;
}

/**
 * A tool's own function (a {@link PlatformFunction}) whose role holds exactly:
 * the spec's `iam` statements; `dynamodb:GetItem` on the secret-reference table;
 * for a `write` tool, the item reads and writes of its exactly-once records on the
 * idempotency table (`IDEMPOTENCY_TABLE`);
 * `secretsmanager:GetSecretValue` on `etp/*` secrets when the spec requires
 * secrets; and writes to its own log group. Nothing else: no table writes, no
 * Lambda invoke. Only the dispatcher is granted to invoke it.
 *
 * cdk-nag's IAM5 is acknowledged, with the reason, for the two wildcards this
 * model needs: `Resource::*` of statements whose actions are all read-only
 * (Describe/List/Get, whose APIs mostly support no resource-level permissions),
 * and the `etp/*` secret prefix. A wildcard on any other action stays a finding
 * and fails synthesis, so a write action on `*` needs a human decision.

 */
export class ToolFunction extends PlatformFunction {
  /** The spec this function runs. */
  public readonly spec: ToolSpec;

  constructor(scope: Construct, id: string, props: ToolFunctionProps) {
    const { spec } = props.tool;
    super(scope, id, {
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
      },
    });
    this.spec = spec;

    for (const grant of spec.iam) {
      const resources = [...(grant.resources ?? ['*'])];
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...grant.actions], resources }));
      if (resources.includes('*') && grant.actions.every((action) => READ_ONLY_ACTION.test(action))) {
        acknowledgeWildcardResources(
          this.role,
          ['*'],
          `${spec.name} calls ${grant.actions.join(', ')}: read-only APIs that support no resource-level ` +
            'permissions (Service Authorization Reference, "Resource types" column empty), so IAM requires "*".',
        );
      }
    }

    if (spec.sideEffects === 'write') {
      if (!props.idempotencyTable) {
        throw new Error(`Tool ${spec.name} has side effects: it needs the idempotency table`);
      }
      // Exactly once per call: the record is read, taken, completed or released, and nothing else.
      props.idempotencyTable.grant(
        this.role,
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      );
      this.lambdaFunction.addEnvironment('IDEMPOTENCY_TABLE', props.idempotencyTable.tableName);
    }

    props.secretReferenceTable.grant(this.role, 'dynamodb:GetItem');

    if (spec.requiresSecrets.length > 0) {
      const secrets = tenantSecretsArn(this);
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] }),
      );
      acknowledgeWildcardResources(
        this.role,
        [secrets],
        `${spec.name} reads its tenant's ${spec.requiresSecrets.join(', ')} through references chosen per ` +
          `tenant at run time; tenant secrets are named ${TENANT_SECRET_NAME_PREFIX}<tenant>/<secret> ` +
          '(docs/deploying.md) and Secrets Manager appends a random suffix to every ARN, so the grant is that prefix.',
      );
    }
  }
}
