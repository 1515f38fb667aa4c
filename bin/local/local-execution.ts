import type { AslDefinition } from '../../lib/scenarios/asl';

// The package ships CommonJS (`require`) and ESM builds but types only for ESM, so
// TypeScript refuses a value import from this CommonJS module; require it, typed.
type LocalStepFunctions = typeof import('aws-local-stepfunctions', { with: { 'resolution-mode': 'require' }});
const { StateMachine }: LocalStepFunctions = require('aws-local-stepfunctions');
type StateMachine = InstanceType<LocalStepFunctions['StateMachine']>;
type StateMachineDefinition = ConstructorParameters<LocalStepFunctions['StateMachine']>[0];

/** Every JSON value the interpreter passes around. */
type Json = Parameters<StateMachine['run']>[0];

/** How a Task state's effective input (the dispatcher envelope) is answered. */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** Options of {@link executeLocally}. */
export interface LocalExecutionOptions {
  /** The execution name (`$$.Execution.Name`), used as the run id. */
  readonly runId: string;
  /** Whether to check resource ARNs; off for definitions with local placeholder ARNs. @default false */
  readonly checkArns?: boolean;
  /** Called as each state is entered, in execution order. */
  readonly onStateEntered?: (state: string) => void;
  /** Called as each state is left, with its output (the next state's input), in execution order. */
  readonly onStateExited?: (state: string, output: unknown) => void;
  /**
   * Receives the entries of each EventBridge `putEvents` Task (the `Run Completed`
   * event, lib/scenarios/run-events.ts), which runs here without AWS.
   * @default - the entries are dropped
   */
  readonly onPutEvents?: (entries: unknown) => void;
}

/** The optimized EventBridge integration's resource (Step Functions developer guide). */
const PUT_EVENTS_RESOURCE = 'arn:aws:states:::events:putEvents';

/**
 * Executes an ASL definition with the local interpreter (aws-local-stepfunctions),
 * every Task state answered by `task` in this process: the same definition Step
 * Functions runs, with no AWS call for the Task resources.
 *
 * State transitions are reported from the interpreter's event log, so a Task
 * that ends through its Catch (an error, `States.Timeout`) is seen leaving as
 * surely as one that returned; every event is reported before this returns.
 *
 * @returns the execution's output.
 * @throws the interpreter's ExecutionError when the execution fails (a Fail state or an uncaught error).
 */
export async function executeLocally(
  definition: AslDefinition | Record<string, unknown>,
  input: Record<string, unknown>,
  task: TaskHandler,
  options: LocalExecutionOptions,
): Promise<unknown> {
  const states = (definition as AslDefinition).States;
  const taskStates = Object.keys(states).filter((name) => states[name]?.Type === 'Task');
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { checkArn: options.checkArns ?? false },
  });
  const execution = machine.run(input as Json, {
    overrides: {
      taskResourceLocalHandlers: Object.fromEntries(
        taskStates.map((name) => [
          name,
          states[name]?.Resource === PUT_EVENTS_RESOURCE
            ? async (payload: Json) => putEventsLocally(payload, options)
            : async (payload: Json) => (await task(payload)) as Json,
        ]),
      ),
      // Retries of Lambda service errors wait 0 ms locally.
      retryIntervalOverrides: Object.fromEntries(taskStates.map((name) => [name, 0])),
    },
    context: {
      Execution: {
        // As Step Functions sets it: the execution ARN (a local one here).
        Id: `arn:aws:states:local:000000000000:execution:local:${options.runId}`,
        Name: options.runId,
        Input: input as Json,
        StartTime: new Date().toISOString(),
      },
    },
  });
  const watching = watchStates(execution.eventLogs, options);
  try {
    return await execution.result;
  } finally {
    // The log closes as the execution ends (succeeded, failed, timed out), so this ends too.
    await watching;
  }
}

/** A `putEvents` Task answered here, in the shape of the PutEvents response. */
function putEventsLocally(payload: Json, options: LocalExecutionOptions): Json {
  const entries = (payload as { Entries?: unknown[] } | null)?.Entries ?? [];
  options.onPutEvents?.(entries);
  return {
    FailedEntryCount: 0,
    Entries: entries.map((_, i) => ({ EventId: `local-${options.runId}-${i}` })),
  };
}

type EventLog = ReturnType<StateMachine['run']>['eventLogs'];

async function watchStates(events: EventLog, options: LocalExecutionOptions): Promise<void> {
  if (!options.onStateEntered && !options.onStateExited) return;
  for await (const event of events) {
    if (event.type === 'StateEntered') options.onStateEntered?.(event.state.name);
    if (event.type === 'StateExited') options.onStateExited?.(event.state.name, event.state.output);
  }
}
