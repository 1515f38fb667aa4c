/**
 * Runs scenario state machines AS SYNTHESIZED BY CDK in the local ASL
 * interpreter (aws-local-stepfunctions): the dispatcher's Task states go to the
 * real dispatcher handler (configured as the CDK bundles it), which invokes the
 * real tool handlers through a Lambda Invoke API on 127.0.0.1; the engine's go
 * to the engine with the configuration the CDK bundles, its model a scripted
 * Converse server on 127.0.0.1 reached by the Bedrock Runtime SDK client's own
 * (HTTP/2) handler, its run records in dynalite, its workspaces in a temporary
 * directory; the `ask_user` wait records the question through the engine and
 * waits for `answer`. Slack is a Web API server on 127.0.0.1. AWS tools are
 * stubbed at the SDK by the test.
 *
 * The dispatcher is the deployed wiring (`createDeployedDispatcher`) with a
 * local-directory workspace in place of the bucket: it claim-checks results over
 * the synthesized inline budget into the same workspaces the engine uses.
 *
 * Secrets are `env` references by default; with `deployedSecrets` they are read
 * as a deployed tool function reads them: with the reader sessions the
 * dispatcher vends from the synthesized reader roles (SECRET_READER_ROLES), a local STS, Secrets Manager and a DynamoDB gate that
 * apply the tenant-scope rules (test/helpers/local-iam.ts), the customer role
 * assumed for AWS tools.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { callbackServices, callbackTaskHandler, LocalTaskTokens } from '../../bin/local/local-callbacks';
import { directoryObjectStore } from '../../bin/local/local-distributed-map';
import { executeLocally, type StateEvent } from '../../bin/local/local-execution';
import { localWorkspaceProvider } from '../../bin/local/local-workspace';
import {
  type ReceivedConverse,
  type Responder,
  type ScriptedModel,
  type ScriptedResponse,
  startScriptedModel,
} from '../../bin/local/scripted-model';
import { toolFunctionName } from '../../functions/dispatcher/config';
import type { Dispatch } from '../../functions/dispatcher/dispatch';
import { dispatchedAccountDirectory } from '../../functions/engine/account-directory';
import type { EngineConfig } from '../../functions/engine/config';
import { DynamoDbRunRecords } from '../../functions/engine/dynamodb-run-records';
import { createEngine, type RunOutput } from '../../functions/engine/engine';
import { BedrockModelClient, MODEL_CLIENT_SETTINGS } from '../../functions/engine/model-client';
import { type WorkspaceFactory, workspacesOf } from '../../functions/engine/workspaces';
import { CUSTOMER_ROLE_NAME_ENV } from '../../functions/runtime/aws/credentials';
import { CUSTOMER_ROLE_NAME } from '../../functions/runtime/aws/trust';
import { deadlineIn } from '../../functions/runtime/deadline';
import { logger } from '../../functions/runtime/logger';
import { createPostCall } from '../../functions/runtime/post-call';
import type { ToolResult } from '../../functions/runtime/result';
import {
  DEFAULT_RESULT_INLINE_BYTES,
  DEFAULT_RESULT_MAX_BYTES,
  FULL_RESULT_MAX_BYTES,
} from '../../functions/runtime/result-limits';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { SECRET_READER_ROLES_ENV } from '../../functions/runtime/secrets/tenant-scope';
import { IDEMPOTENCY_SESSION, SECRET_SESSIONS_ENV } from '../../functions/runtime/secrets/vended';
import type { Tool } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from '../../lib/scenarios/asl';
import { WORKSPACE_BUCKET_PLACEHOLDER } from '../../lib/scenarios/asl-states/tasks';
import { SCENARIOS_DIR } from '../../lib/scenarios/loader';
import { RUN_EVENT_BUS_PLACEHOLDER } from '../../lib/scenarios/run-events';
import { flattenIntrinsics, logicalIdOf, synthesizePlatform } from './cdk';
import {
  createIdempotencyTable,
  createRunRecordsTable,
  createSecretReferenceTable,
  type LocalDynamoDb,
  startDynalite,
} from './dynalite';
import { bundleDispatcherConfig } from './events';
import { type GitHubServerOptions, type LocalGitHub, startGitHubServer } from './github-server';
import { incidentGitHub, incidentPagerDuty } from './incident-world';
import { type LocalLambda, startLambdaServer } from './lambda-server';
import {
  type LocalDynamoGate,
  type LocalSecretsManager,
  type LocalSts,
  startDynamoGate,
  startLocalSecretsManager,
  startLocalSts,
} from './local-iam';
import { FAKE_AWS_CREDENTIALS } from './loopback-server';
import { type LocalPagerDuty, startPagerDutyServer } from './pagerduty-server';
import { platformBedrockRuntimeClient, platformLambdaClient } from './platform-sdk';
import { type LocalSlack, type SlackServerOptions, startSlackServer } from './slack-server';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const DISPATCHER_ARN = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:etp-dispatcher`;
const ENGINE_ARN = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:etp-engine`;
/** Step Functions' limit on a state's input or output, in bytes: 256 KiB ("Step Functions service quotas"). */
export const STATE_LIMIT_BYTES = 256 * 1024;

/** The run-event bus's name in the definitions the harness runs. */
export const RUN_EVENT_BUS = 'etp-run-events';

/**
 * The bucket of the definitions' Distributed Maps (`ItemReader`, `ResultWriter`):
 * the workspaces' directory stands in for it, with the same keys.
 */
export const HARNESS_WORKSPACE_BUCKET = 'etp-e2e-runs';

/** A question the run asked, as the wait state got it. */
export interface AskedQuestion {
  readonly runId: string;
  readonly level: string;
  readonly question: string;
  readonly taskToken: string;
}

/** How one run goes. */
export interface HarnessRunOptions {
  readonly runId: string;
  readonly input?: Record<string, unknown>;
  /** The scripted model's responses (in order), or a responder. @default no model call expected */
  readonly model?: readonly ScriptedResponse[] | Responder;
  /**
   * Answers a question: the answer text, the task's whole output (what SendTaskSuccess
   * sent), or undefined for none (the wait times out). @default no answer
   */
  readonly answer?: (question: AskedQuestion) => Promise<string | Record<string, unknown> | undefined>;
  /** Keep every state's input and output in {@link HarnessRun.states}. @default false (only their sizes are measured) */
  readonly keepStates?: boolean;
}

/** A state entered (its input) or left (its output), as the interpreter reported it. */
export interface StateRecord extends StateEvent {
  readonly event: 'entered' | 'exited';
}

/** What a run did. */
export interface HarnessRun {
  readonly output: RunOutput;
  /** The Converse requests the scripted model received. */
  readonly modelRequests: ScriptedModel['requests'];
  /** Every dispatcher result, in completion order. */
  readonly results: readonly ToolResult[];
  /** States entered, Map iterations' included. */
  readonly transitions: number;
  /** The largest state input or output, in bytes. */
  readonly largestStateBytes: number;
  /** The EventBridge entries the run put (its `Run Completed` event). */
  readonly events: readonly unknown[];
  /** Every state entered and left, in order, with its data (empty unless `keepStates`). */
  readonly states: readonly StateRecord[];
}

/**
 * Secret access as deployed ({@link HarnessOptions.deployedSecrets}): the local
 * IAM-emulating services, and the reference table as the operator's CLI writes it.
 */
export interface DeployedSecretAccess {
  readonly sts: LocalSts;
  readonly secretsManager: LocalSecretsManager;
  readonly gate: LocalDynamoGate;
  /** The reference table through the operator's own client (not a reader session): seeds rows. */
  readonly store: DynamoDbSecretReferenceStore;
  /** Secret name → its reader role's ARN, as the tool functions get it in SECRET_READER_ROLES. */
  readonly readerRoles: Readonly<Record<string, string>>;
}

/** The running harness. */
export interface ScenarioHarness {
  readonly slack: LocalSlack;
  /** The local GitHub (test/helpers/github-server.ts), holding the Incident Response repository. */
  readonly github: LocalGitHub;
  /** The local PagerDuty (test/helpers/pagerduty-server.ts), holding the Incident Response incident. */
  readonly pagerduty: LocalPagerDuty;
  readonly dynamo: LocalDynamoDb;
  readonly lambda: LocalLambda;
  readonly records: DynamoDbRunRecords;
  readonly workspaces: WorkspaceFactory;
  /** The workspaces' directory. */
  readonly localDir: string;
  /** The dispatcher's inline result budget, as synthesized. */
  readonly inlineResultBytes: number;
  /** The engine's configuration as synthesized: the scenarios and the functions' memory. */
  readonly engineConfig: EngineConfig;
  /** The synthesized definitions by scenario name, ARNs filled in. */
  readonly definitions: Readonly<Record<string, Record<string, unknown>>>;
  /** The synthesized platform stack. */
  readonly template: Template;
  /** With `deployedSecrets`: the services secrets are read through. */
  readonly deployed?: DeployedSecretAccess;
  run(scenario: string, options: HarnessRunOptions): Promise<HarnessRun>;
  stop(): Promise<void>;
}

/** Options of {@link startScenarioHarness}. */
export interface HarnessOptions {
  /** Extra scenario files (name → YAML text) and prompt files (`prompts/<name>` → text) beside the shipped ones. */
  readonly files?: Readonly<Record<string, string>>;
  /** Tenants whose secrets the table references: each gets aws_default and slack_default. @default ['default'] */
  readonly tenants?: readonly string[];
  /**
   * Read secrets as a deployed tool function does: through the synthesized reader
   * roles (SECRET_READER_ROLES), sessions from a local STS, rows through a DynamoDB
   * gate and values from a local Secrets Manager that apply the tenant-scope rules,
   * and the customer role (CUSTOMER_ROLE_NAME) assumed for AWS tools. No reference
   * row is written and `tenants` is ignored: the test seeds secrets and rows
   * through {@link ScenarioHarness.deployed}.
   * @default false (`env` references for `tenants`)
   */
  readonly deployedSecrets?: boolean;
  /** Options of the local Slack (the bot token a seeded secret holds). @default its defaults */
  readonly slack?: SlackServerOptions;
  /**
   * More secrets every tenant references (name → value, objects written as JSON):
   * `{ crm_default: { provider: 'hubspot', token } }` for a connector's fake.
   * @default none
   */
  readonly secrets?: Readonly<Record<string, unknown>>;
  /** Organizations the local GitHub holds besides the Incident Response repository (`GitHubServerOptions.orgs`). @default none */
  readonly githubOrgs?: GitHubServerOptions['orgs'];
}

/** The variable an extra secret of {@link HarnessOptions.secrets} is read from. */
function extraSecretVariable(name: string): string {
  return `ETP_E2E_${name.toUpperCase()}`;
}

/** The exactly-once records role's ARN (the local STS issues sessions for any ARN). */
const RECORDS_ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/etp-idempotency-records`;

/**
 * A reader role ARN per secret name the synthesized readers serve, and the records
 * role under its key, as the dispatcher gets them (the local STS issues sessions for any ARN).
 */
function readerRoleArns(names: readonly string[]): Record<string, string> {
  return {
    ...Object.fromEntries(names.map((name) => [name, `arn:aws:iam::${ACCOUNT}:role/etp-reader-${name}`])),
    [IDEMPOTENCY_SESSION]: RECORDS_ROLE_ARN,
  };
}

/** Starts the local STS, Secrets Manager and DynamoDB gate, with the environment that routes a tool function to them. */
async function startDeployedSecretAccess(
  dynamo: LocalDynamoDb,
  secretTable: string,
  readerNames: readonly string[],
): Promise<{ access: DeployedSecretAccess; env: Record<string, string> }> {
  const readerRoles = readerRoleArns(readerNames);
  const sts = await startLocalSts();
  const [gate, secretsManager] = await Promise.all([
    startDynamoGate(dynamo.endpoint, sts, RECORDS_ROLE_ARN),
    startLocalSecretsManager(
      sts,
      (role) => Object.entries(readerRoles).find(([, arn]) => arn === role)?.[0],
      REGION,
    ),
  ]);
  return {
    access: {
      sts,
      secretsManager,
      gate,
      store: new DynamoDbSecretReferenceStore(secretTable, dynamo.client),
      readerRoles,
    },
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint,
      AWS_ENDPOINT_URL_STS: sts.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
      // The dispatcher vends (it reads the reader roles); the tool functions read with what it vends.
      [SECRET_READER_ROLES_ENV]: JSON.stringify(readerRoles),
      [SECRET_SESSIONS_ENV]: 'vended',
      [CUSTOMER_ROLE_NAME_ENV]: CUSTOMER_ROLE_NAME,
    },
  };
}

/**
 * Synthesizes the platform over the shipped scenarios (plus `options.files`),
 * starts dynalite, the local Lambda and Slack, and wires the handlers.
 */
export async function startScenarioHarness(options: HarnessOptions = {}): Promise<ScenarioHarness> {
  const scenariosDir = mkdtempSync(path.join(tmpdir(), 'etp-scenarios-'));
  const localDir = mkdtempSync(path.join(tmpdir(), 'etp-runs-'));
  cpSync(SCENARIOS_DIR, scenariosDir, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {}))
    writeFileSync(path.join(scenariosDir, name), text);

  const [dynamo, lambda, slack, github, pagerduty] = await Promise.all([
    startDynalite(),
    startLambdaServer(),
    startSlackServer(options.slack),
    startGitHubServer({
      repos: incidentGitHub(),
      ...(options.githubOrgs ? { orgs: options.githubOrgs } : {}),
    }),
    startPagerDutyServer({ world: incidentPagerDuty() }),
  ]);
  const secretTable = await createSecretReferenceTable(dynamo.client);
  const runTable = await createRunRecordsTable(dynamo.client);
  const idempotencyTable = await createIdempotencyTable(dynamo.client);
  const store = new DynamoDbSecretReferenceStore(secretTable, dynamo.client);
  for (const tenant of options.deployedSecrets ? [] : (options.tenants ?? ['default'])) {
    await store.put({
      tenant_id: tenant,
      secret_name: 'aws_default',
      ref_kind: 'env',
      ref_value: 'ETP_E2E_AWS',
    });
    await store.put({
      tenant_id: tenant,
      secret_name: 'slack_default',
      ref_kind: 'env',
      ref_value: 'ETP_E2E_SLACK',
    });
    for (const [secret_name, ref_value] of [
      ['github_default', 'ETP_E2E_GITHUB'],
      ['pagerduty_default', 'ETP_E2E_PAGERDUTY'],
    ] as const) {
      await store.put({ tenant_id: tenant, secret_name, ref_kind: 'env', ref_value });
    }
    for (const name of Object.keys(options.secrets ?? {})) {
      await store.put({
        tenant_id: tenant,
        secret_name: name,
        ref_kind: 'env',
        ref_value: extraSecretVariable(name),
      });
    }
  }
  for (const [name, value] of Object.entries(options.secrets ?? {})) {
    process.env[extraSecretVariable(name)] = typeof value === 'string' ? value : JSON.stringify(value);
  }

  const { stack, template } = synthesizePlatform({ scenariosDir });
  const platform = stack.platform;
  const definitions: Record<string, Record<string, unknown>> = {};
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  for (const [name, machine] of Object.entries(platform.stateMachines)) {
    const id = logicalIdOf(machine);
    const text = flattenIntrinsics(
      (machines[id]?.Properties as { DefinitionString?: unknown } | undefined)?.DefinitionString,
    )
      .replaceAll(DISPATCHER_ARN_PLACEHOLDER, DISPATCHER_ARN)
      .replaceAll(ENGINE_ARN_PLACEHOLDER, ENGINE_ARN)
      .replaceAll(RUN_EVENT_BUS_PLACEHOLDER, RUN_EVENT_BUS)
      .replaceAll(WORKSPACE_BUCKET_PLACEHOLDER, HARNESS_WORKSPACE_BUCKET);
    definitions[name] = JSON.parse(text) as Record<string, unknown>;
  }

  const deployed = options.deployedSecrets
    ? await startDeployedSecretAccess(dynamo, secretTable, Object.keys(platform.secretReaders.roles))
    : undefined;

  bundleDispatcherConfig(platform.dispatcherConfig);
  Object.assign(process.env, {
    AWS_REGION: REGION,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: secretTable,
    IDEMPOTENCY_TABLE: idempotencyTable,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_API_URL: github.apiUrl,
    PAGERDUTY_API_URL: pagerduty.apiUrl,
    // As the CDK sets them: tools return whole results, the dispatcher claim-checks past the inline budget.
    RESULT_MAX_BYTES: String(DEFAULT_RESULT_MAX_BYTES),
    RESULT_INLINE_BYTES: String(Math.min(DEFAULT_RESULT_INLINE_BYTES, platform.inlineResultBytes)),
    TOOL_RESULT_MAX_BYTES: String(FULL_RESULT_MAX_BYTES),
    ...(deployed
      ? deployed.env
      : {
          ETP_E2E_AWS: JSON.stringify({ region: REGION }),
          ETP_E2E_SLACK: JSON.stringify({ bot_token: slack.botToken }),
          ETP_E2E_GITHUB: JSON.stringify({ token: github.token }),
          ETP_E2E_PAGERDUTY: JSON.stringify({ token: pagerduty.apiKey, from: 'oncall@example.com' }),
        }),
  });
  // Plan calls wait for their task tokens: the tools' functions (and the dispatcher, for a call
  // that ends in it) answer them here, Step Functions' SendTaskSuccess/Failure (bin/local/local-callbacks.ts).
  const tokens = new LocalTaskTokens();
  const inlineBytes = Math.min(DEFAULT_RESULT_INLINE_BYTES, platform.inlineResultBytes);
  const callbacks = callbackServices({
    // As a deployed tool function's (functions/runtime/tool-callback.ts), its bucket a local directory.
    postCall: createPostCall({
      logger,
      maxResultBytes: inlineBytes,
      workspaces: localWorkspaceProvider(localDir),
      inlineResultBytes: inlineBytes,
    }),
    tokens,
    logger,
  });
  const { createToolHandler } = jest.requireActual<typeof import('../../functions/runtime/tool-handler')>(
    '../../functions/runtime/tool-handler',
  );
  // Every function tool's real handler behind the local Lambda API, loaded now that their configuration is set:
  // built as its module builds it (createToolHandler), with the callback services above.
  for (const entry of toolCatalog.functionTools()) {
    const module = jest.requireActual<Record<string, unknown>>(
      `../../functions/tools/${entry.implementation}`,
    );
    const tool = Object.values(module).find(
      (value): value is Tool =>
        (value as Tool | null)?.name === entry.spec.name && typeof (value as Tool).handler === 'function',
    );
    if (!tool) throw new Error(`${entry.implementation} exports no tool named ${entry.spec.name}`);
    lambda.setFunction(
      toolFunctionName(platform.dispatcherConfig.toolFunctionNamePrefix, entry.spec.name),
      createToolHandler(tool, { callbacks: () => callbacks }),
    );
  }
  // The deployed dispatcher's very wiring, its bucket replaced by a local directory (the S3
  // workspace itself is tested against s3rver: test/integration/workspace).
  const { createDeployedDispatcher } = jest.requireActual<
    typeof import('../../functions/dispatcher/handler')
  >('../../functions/dispatcher/handler');
  const deployedDispatcher = createDeployedDispatcher(
    platform.dispatcherConfig,
    // The harness's own Lambda client class: a tool test's mockClient(LambdaClient) cannot reach it.
    new (platformLambdaClient())({ endpoint: lambda.endpoint, region: REGION }),
    localWorkspaceProvider(localDir),
    tokens,
  );
  const dispatch: Dispatch = (envelope) => deployedDispatcher.dispatch(envelope, deadlineIn(900_000));
  const planCall = callbackTaskHandler(tokens, deployedDispatcher.callback, 900_000);
  const workspaces = workspacesOf(localWorkspaceProvider(localDir));
  const records = new DynamoDbRunRecords(runTable, dynamo.client);

  return {
    slack,
    github,
    pagerduty,
    dynamo,
    lambda,
    records,
    workspaces,
    localDir,
    inlineResultBytes: platform.inlineResultBytes,
    engineConfig: platform.engine.config,
    definitions,
    template,
    ...(deployed ? { deployed: deployed.access } : {}),
    async run(scenario, run) {
      const definition = definitions[scenario];
      if (!definition) throw new Error(`No state machine for ${scenario}`);
      const model = await startScriptedModel(run.model ?? []);
      const client = new (platformBedrockRuntimeClient())({
        ...MODEL_CLIENT_SETTINGS,
        region: REGION,
        endpoint: model.url,
        credentials: FAKE_AWS_CREDENTIALS,
      });
      const engine = createEngine({
        config: platform.engine.config,
        catalog: toolCatalog,
        workspaces,
        records,
        model: new BedrockModelClient(client),
        logger,
        // Per-account levels list their accounts through the dispatcher, as deployed (aws_org_accounts).
        accounts: dispatchedAccountDirectory(
          (envelope) => dispatch(envelope, deadlineIn(900_000)),
          workspaces,
        ),
      });
      const results: ToolResult[] = [];
      const events: unknown[] = [];
      const states: StateRecord[] = [];
      let transitions = 0;
      let largestStateBytes = 0;
      const oversized: string[] = [];
      const measure = (event: StateEvent, what: 'input' | 'output') => {
        const bytes = Buffer.byteLength(JSON.stringify(event.data ?? null));
        largestStateBytes = Math.max(largestStateBytes, bytes);
        // Step Functions fails the execution, uncatchably, past 256 KiB ("Step Functions service quotas").
        if (bytes > STATE_LIMIT_BYTES) oversized.push(`${event.name}'s ${what} is ${bytes} bytes`);
      };
      try {
        const output = await executeLocally(
          definition,
          run.input ?? {},
          (state) => {
            if (state.resource === DISPATCHER_ARN) {
              return async (envelope) => {
                const result = await dispatch(envelope, deadlineIn(900_000));
                results.push(result);
                return result;
              };
            }
            if (state.resource === WAIT_FOR_TASK_TOKEN_RESOURCE) {
              return async (input) => {
                // A plan call: the deployed dispatcher hands it to its tool's function (Event), which answers.
                if ((input as { FunctionName?: unknown }).FunctionName === DISPATCHER_ARN) {
                  const result = (await planCall(input)) as ToolResult;
                  results.push(result);
                  return result;
                }
                const payload = (input as { Payload: Record<string, unknown> }).Payload;
                await engine(payload);
                const answer = await (run.answer ?? (async () => undefined))({
                  runId: String(payload.runId),
                  level: String(payload.level),
                  question: String(payload.question),
                  taskToken: String(payload.taskToken),
                });
                if (answer === undefined)
                  throw Object.assign(new Error('No answer'), { name: 'States.Timeout' });
                return typeof answer === 'string'
                  ? { answered: true, text: answer, by: 'e2e', at: new Date().toISOString() }
                  : answer;
              };
            }
            if (state.resource === ENGINE_ARN) return (payload) => engine(payload);
            throw new Error(`No route for Task state ${state.name} (${state.resource})`);
          },
          {
            runId: run.runId,
            checkArns: true,
            taskToken: `e2e-task-token-${run.runId}`,
            objects: directoryObjectStore(localDir, HARNESS_WORKSPACE_BUCKET),
            onStateEntered: (event) => {
              transitions++;
              measure(event, 'input');
              if (run.keepStates) states.push({ event: 'entered', ...event });
            },
            onStateExited: (event) => {
              measure(event, 'output');
              if (run.keepStates) states.push({ event: 'exited', ...event });
            },
            onPutEvents: (entries) => events.push(...(entries as unknown[])),
          },
        );
        if (oversized.length > 0) {
          throw Object.assign(
            new Error(
              `The execution would fail (States.DataLimitExceeded, 256 KiB): ${oversized.join('; ')}`,
            ),
            { name: 'States.DataLimitExceeded' },
          );
        }
        // The scripted model refuses what Bedrock refuses: such a request is a failed test, whatever the run made of it.
        if (model.refused.length > 0) {
          throw new Error(
            `Bedrock would refuse ${model.refused.length} request(s) of this run: ${model.refused
              .map((r) => `#${r.index}: ${r.problems.map((p) => `${p.at}: ${p.problem}`).join('; ')}`)
              .join(' | ')}`,
          );
        }
        return {
          output: output as RunOutput,
          modelRequests: model.requests,
          results,
          transitions,
          largestStateBytes,
          events,
          states,
        };
      } finally {
        client.destroy();
        await model.stop();
      }
    },
    async stop() {
      const access = deployed?.access;
      await Promise.all([
        dynamo.stop(),
        lambda.stop(),
        slack.stop(),
        github.stop(),
        pagerduty.stop(),
        ...(access ? [access.gate.stop(), access.sts.stop(), access.secretsManager.stop()] : []),
      ]);
      rmSync(scenariosDir, { recursive: true, force: true });
      rmSync(localDir, { recursive: true, force: true });
    },
  };
}

/** The toolResult blocks of the last user message of a Converse request. */
export function toolResultsOf(
  request: ReceivedConverse | undefined,
): { status?: string; json: Record<string, unknown> }[] {
  const last = request?.body.messages?.at(-1);
  return (last?.content ?? []).flatMap((block) => {
    const result = block.toolResult as
      | { status?: string; content: { json: Record<string, unknown> }[] }
      | undefined;
    return result ? [{ status: result.status, json: result.content[0]?.json ?? {} }] : [];
  });
}

/** The text of the first message of a Converse request: the level's prompt. */
export function firstPrompt(request: ReceivedConverse | undefined): string {
  return String((request?.body.messages?.[0]?.content[0] as { text?: string } | undefined)?.text ?? '');
}
