import { randomBytes } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { createDispatcher, type Dispatch } from '../../functions/dispatcher/dispatch';
import { deadlineIn } from '../../functions/runtime/deadline';
import { resultMaxBytes } from '../../functions/runtime/harness';
import { logger as platformLogger } from '../../functions/runtime/logger';
import type { ToolResult } from '../../functions/runtime/result';
import { FULL_RESULT_MAX_BYTES, resultInlineBytes } from '../../functions/runtime/result-limits';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import type { SecretReferenceStore } from '../../functions/runtime/secrets/reference';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import { toolHostServices } from '../../functions/runtime/tool-host';
import { toolCatalog } from '../../functions/tools/catalog';
import { type AslDefinition, scenarioToAsl } from '../../lib/scenarios/asl';
import { levelWhitelists } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import { InProcessToolInvoker } from './in-process-invoker';
import { executeLocally } from './local-execution';
import { defaultLocalWorkspaceDir, localWorkspaceProvider } from './local-workspace';

/**
 * The dispatcher ARN written into a locally run definition. Never called: every
 * Task state is answered in this process.
 */
export const LOCAL_DISPATCHER_ARN = 'arn:aws:lambda:local:000000000000:function:etp-dispatcher';

/**
 * Time budget of one local dispatcher call, in ms: 900 s, the longest a Lambda
 * function may run (AWS docs, "Lambda quotas"), so a local call is never cut
 * shorter than a deployed one. Tools in their own function get their spec's timeout.
 */
export const LOCAL_CALL_BUDGET_MS = 900_000;

/**
 * Where a local run reads secret references: the DynamoDB table when one is
 * named (its endpoint from the SDK's `AWS_ENDPOINT_URL_DYNAMODB`, e.g. a local
 * dynalite), else the embedded default store (`EMBEDDED_DEFAULT_REFERENCES`).
 */
export function localSecretReferences(table?: string): SecretReferenceStore {
  return table ? new DynamoDbSecretReferenceStore(table) : new InMemorySecretReferenceStore();
}

/** What {@link createLocalDispatcher} wires. */
export interface LocalDispatcherOptions {
  /** Secret references of the tenants, see {@link localSecretReferences}. */
  readonly references: SecretReferenceStore;
  /** Scenarios whose levels' `intra_tools` are enforced (`loadScenarios`). */
  readonly scenarios: readonly Scenario[];
  /** Whether every call must name its scenario and level: true for scenario runs, false for `etp tools invoke`. */
  readonly requireLevel: boolean;
  /** @default the platform's redacting Powertools logger */
  readonly logger?: Logger;
  /**
   * Base directory of the runs' workspaces (the local bucket): file tools and
   * claim-checked results go to `<dir>/runs/<tenant>/<scenario>/<runId>/`.
   * @default defaultLocalWorkspaceDir() (`ETP_WORKSPACE_DIR`, else <OS temp dir>/etp-workspaces)
   */
  readonly workspaceDir?: string;
}

/**
 * The deployed dispatcher's core with every tool run in this process
 * (`InProcessToolInvoker`, file tools in the dispatcher as deployed) and a
 * local-directory workspace in place of the bucket. AWS tools
 * fall back to the default credential chain when the tenant has no `aws_*`
 * secret, as a developer expects of a local command; deployed functions never do.
 *
 * @returns a {@link Dispatch} that never throws: every failure is an `ok: false` result.
 */
export function createLocalDispatcher(options: LocalDispatcherOptions): Dispatch {
  const logger = options.logger ?? platformLogger;
  const maxResultBytes = resultMaxBytes();
  const services = toolHostServices(new SecretResolver(options.references), {
    logger,
    awsFallbackToDefaultChain: true,
  });
  return createDispatcher({
    catalog: toolCatalog,
    whitelists: levelWhitelists(options.scenarios),
    // Tools return their whole result, as deployed: the dispatcher claim-checks what is too large.
    invoker: new InProcessToolInvoker(toolCatalog, services, FULL_RESULT_MAX_BYTES),
    services,
    logger,
    maxResultBytes,
    requireLevel: options.requireLevel,
    workspaces: localWorkspaceProvider(options.workspaceDir ?? defaultLocalWorkspaceDir()),
    inlineResultBytes: resultInlineBytes(),
  });
}

/**
 * A run id for a local run: `local-<UTC timestamp>-<6 hex chars>`, e.g.
 * `local-20250102T030405Z-a1b2c3`. It is also the execution name, so it keeps to
 * what Step Functions accepts there (AWS docs, "StartExecution": 1-80 characters,
 * no `:`).
 */
export function localRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `local-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** One dispatcher call of a run, as progress reports it. */
export interface LocalCall {
  readonly level: string;
  readonly tool: string;
  /** `level/index`, e.g. `collect/0`. */
  readonly callId: string;
}

/** What a scenario's final `Done` state outputs (see `scenarioToAsl`). */
export interface ScenarioRunOutput {
  readonly scenario: string;
  /** The execution input merged over the scenario's input defaults. */
  readonly input: Record<string, unknown>;
  /** Each call's ToolResult under `<level>_<index>`. */
  readonly results: Record<string, ToolResult>;
}

/** Options of {@link runScenarioLocally}. */
export interface LocalScenarioRunOptions {
  /** The execution input; the scenario's defaults fill what it leaves out. */
  readonly input: Record<string, unknown>;
  /** The execution name (`$$.Execution.Name`), e.g. from {@link localRunId}. */
  readonly runId: string;
  /** Answers each Task state, e.g. {@link createLocalDispatcher} with `requireLevel: true`. */
  readonly dispatch: Dispatch;
  /** Called as a call's Task state is entered. */
  readonly onCallStart?: (call: LocalCall) => void;
  /**
   * Called with the call's result as stored in `$.results`, once it is there:
   * the dispatcher's result, or the `internal_error` result of the Task's Catch
   * (the dispatcher threw, or the Task timed out).
   */
  readonly onCallEnd?: (call: LocalCall, result: ToolResult) => void;
}

/**
 * Runs a scenario in this process: its state machine definition (`scenarioToAsl`,
 * the one Step Functions runs) executed by the local interpreter, each Task
 * answered by `dispatch`. A failed tool is an `ok: false` result and the run
 * goes on, as deployed.
 *
 * @returns the `Done` state's output.
 * @throws the interpreter's ExecutionError when the execution itself fails
 *   (e.g. the input lacks a field a state reads, such as `tenant`).
 */
export async function runScenarioLocally(
  scenario: Scenario,
  options: LocalScenarioRunOptions,
): Promise<ScenarioRunOutput> {
  const definition = scenarioToAsl(scenario, LOCAL_DISPATCHER_ARN);
  const calls = localCallsOf(definition);
  let running: { key: string; call: LocalCall } | undefined;
  const output = await executeLocally(
    definition,
    options.input,
    (envelope) => options.dispatch(envelope, deadlineIn(LOCAL_CALL_BUDGET_MS)),
    {
      runId: options.runId,
      onStateEntered: (state) => {
        const call = calls.get(state);
        if (!call) return;
        running = { key: state, call };
        options.onCallStart?.(call);
      },
      // A call has ended when its result is in the state: after its Task, or after its Catch's Pass state.
      onStateExited: (_state, stateOutput) => {
        const result = running && resultsOf(stateOutput)?.[running.key];
        if (!running || result === undefined) return;
        const { call } = running;
        running = undefined;
        options.onCallEnd?.(call, result as ToolResult);
      },
    },
  );
  assertScenarioRunOutput(output);
  return output;
}

/** Each Task state's call (its Parameters' level, tool and callId), by state name. */
function localCallsOf(definition: AslDefinition): Map<string, LocalCall> {
  const calls = new Map<string, LocalCall>();
  for (const [name, state] of Object.entries(definition.States)) {
    if (state.Type !== 'Task') continue;
    const parameters = state.Parameters as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : 'unknown');
    calls.set(name, {
      level: text(parameters.level),
      tool: text(parameters.tool),
      callId: text(parameters.callId),
    });
  }
  return calls;
}

function resultsOf(state: unknown): Record<string, unknown> | undefined {
  const results = (state as { results?: unknown } | null)?.results;
  return results !== null && typeof results === 'object' ? (results as Record<string, unknown>) : undefined;
}

function assertScenarioRunOutput(output: unknown): asserts output is ScenarioRunOutput {
  const fields = output as Partial<Record<keyof ScenarioRunOutput, unknown>> | null;
  const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (
    !isObject(fields) ||
    typeof fields?.scenario !== 'string' ||
    !isObject(fields.input) ||
    !isObject(fields.results)
  ) {
    throw new Error(
      'The scenario execution ended without the { scenario, input, results } output of its Done state',
    );
  }
}
