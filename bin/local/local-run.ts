import type { Logger } from '@aws-lambda-powertools/logger';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Dispatch } from '../../functions/dispatcher/dispatch';
import { dispatchedAccountDirectory } from '../../functions/engine/account-directory';
import type { ScenarioLevel } from '../../functions/engine/definition';
import { createEngine, type Engine, type RunOutput } from '../../functions/engine/engine';
import type { TurnState } from '../../functions/engine/events';
import {
  BedrockModelClient,
  MODEL_CLIENT_SETTINGS,
  type ModelClient,
} from '../../functions/engine/model-client';
import type { LevelRecord } from '../../functions/engine/records';
import type { RunRecords } from '../../functions/engine/run-records';
import type { WorkspaceFactory } from '../../functions/engine/workspaces';
import { jsonByteLength } from '../../functions/runtime/bound';
import { deadlineIn } from '../../functions/runtime/deadline';
import { newRunId } from '../../functions/runtime/ids';
import { logger as platformLogger } from '../../functions/runtime/logger';
import type { ToolResult } from '../../functions/runtime/result';
import { toolCatalog } from '../../functions/tools/catalog';
import { scenarioToAsl, WAIT_FOR_TASK_TOKEN_RESOURCE } from '../../lib/scenarios/asl';
import { WORKSPACE_BUCKET_PLACEHOLDER } from '../../lib/scenarios/asl-states/tasks';
import { engineConfig, functionMemory } from '../../lib/scenarios/engine-config';
import type { Scenario } from '../../lib/scenarios/model';
import type { AnswerSource } from './local-answers';
import { callbackTaskHandler, LocalTaskTokens } from './local-callbacks';
import {
  answeringDispatch,
  LOCAL_CALL_BUDGET_MS,
  LOCAL_DISPATCHER_ARN,
  type LocalDispatcher,
} from './local-dispatcher';
import { directoryObjectStore } from './local-distributed-map';
import { executeLocally, type StateEvent } from './local-execution';

/** The engine function's ARN in a locally run definition; answered in this process too. */
export const LOCAL_ENGINE_ARN = 'arn:aws:lambda:local:000000000000:function:etp-engine';

/**
 * A run id for a local run: `local-<UTC timestamp>-<6 hex chars>`, e.g.
 * `local-20250102T030405Z-a1b2c3`. It is also the execution name, so it keeps to
 * what Step Functions accepts there (AWS docs, "StartExecution": 1-80 characters,
 * no `:`).
 */
export function localRunId(now: Date = new Date()): string {
  return newRunId('local', now);
}

/** Credentials a Converse-compatible endpoint other than Bedrock gets: it signs nothing anyone checks. */
const ENDPOINT_CREDENTIALS = { accessKeyId: 'etp-local-model', secretAccessKey: 'etp-local-model' };

/**
 * The model client of a local run: Bedrock with the default credential chain
 * and region, or, with `endpoint`, any Converse-compatible server (the scripted
 * model of `etp model serve`, a proxy) over HTTP/1.1, which every server speaks,
 * signed with placeholder credentials so your own are never sent elsewhere.
 */
export function localModelClient(endpoint?: string): ModelClient {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  if (!endpoint)
    return new BedrockModelClient(new BedrockRuntimeClient({ ...MODEL_CLIENT_SETTINGS, region }));
  return new BedrockModelClient(
    new BedrockRuntimeClient({
      ...MODEL_CLIENT_SETTINGS,
      region,
      endpoint,
      credentials: ENDPOINT_CREDENTIALS,
      requestHandler: new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: 120_000 }),
    }),
  );
}

/** What a local engine is built from. */
export interface LocalEngineOptions {
  readonly scenarios: readonly Scenario[];
  readonly workspaces: WorkspaceFactory;
  readonly records: RunRecords;
  /**
   * The Converse endpoint of a local model (`etp model serve`), or absent for
   * Bedrock: the model client is built for it ({@link localModelClient}), and
   * the run summary prices its tokens at $0 (functions/engine/local-model-cost.ts).
   */
  readonly modelEndpoint?: string;
  /** A model client of the caller's own (tests): used instead of one for `modelEndpoint`. */
  readonly model?: ModelClient;
  readonly logger?: Logger;
  /**
   * The local dispatcher ({@link createLocalDispatcher}): per-account levels list
   * their accounts through it (`aws_org_accounts`), as the deployed engine does
   * through the dispatcher function. @default - none: a per-account level says its accounts could not be listed
   */
  readonly dispatch?: Dispatch;
}

/** The engine as deployed (functions/engine/engine.ts), configured from the scenario files in this process. */
export function createLocalEngine(options: LocalEngineOptions): Engine {
  return createEngine({
    config: engineConfig(options.scenarios, functionMemory(toolCatalog)),
    catalog: toolCatalog,
    workspaces: options.workspaces,
    records: options.records,
    model: options.model ?? localModelClient(options.modelEndpoint),
    ...(options.modelEndpoint !== undefined ? { localModelEndpoint: options.modelEndpoint } : {}),
    logger: options.logger ?? platformLogger,
    ...(options.dispatch ? { accounts: localAccountDirectory(options.dispatch, options.workspaces) } : {}),
  });
}

/** The engine's account directory over the local dispatcher, each listing with a local call's budget. */
function localAccountDirectory(dispatch: Dispatch, workspaces: WorkspaceFactory) {
  return dispatchedAccountDirectory(
    (envelope) => dispatch(envelope, deadlineIn(LOCAL_CALL_BUDGET_MS)),
    workspaces,
  );
}

/**
 * The bucket name a locally run definition's Distributed Maps read and write
 * (`ItemReader`, `ResultWriter`): the local workspaces' directory stands in for it
 * (bin/local/local-distributed-map.ts, `directoryObjectStore`).
 */
export const LOCAL_WORKSPACE_BUCKET = 'etp-local-runs';

/** What happens in a local run, as progress reports it. */
export type RunEvent =
  | { readonly type: 'level_started'; readonly level: ScenarioLevel }
  | {
      readonly type: 'call_ended';
      readonly level: string;
      readonly result: ToolResult;
      /** The member account of a per-account call (the envelope's `account`). */
      readonly account?: string;
    }
  | { readonly type: 'turn'; readonly level: string; readonly turn: TurnState }
  | { readonly type: 'question'; readonly level: string; readonly question: string }
  | { readonly type: 'answer'; readonly level: string; readonly answer?: string }
  | { readonly type: 'level_ended'; readonly level: string; readonly record: LevelRecord };

/** What a local run needs besides the scenario. */
export interface LocalRunOptions {
  /** The execution input; the scenario's defaults fill what it leaves out (checked by the engine's `start`). */
  readonly input: Record<string, unknown>;
  /** The execution name (`$$.Execution.Name`), e.g. from {@link localRunId}. */
  readonly runId: string;
  /** Every scenario (the dispatcher's whitelists and the inline budget are computed over all of them). */
  readonly scenarios: readonly Scenario[];
  /**
   * The dispatcher answering the dispatcher's Task states ({@link createLocalDispatcher},
   * `requireLevel: true`); a plain {@link Dispatch} answers a plan call's token with its result.
   */
  readonly dispatch: Dispatch | LocalDispatcher;
  /** The engine answering the engine's Task states ({@link createLocalEngine}). */
  readonly engine: Engine;
  /** Answers `ask_user` questions. */
  readonly answers: AnswerSource;
  /**
   * The local workspaces' directory (the engine's and the dispatcher's): a
   * per-account level's Distributed Map reads its accounts and writes its results
   * there, as the service does in the bucket. @default - none: a per-account level's Map over more than 40 accounts fails
   */
  readonly workspaceDir?: string;
  /** Milliseconds each Retry waits (throttled model calls). @default 0 */
  readonly retryIntervalMs?: number;
  readonly onEvent?: (event: RunEvent) => void;
}

/** A local run's output and what it took. */
export interface LocalRunResult {
  /** The execution's output: the `Summary` state's `RunOutput` (`{ scenario, runId, tenant, input, levels, summary, completion, summaryFile, watermark? }`). */
  readonly output: RunOutput;
  /** States entered (Map iterations' included): what Step Functions bills as transitions. */
  readonly transitions: number;
  /** The same, by level (`Start` and `Summary` under their own names). */
  readonly transitionsByLevel: Readonly<Record<string, number>>;
  /** The largest state input or output, in bytes of JSON, and the state it was at. */
  readonly largestState: { readonly name: string; readonly bytes: number };
}

/** The error a local wait throws for "no answer": the name the definition's Catch matches, as a Task timeout. */
function noAnswer(): Error {
  return Object.assign(new Error('No answer'), { name: 'States.Timeout' });
}

/**
 * Runs a scenario in this process: its state machine definition (`scenarioToAsl`,
 * the one Step Functions runs) executed by the local interpreter, each Task
 * state answered in this process: dispatcher states by `dispatch` (its
 * claim-check writes to the local workspaces; a plan call's `.waitForTaskToken`
 * Task by its callback route, bin/local/local-callbacks.ts), engine states by `engine`, the `ask_user` wait by
 * `answers` (an unanswered question takes the timeout's path).
 *
 * @throws the interpreter's ExecutionError when the execution fails (its input
 *   rejected by `Start`, whose Cause says why).
 */
export async function runScenarioLocally(
  scenario: Scenario,
  options: LocalRunOptions,
): Promise<LocalRunResult> {
  const definition = JSON.parse(
    JSON.stringify(
      scenarioToAsl(scenario, { dispatcherArn: LOCAL_DISPATCHER_ARN, engineArn: LOCAL_ENGINE_ARN }),
    ).replaceAll(WORKSPACE_BUCKET_PLACEHOLDER, LOCAL_WORKSPACE_BUCKET),
  );
  const emit = options.onEvent ?? (() => {});
  const { dispatch } = options;
  const local = 'callback' in dispatch ? dispatch : undefined;
  const tokens = local?.tokens ?? new LocalTaskTokens();
  const planCall = callbackTaskHandler(
    tokens,
    local?.callback ?? answeringDispatch(dispatch, tokens),
    LOCAL_CALL_BUDGET_MS,
  );
  const levelsByName = new Map(scenario.levels.map((level) => [level.name, level]));
  const levelClosers = new Map(
    scenario.levels.flatMap((level) =>
      [`${level.name}_done`, `${level.name}_done_failed`, `${level.name}_failed`].map((state) => [
        state,
        level.name,
      ]),
    ),
  );
  let transitions = 0;
  const transitionsByLevel: Record<string, number> = {};
  // State names are `<level>` or `<level>_<role>`; the longest matching level wins (`a` vs `a_b`).
  const levelNames = scenario.levels.map((level) => level.name).sort((a, b) => b.length - a.length);
  const levelOfState = (state: string) =>
    levelNames.find((name) => state === name || state.startsWith(`${name}_`)) ?? state.replace(/Failed$/, '');
  let largestState = { name: '', bytes: 0 };
  const measure = (event: StateEvent) => {
    const bytes = jsonByteLength(event.data);
    if (bytes > largestState.bytes) largestState = { name: event.name, bytes };
  };

  const output = await executeLocally(
    definition,
    options.input,
    (state) => {
      if (state.resource === LOCAL_DISPATCHER_ARN) {
        return async (envelope) => {
          const result = await dispatch(envelope, deadlineIn(LOCAL_CALL_BUDGET_MS));
          const { level = '', account } = envelope as { level?: string; account?: string };
          if (!state.name.endsWith('_ask_post'))
            emit({ type: 'call_ended', level, result, ...(account ? { account } : {}) });
          return result;
        };
      }
      if (state.resource === WAIT_FOR_TASK_TOKEN_RESOURCE) {
        return async (input) => {
          // A plan call: its tool answers the Task's token (bin/local/local-callbacks.ts).
          if ((input as { FunctionName?: unknown } | null)?.FunctionName === LOCAL_DISPATCHER_ARN) {
            const result = (await planCall(input)) as ToolResult;
            const payload = (input as { Payload?: { level?: unknown; account?: unknown } }).Payload;
            emit({
              type: 'call_ended',
              level: String(payload?.level ?? ''),
              result,
              ...(typeof payload?.account === 'string' ? { account: payload.account } : {}),
            });
            return result;
          }
          const payload = (input as { Payload?: Record<string, unknown> }).Payload ?? {};
          await options.engine(payload);
          const level = String(payload.level);
          const question = String(payload.question);
          emit({ type: 'question', level, question });
          const answer = await options.answers.answer({
            scenario: scenario.name,
            runId: options.runId,
            level,
            turn: Number(payload.turn),
            question,
            timeoutSeconds: Number(payload.timeoutSeconds),
          });
          emit({ type: 'answer', level, ...(answer !== undefined ? { answer } : {}) });
          if (answer === undefined) throw noAnswer();
          return { answered: true, text: answer, by: 'local', at: new Date().toISOString() };
        };
      }
      return async (payload) => {
        const result = await options.engine(payload);
        const action = (payload as { action?: string }).action;
        if ((action === 'turn' || action === 'wrapup') && (result as TurnState).status !== 'done') {
          emit({
            type: 'turn',
            level: String((payload as { level?: string }).level),
            turn: result as TurnState,
          });
        }
        return result;
      };
    },
    {
      runId: options.runId,
      retryIntervalMs: options.retryIntervalMs,
      ...(options.workspaceDir !== undefined
        ? { objects: directoryObjectStore(options.workspaceDir, LOCAL_WORKSPACE_BUCKET) }
        : {}),
      onStateEntered: (event) => {
        transitions++;
        const owner = levelOfState(event.name);
        transitionsByLevel[owner] = (transitionsByLevel[owner] ?? 0) + 1;
        measure(event);
        const level = event.iteration === undefined ? levelsByName.get(event.name) : undefined;
        if (level) emit({ type: 'level_started', level });
      },
      onStateExited: (event) => {
        measure(event);
        const level = event.iteration === undefined ? levelClosers.get(event.name) : undefined;
        const record =
          level && (event.data as { levels?: Record<string, LevelRecord> } | null)?.levels?.[level];
        if (level && record) emit({ type: 'level_ended', level, record });
      },
    },
  );
  assertRunOutput(output);
  return { output, transitions, transitionsByLevel, largestState };
}

function assertRunOutput(output: unknown): asserts output is RunOutput {
  const fields = output as Partial<Record<keyof RunOutput, unknown>> | null;
  if (
    !fields ||
    typeof fields.scenario !== 'string' ||
    typeof fields.runId !== 'string' ||
    !fields.summary ||
    !fields.levels
  ) {
    throw new Error('The scenario execution ended without the output of its Summary state');
  }
}
