// One job despite its length (judged for issue 16): the platform's composition root, wiring the constructs each lib/ module defines.
import * as path from 'node:path';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { consoleCatalog } from '../functions/console/catalog-view';
import {
  DISPATCHER_CONFIG_GLOBAL,
  type DispatcherConfig,
  parseDispatcherConfig,
  toolFunctionName,
} from '../functions/dispatcher/config';
import { DISPATCHER_FUNCTION_ENV } from '../functions/engine/account-directory';
import { VENDOR_ROLE_PATH } from '../functions/runtime/aws/trust';
import {
  DEFAULT_RESULT_INLINE_BYTES,
  DEFAULT_RESULT_MAX_BYTES,
  FULL_RESULT_MAX_BYTES,
  MIN_RESULT_INLINE_BYTES,
  resultInlineBytes,
  resultMaxBytes,
} from '../functions/runtime/result-limits';
import { RUN_DATA_ROLE_ENV } from '../functions/runtime/run-data-sessions';
import { SECRET_READER_ROLES_ENV } from '../functions/runtime/secrets/tenant-scope';
import { IDEMPOTENCY_SESSION, RUN_DATA_SESSION } from '../functions/runtime/secrets/vended';
import { toolCatalog } from '../functions/tools/catalog';
import { configureToolAsyncInvoke, grantTaskAnswers } from './callback-grants';
import { type ConsoleOptions, PlatformConsole } from './console';
import { EngineFunction } from './engine-function';
import { type EntryPointProps, EntryPoints, entryPointConfig, runEventBus } from './entry-points';
import { InlineSecretKey } from './inline-secret-key';
import { DISPATCHER_LAZY_PACKAGES } from './lazy-packages';
import { grantInvokeAcknowledged } from './nag';
import { DEFAULT_TIMEOUT_SECONDS, type FunctionSettings, PlatformFunction } from './platform-function';
import { RunWorkspaceBucket, type RunWorkspaceBucketProps } from './run-workspace-bucket';
import { type ScenarioSchedule, ScenarioSchedules } from './scenario-schedules';
import { ScenarioStateMachine } from './scenario-state-machine';
import { recordLifetimeSeconds } from './scenarios/asl';
import { inlineResultBudget } from './scenarios/budget';
import { engineConfig, functionMemory } from './scenarios/engine-config';
import { accountLevelSecrets, accountLevels, levelWhitelists } from './scenarios/level-tables';
import { levelPins, loadScenarios, SCENARIOS_DIR } from './scenarios/loader';
import type { Scenario } from './scenarios/model';
import {
  type SnapshotAthenaProps,
  snapshotAthenaEnvironment,
  takesAthenaRoute,
} from './snapshot-athena-settings';
import { TenantIdempotencyRecords, TenantRunData, TenantSecretReaders } from './tenant-secret-readers';
import { ToolFunction } from './tool-function';

/** The dispatcher's Lambda entry. */
const DISPATCHER_ENTRY = path.join(__dirname, '../functions/dispatcher/handler.ts');

/**
 * Seconds the dispatcher outlives the slowest tool function it waits for
 * (`RequestResponse`), so a tool's own timeout is reported by the dispatcher as
 * a result rather than cut off by the dispatcher's.
 */
const DISPATCHER_TIMEOUT_MARGIN_SECONDS = 10;

/** Lambda's maximum timeout, in seconds (Lambda developer guide, "Lambda quotas"). */
const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/**
 * Properties of an {@link ExternalToolsPlatform}; those of {@link EntryPointProps}
 * (access profiles, Bedrock agents, AgentCore gateway, function URL, EventBridge
 * triggers) are described in lib/entry-points.ts and docs/entry-points.md.
 */
export interface ExternalToolsPlatformProps extends EntryPointProps {
  /**
   * The bus every finished run publishes its `Run Completed` event on (lib/scenarios/run-events.ts).
   * @default - a new event bus of the platform
   */
  readonly eventBus?: IEventBus;
  /**
   * Folder of the scenario YAML files: one state machine per file. A level whose
   * `intra_tools` names an unregistered tool fails construction (and `cdk synth`)
   * with the registered names listed.
   * @default SCENARIOS_DIR (functions/scenarios)
   */
  readonly scenariosDir?: string;
  /**
   * Bound on one ToolResult in bytes (`RESULT_MAX_BYTES` of the dispatcher and
   * every tool), 4 KiB to 250 KiB (functions/runtime/harness.ts).
   * @default DEFAULT_RESULT_MAX_BYTES (64 KiB)
   */
  readonly resultMaxBytes?: number;
  /**
   * Each tool's function is named `<prefix><tool name>`: the dispatcher invokes it
   * by that name. 1-40 letters, digits, `-` or `_`; with the longest tool name it
   * must stay within Lambda's 64 characters.
   * @default `${stackName}-`
   */
  readonly functionNamePrefix?: string;
  /** Overrides for every function of the platform (memory, reserved concurrency, VPC). @default - none */
  readonly functionSettings?: FunctionSettings;
  /** Overrides for one tool's function, by tool name, applied over `functionSettings`. @default - none */
  readonly toolFunctionSettings?: Readonly<Record<string, FunctionSettings>>;
  /** How long the functions' and state machines' log groups keep events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * The run-workspace bucket: retention of `runs/` (none by default), of
   * `scratch/` (7 days) and of its access logs (lib/run-workspace-bucket.ts).
   * @default - runs kept, scratch 7 days, access logs 365 days, buckets retained
   */
  readonly runWorkspace?: RunWorkspaceBucketProps;
  /**
   * Inline budget of one result in bytes (`RESULT_INLINE_BYTES` of the dispatcher),
   * 8 KiB to 64 KiB: a larger result is claim-checked to the run's workspace
   * (functions/runtime/result-limits.ts). The dispatcher uses the smaller of this and
   * the scenarios' own budget (lib/scenarios/budget.ts: every state under 180 KiB).
   * @default DEFAULT_RESULT_INLINE_BYTES (8 KiB)
   */
  readonly resultInlineBytes?: number;
  /**
   * Scheduled runs: one EventBridge Scheduler schedule per tenant and scenario
   * (lib/scenario-schedules.ts), each input checked at synth. @default - none
   */
  readonly schedules?: readonly ScenarioSchedule[];
  /**
   * Lambda concurrent executions a scenario run may keep busy (the account's
   * Lambda concurrency, or the share of it given to runs): per-account levels
   * audit as many accounts at once as fit in it (lib/scenarios/concurrency-budget.ts,
   * docs/organizations-runs.md). @default DEFAULT_LAMBDA_CONCURRENCY (1,000: Lambda developer guide, "Lambda quotas")
   */
  readonly lambdaConcurrency?: number;
  /** Overrides for the scenario engine's function, applied over `functionSettings`. @default - none */
  readonly engineSettings?: FunctionSettings;
  /**
   * The web console (lib/console.ts, docs/console.md): CloudFront + S3 page, API Lambda,
   * Cognito sign-in with a group per tenant. @default - no console
   */
  readonly console?: ConsoleOptions;
  /**
   * The snapshot tools' Athena route (lib/snapshot-athena-settings.ts): mode,
   * workgroup, database, threshold; checked at synth, set in the environment of
   * every tool function that declares the route. @default - the functions' defaults (auto, etp-snapshots, etp_snapshots, 2 GiB)
   */
  readonly snapshotAthena?: SnapshotAthenaProps;
}

/** `PascalCase` of a snake_case name, for construct ids and output names (`aws_pulse` → `AwsPulse`). */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The platform (docs/design.md, "Shape"), as one reusable construct: the DynamoDB
 * secret-reference table (deletion-protected) and its tenant-secrets reader roles
 * ({@link TenantSecretReaders}: tenant isolation enforced by IAM), one {@link ToolFunction} per function tool of the
 * catalog (functions/tools/catalog.ts), the dispatcher (its configuration — the scenarios' level whitelists and
 * the tool functions' name prefix — bundled into its code), and one
 * {@link ScenarioStateMachine} per scenario YAML. Only the dispatcher may invoke
 * the tool functions; each state machine may invoke only the dispatcher.
 *
 * @throws PlatformError (`internal_error`) when a scenario file is invalid or a level
 *   names an unregistered tool (the message lists the registered names).
 * @throws Error when `resultMaxBytes`, `snapshotAthena`, `functionNamePrefix` or `toolFunctionSettings`
 *   is outside what is accepted.
 * @example
 * const platform = new ExternalToolsPlatform(stack, 'Platform', {
 *   toolFunctionSettings: { aws_ec2_inventory: { memorySizeMb: 1024 } },
 * });
 * platform.stateMachines.aws_pulse.grantStartExecution(scheduler);
 */
export class ExternalToolsPlatform extends Construct {
  /** Secret references (`tenant_id`, `secret_name`); never a secret value. */
  public readonly secretReferenceTable: Table;
  /** The exactly-once records of `write` tools' calls (key `id`, TTL `expiration`). */
  public readonly idempotencyTable: Table;
  /** The role of the exactly-once records sessions the dispatcher vends to write tools. */
  public readonly idempotencyRecords: TenantIdempotencyRecords;
  /** One reader role per secret name: the dispatcher vends their tenant-tagged sessions to the tools. */
  public readonly secretReaders: TenantSecretReaders;
  /** The KMS key of `inline` secret references: only reader sessions decrypt, each its own tenant's (docs/inline-secrets.md). */
  public readonly inlineSecretKey: IKey;
  /** The tool functions by tool name. */
  public readonly toolFunctions: Readonly<Record<string, ToolFunction>>;
  /** The dispatcher. */
  public readonly dispatcher: PlatformFunction;
  /** What the dispatcher's code is bundled with. */
  public readonly dispatcherConfig: DispatcherConfig;
  /** The validated scenarios, in file-name order. */
  public readonly scenarios: readonly Scenario[];
  /** The state machines by scenario name, named `<functionNamePrefix><scenario>`. */
  public readonly stateMachines: Readonly<Record<string, StateMachine>>;
  /** The run-workspace bucket (`public readonly bucket`) the dispatcher's file tools and claim-check use. */
  public readonly runWorkspace: RunWorkspaceBucket;
  /** Open `ask_user` questions and per-tenant findings pointers (`tenant_id`, `record_id`). */
  public readonly runRecordsTable: Table;
  /** The run-data role: the dispatcher's and the engine's only way to the run workspaces and records, by tenant. */
  public readonly runData: TenantRunData;
  /** The scenario engine. */
  public readonly engine: EngineFunction;
  /** The dispatcher's inline result budget in bytes (lib/scenarios/budget.ts). */
  public readonly inlineResultBytes: number;
  /** The scheduled runs. */
  public readonly schedules: ScenarioSchedules;
  /** The bus of the `Run Completed` events. */
  public readonly eventBus: IEventBus;
  /** The entry points other than the state machines (gateway, function URL, triggers). */
  public readonly entryPoints: EntryPoints;
  /** The web console, with the `console` prop. */
  public readonly console?: PlatformConsole;

  constructor(scope: Construct, id: string, props: ExternalToolsPlatformProps = {}) {
    super(scope, id);
    const catalog = toolCatalog;
    const maxBytes = props.resultMaxBytes ?? DEFAULT_RESULT_MAX_BYTES;
    if (resultMaxBytes({ RESULT_MAX_BYTES: String(maxBytes) }) !== maxBytes) {
      throw new Error(`resultMaxBytes ${maxBytes} is not a whole number of bytes from 4096 to 250 KiB`);
    }
    const athenaEnvironment = snapshotAthenaEnvironment(props.snapshotAthena);
    const unknownSettings = Object.keys(props.toolFunctionSettings ?? {}).filter(
      (name) => !catalog.functionTools().some((entry) => entry.spec.name === name),
    );
    if (unknownSettings.length > 0) {
      throw new Error(
        `toolFunctionSettings names ${unknownSettings.join(', ')}, which no function tool has. ` +
          `Function tools: ${catalog
            .functionTools()
            .map((entry) => entry.spec.name)
            .join(', ')}`,
      );
    }
    // Loaded first: a scenario naming an unknown tool stops the synth before anything is built.
    this.scenarios = loadScenarios(catalog, props.scenariosDir ?? SCENARIOS_DIR, maxBytes);
    // Results the dispatcher hands Step Functions are bounded so the most any state holds fits its budget.
    this.inlineResultBytes = inlineResultBudget(this.scenarios, maxBytes);
    this.dispatcherConfig = parseDispatcherConfig({
      scenarios: levelWhitelists(this.scenarios),
      pins: levelPins(this.scenarios),
      accountLevels: accountLevels(this.scenarios),
      toolFunctionNamePrefix: props.functionNamePrefix ?? `${Stack.of(this).stackName}-`,
      ...entryPointConfig(props, catalog),
    });

    this.secretReferenceTable = new Table(this, 'SecretReferences', {
      partitionKey: { name: 'tenant_id', type: AttributeType.STRING },
      sortKey: { name: 'secret_name', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS managed key (aws/dynamodb): encryption at rest with key use in
      // CloudTrail, no key policy to keep; the table holds references, never values.
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
      // Deleting the table loses every tenant's references: DeleteTable is refused until this is turned off.
      deletionProtection: true,
    });
    this.secretReaders = new TenantSecretReaders(this, 'TenantSecretReaders', {
      table: this.secretReferenceTable,
      // The organization secrets of per-account levels: read by the AWS tools of their calls.
      secretNames: [
        ...catalog.functionTools().flatMap((entry) => entry.spec.requiresSecrets),
        ...accountLevelSecrets(this.scenarios),
      ],
    });
    this.inlineSecretKey = new InlineSecretKey(this, 'InlineSecrets', {
      readers: this.secretReaders.roles,
    }).key;

    // Powertools Idempotency's default schema: partition key `id`, expiry in `expiration`.
    // Records are transient (24 h) and hold call outcomes, never a secret.
    this.idempotencyTable = new Table(this, 'Idempotency', {
      partitionKey: { name: 'id', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiration',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.idempotencyRecords = new TenantIdempotencyRecords(this, 'IdempotencyRecords', {
      table: this.idempotencyTable,
    });

    // Run workspaces: created before the tools, some of which keep a run's derived data there.
    this.runWorkspace = new RunWorkspaceBucket(this, 'RunWorkspace', props.runWorkspace);

    const tools = new Construct(this, 'Tools');
    const toolFunctions: Record<string, ToolFunction> = {};
    for (const entry of catalog.functionTools()) {
      const name = entry.spec.name;
      toolFunctions[name] = new ToolFunction(tools, pascalCase(name), {
        tool: entry,
        functionName: toolFunctionName(this.dispatcherConfig.toolFunctionNamePrefix, name),
        secretReferenceTable: this.secretReferenceTable,
        idempotencyTable: this.idempotencyTable,
        // No record of a run expires while a call of it may still be made (or redriven).
        idempotencyRecordSeconds: recordLifetimeSeconds(this.scenarios),
        runWorkspace: this.runWorkspace,
        resultMaxBytes: maxBytes,
        logRetention: props.logRetention,
        settings: { ...props.functionSettings, ...props.toolFunctionSettings?.[name] },
      });
    }
    this.toolFunctions = toolFunctions;

    const slowestTool = Math.max(
      DEFAULT_TIMEOUT_SECONDS,
      ...Object.values(toolFunctions).map((tool) => tool.lambdaFunction.timeout?.toSeconds() ?? 0),
    );
    for (const tool of Object.values(toolFunctions)) {
      const timeout = tool.lambdaFunction.timeout?.toSeconds() ?? 0;
      if (timeout + DISPATCHER_TIMEOUT_MARGIN_SECONDS > LAMBDA_MAX_TIMEOUT_SECONDS) {
        throw new Error(
          `Tool ${tool.spec.name} has a ${timeout} s timeout: the dispatcher waits for it synchronously and needs ` +
            `${DISPATCHER_TIMEOUT_MARGIN_SECONDS} s more within Lambda's ${LAMBDA_MAX_TIMEOUT_SECONDS} s maximum; ` +
            `at most ${LAMBDA_MAX_TIMEOUT_SECONDS - DISPATCHER_TIMEOUT_MARGIN_SECONDS} s is accepted`,
        );
      }
    }
    this.dispatcher = new PlatformFunction(this, 'Dispatcher', {
      entry: DISPATCHER_ENTRY,
      description: 'External Tools Platform dispatcher: level whitelist, argument validation, tool invoke',
      timeoutSeconds: Math.min(LAMBDA_MAX_TIMEOUT_SECONDS, slowestTool + DISPATCHER_TIMEOUT_MARGIN_SECONDS),
      environment: {
        POWERTOOLS_SERVICE_NAME: 'dispatcher',
        RESULT_MAX_BYTES: String(this.inlineResultBytes),
      },
      bundledDefinitions: { [DISPATCHER_CONFIG_GLOBAL]: JSON.stringify(this.dispatcherConfig) },
      // The MCP SDK loads for MCP requests only: out of the bundle file every cold start compiles.
      lazyPackages: DISPATCHER_LAZY_PACKAGES,
      logRetention: props.logRetention,
      settings: props.functionSettings,
      // The token vending machine: the one role the tenant-secrets readers trust.
      rolePath: VENDOR_ROLE_PATH,
    });
    // The dispatcher vends each call's tenant-scoped reader sessions to the tool, and a write
    // tool's records session, and a workspace tool's run-data session (below; docs/tenant-isolation.md).
    const readerRoles: Record<string, string> = {
      ...this.secretReaders.grantReadersTo(this.dispatcher.role, Object.keys(this.secretReaders.roles)),
      [IDEMPOTENCY_SESSION]: this.idempotencyRecords.role.roleArn,
    };
    this.dispatcher.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'],
        resources: [this.idempotencyRecords.role.roleArn],
      }),
    );
    for (const tool of Object.values(toolFunctions)) {
      grantInvokeAcknowledged(tool.lambdaFunction, this.dispatcher.role, `the ${tool.spec.name} function`);
    }

    this.eventBus = runEventBus(this, props.eventBus);

    // Run workspaces and the claim-check: the bucket, the dispatcher's access to its
    // runs/ and scratch/ prefixes only, and the sizes. Tool functions return whole
    // results (up to FULL_RESULT_MAX_BYTES); the dispatcher stores what exceeds the inline budget.
    const inlineBytes = props.resultInlineBytes ?? DEFAULT_RESULT_INLINE_BYTES;
    if (resultInlineBytes({ RESULT_INLINE_BYTES: String(inlineBytes) }) !== inlineBytes) {
      throw new Error(`resultInlineBytes ${inlineBytes} is not a whole number of bytes from 8 KiB to 64 KiB`);
    }
    if (this.inlineResultBytes < MIN_RESULT_INLINE_BYTES) {
      throw new Error(
        `The scenarios hold so many results at once that each may be only ${this.inlineResultBytes} bytes ` +
          `inline; the claim-check needs at least ${MIN_RESULT_INLINE_BYTES}: split the largest level's calls`,
      );
    }
    this.dispatcher.lambdaFunction.addEnvironment('RUN_BUCKET', this.runWorkspace.bucket.bucketName);
    // The smaller of the operator's budget and the scenarios' (every state under its budget).
    this.dispatcher.lambdaFunction.addEnvironment(
      'RESULT_INLINE_BYTES',
      String(Math.min(inlineBytes, this.inlineResultBytes)),
    );
    for (const tool of Object.values(toolFunctions)) {
      tool.lambdaFunction.addEnvironment('TOOL_RESULT_MAX_BYTES', String(FULL_RESULT_MAX_BYTES));
      // A plan call is finished by its tool's function (functions/runtime/tool-callback.ts): the same
      // claim-check into the run workspace, with the run-data session the dispatcher vends, and budget.
      tool.lambdaFunction.addEnvironment('RUN_BUCKET', this.runWorkspace.bucket.bucketName);
      tool.lambdaFunction.addEnvironment(
        'RESULT_INLINE_BYTES',
        String(Math.min(inlineBytes, this.inlineResultBytes)),
      );
      // Started asynchronously by the dispatcher for a plan call: never retried by Lambda.
      configureToolAsyncInvoke(tool.lambdaFunction);
      if (takesAthenaRoute(tool.spec)) {
        for (const [name, value] of Object.entries(athenaEnvironment))
          tool.lambdaFunction.addEnvironment(name, value);
      }
    }

    this.runRecordsTable = new Table(this, 'RunRecords', {
      partitionKey: { name: 'tenant_id', type: AttributeType.STRING },
      sortKey: { name: 'record_id', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      // Answered and expired questions go away by themselves.
      timeToLiveAttribute: 'expires_ttl',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Run workspaces and records by tenant: the dispatcher and the engine reach them only with
    // the call's (or run's) tenant's session of this role (docs/tenant-isolation.md).
    this.runData = new TenantRunData(this, 'RunData', {
      bucket: this.runWorkspace.bucket,
      table: this.runRecordsTable,
    });
    this.dispatcher.lambdaFunction.addEnvironment(
      RUN_DATA_ROLE_ENV,
      this.runData.grantSessionsTo(this.dispatcher.role),
    );
    // A workspace tool's files: a run-data session narrowed to them in the call's run.
    readerRoles[RUN_DATA_SESSION] = this.runData.role.roleArn;
    this.dispatcher.lambdaFunction.addEnvironment(
      SECRET_READER_ROLES_ENV,
      Stack.of(this).toJsonString(readerRoles),
    );
    this.engine = new EngineFunction(this, 'Engine', {
      config: engineConfig(
        this.scenarios,
        functionMemory(catalog, {
          engineMb: props.engineSettings?.memorySizeMb ?? props.functionSettings?.memorySizeMb,
          dispatcherMb: props.functionSettings?.memorySizeMb,
          toolMb: Object.fromEntries(
            Object.keys(toolFunctions).map((name) => [
              name,
              props.toolFunctionSettings?.[name]?.memorySizeMb ?? props.functionSettings?.memorySizeMb,
            ]),
          ),
        }),
      ),
      workspaceBucket: this.runWorkspace.bucket,
      runRecordsTable: this.runRecordsTable,
      runData: this.runData,
      logRetention: props.logRetention,
      settings: { ...props.functionSettings, ...props.engineSettings },
    });

    // Per-account levels list their accounts through the dispatcher (aws_org_accounts): the engine may
    // invoke the dispatcher, and no other function (functions/engine/account-directory.ts).
    if (Object.keys(accountLevels(this.scenarios)).length > 0) {
      this.engine.lambdaFunction.addEnvironment(
        DISPATCHER_FUNCTION_ENV,
        this.dispatcher.lambdaFunction.functionName,
      );
      grantInvokeAcknowledged(this.dispatcher.lambdaFunction, this.engine.role, 'the dispatcher');
    }

    const stateMachines: Record<string, StateMachine> = {};
    const machineName = (scenario: string) => `${this.dispatcherConfig.toolFunctionNamePrefix}${scenario}`;
    for (const scenario of this.scenarios) {
      const { stateMachine } = new ScenarioStateMachine(this, `${pascalCase(scenario.name)}Scenario`, {
        scenario,
        dispatcher: this.dispatcher.lambdaFunction,
        engine: this.engine.lambdaFunction,
        stateMachineName: machineName(scenario.name),
        logRetention: props.logRetention,
        runEventBus: this.eventBus,
        workspaceBucket: this.runWorkspace.bucket,
        lambdaConcurrency: props.lambdaConcurrency,
      });
      stateMachines[scenario.name] = stateMachine;
    }
    this.stateMachines = stateMachines;
    // Plan calls wait for their task tokens: the dispatcher and their tools' functions answer them.
    grantTaskAnswers(this, {
      scenarios: this.scenarios,
      stateMachineName: machineName,
      toolRoles: Object.fromEntries(Object.entries(toolFunctions).map(([name, tool]) => [name, tool.role])),
      dispatcher: this.dispatcher.role,
    });
    this.schedules = new ScenarioSchedules(this, 'Schedules', {
      schedules: props.schedules ?? [],
      scenarios: this.scenarios,
      stateMachines,
    });
    this.entryPoints = new EntryPoints(this, 'EntryPoints', {
      ...props,
      catalog,
      dispatcher: this.dispatcher.lambdaFunction,
      scenarios: this.scenarios,
      stateMachines,
    });
    if (props.console) {
      this.console = new PlatformConsole(this, 'Console', {
        ...props.console,
        catalog: consoleCatalog(catalog, this.scenarios),
        secretReferenceTable: this.secretReferenceTable,
        runRecordsTable: this.runRecordsTable,
        runWorkspace: this.runWorkspace,
        stateMachines,
        logRetention: props.logRetention,
        functionSettings: { ...props.functionSettings, ...props.console.functionSettings },
      });
    }
  }
}
