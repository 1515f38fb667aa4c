import * as path from 'node:path';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ENGINE_CONFIG_GLOBAL, type EngineConfig } from '../functions/engine/config';
import { ENGINE_ROLE_PATH } from '../functions/runtime/aws/trust';
import { RUN_DATA_ROLE_ENV } from '../functions/runtime/run-data-sessions';
import { acknowledgeWildcardResources } from './nag';
import { type FunctionSettings, PlatformFunction } from './platform-function';
import { ENGINE_TIMEOUT_SECONDS } from './scenarios/asl';
import { MODEL_ID } from './scenarios/model';
import type { TenantRunData } from './tenant-secret-readers';

/** The engine's Lambda entry. */
const ENGINE_ENTRY = path.join(__dirname, '../functions/engine/handler.ts');

/**
 * Prefixes of cross-region (system-defined) inference profile ids (Bedrock user
 * guide, "Supported Regions and models for inference profiles"): `us.`, `eu.`,
 * `apac.`, `us-gov.`, `global.`… A profile id is its model id behind one of them.
 */
const PROFILE_PREFIX = /^([a-z]{2,6}(?:-[a-z]+)?)\.([a-z0-9-]+\.[A-Za-z0-9.:_-]+)$/;

/**
 * The resources `bedrock:InvokeModel` must allow for a model (Bedrock user guide,
 * "Prerequisites for inference profiles"): a foundation model's ARN in the
 * stack's region; for a cross-region inference profile, the profile's ARN and
 * its model in every region the profile may route to (`bedrock:*::foundation-model/<id>`);
 * an ARN as given.
 *
 * @throws Error for a model that is none of these (the loader refuses such ids first).
 */
export function modelResourceArns(scope: Construct, model: string): string[] {
  const stack = Stack.of(scope);
  if (!MODEL_ID.test(model))
    throw new Error(`"${model}" is not a Bedrock model id, inference profile id or ARN`);
  if (model.startsWith('arn:')) return [model];
  const foundation = (region: string, id: string) =>
    stack.formatArn({
      service: 'bedrock',
      region,
      account: '',
      resource: 'foundation-model',
      resourceName: id,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  const profile = PROFILE_PREFIX.exec(model);
  if (!profile?.[2]) return [foundation(stack.region, model)];
  return [
    stack.formatArn({
      service: 'bedrock',
      resource: 'inference-profile',
      resourceName: model,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
    foundation('*', profile[2]),
  ];
}

/** Properties of an {@link EngineFunction}. */
export interface EngineFunctionProps {
  /** Bundled into the function (`ETP_ENGINE_CONFIG`): the scenarios and the functions' memory. */
  readonly config: EngineConfig;
  /** The run-workspace bucket (its name only: the engine reaches it through `runData`). */
  readonly workspaceBucket: IBucket;
  /** The run-records table (its name only: the engine reaches it through `runData`). */
  readonly runRecordsTable: ITable;
  /** The run-data role: the engine reads and writes a run's workspace and records with its tenant's session. */
  readonly runData: TenantRunData;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Operator overrides (memory, reserved concurrency, VPC). @default - 256 MB */
  readonly settings?: FunctionSettings;
}

/**
 * The scenario engine's function (functions/engine/handler.ts): input checks,
 * plan-level records, the agent loop's Converse turns, `ask_user` questions and
 * run summaries. Its role may, besides its own logs and traces:
 * - `bedrock:InvokeModel` (what Converse requires: Bedrock API reference,
 *   "Converse") on the models the scenarios name, and nothing else;
 * - open tenant-tagged sessions of the run-data role (`TenantRunData`, under the
 *   path `/etp-engine/` it trusts) and nothing else of the bucket or the table: a
 *   run's workspace and records are reached with its tenant's session only.
 * It invokes no tool: tool calls go from the state machine to the dispatcher.
 */
export class EngineFunction extends PlatformFunction {
  /** Every model ARN the role may invoke. */
  public readonly modelArns: readonly string[];
  /** The configuration bundled into the function. */
  public readonly config: EngineConfig;

  constructor(scope: Construct, id: string, props: EngineFunctionProps) {
    super(scope, id, {
      entry: ENGINE_ENTRY,
      description:
        'External Tools Platform scenario engine: inputs, records, model turns, questions, run summaries',
      timeoutSeconds: ENGINE_TIMEOUT_SECONDS,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'engine',
        WORKSPACE_BUCKET: props.workspaceBucket.bucketName,
        RUN_RECORDS_TABLE: props.runRecordsTable.tableName,
      },
      bundledDefinitions: { [ENGINE_CONFIG_GLOBAL]: JSON.stringify(props.config) },
      logRetention: props.logRetention,
      settings: props.settings,
      rolePath: ENGINE_ROLE_PATH,
    });
    this.config = props.config;
    const models = [
      ...new Set(
        Object.values(props.config.scenarios).flatMap((scenario) =>
          scenario.levels.flatMap((level) => (level.kind === 'agent' ? [level.model] : [])),
        ),
      ),
    ].sort();
    this.modelArns = models.flatMap((model) => modelResourceArns(this, model));
    if (this.modelArns.length > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [...this.modelArns] }),
      );
      acknowledgeWildcardResources(
        this.role,
        this.modelArns,
        'A cross-region inference profile routes a request to its model in any region of its geography, so ' +
          'bedrock:InvokeModel must allow that model in every region (Bedrock user guide, "Prerequisites for ' +
          'inference profiles"); the grant names the scenarios\' models only.',
      );
    }
    this.lambdaFunction.addEnvironment(RUN_DATA_ROLE_ENV, props.runData.grantSessionsTo(this.role));
  }
}
