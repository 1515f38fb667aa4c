import type { AslDefinition } from '../../lib/scenarios/asl';
import {
  LOCAL_DISTRIBUTED_MAP_RESOURCE,
  type LocalObjectStore,
  routeDistributedMaps,
  runDistributedMap,
} from './local-distributed-map';

// The package ships CommonJS (`require`) and ESM builds but types only for ESM, so
// TypeScript refuses a value import from this CommonJS module; require it, typed.
type LocalStepFunctions = typeof import('aws-local-stepfunctions', { with: { 'resolution-mode': 'require' }});
const { StateMachine }: LocalStepFunctions = require('aws-local-stepfunctions');
type StateMachine = InstanceType<LocalStepFunctions['StateMachine']>;
type StateMachineDefinition = ConstructorParameters<LocalStepFunctions['StateMachine']>[0];

/** Every JSON value the interpreter passes around. */
type Json = Parameters<StateMachine['run']>[0];

/** How a Task state's effective input (after `Parameters`) is answered. */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** A Task state of the definition (Map iterations included). */
export interface TaskStateInfo {
  readonly name: string;
  readonly resource: string;
}

/** Picks the handler of each Task state (by its name or its resource). */
export type TaskRouter = (state: TaskStateInfo) => TaskHandler;

/** A state as the interpreter enters or leaves it. */
export interface StateEvent {
  readonly name: string;
  /** Entered: its input; left: its output. */
  readonly data: unknown;
  /** The Map iteration it runs in, if any. */
  readonly iteration?: number;
}

/** Options of {@link executeLocally}. */
export interface LocalExecutionOptions {
  /** The execution name (`$$.Execution.Name`), used as the run id. */
  readonly runId: string;
  /** Whether to check resource ARNs; off for definitions with local placeholder ARNs. @default false */
  readonly checkArns?: boolean;
  /**
   * Skip the definition's validation (asl-validator): a Distributed Map's children, whose
   * processor was validated with the parent's definition. @default false
   */
  readonly noValidate?: boolean;
  /** The context object's `Task.Token` for `.waitForTaskToken` states. @default `local-<runId>` */
  readonly taskToken?: string;
  /** Milliseconds each Retry waits locally. @default 0 */
  readonly retryIntervalMs?: number;
  /** Called as each state is entered (Map iterations' states too), in execution order. */
  readonly onStateEntered?: (event: StateEvent) => void;
  /** Called as each state is left, with its output, in execution order. */
  readonly onStateExited?: (event: StateEvent) => void;
  /**
   * Receives the entries of each EventBridge `putEvents` Task (the `Run Completed`
   * event, lib/scenarios/run-events.ts), which runs here without AWS.
   * @default - the entries are dropped
   */
  readonly onPutEvents?: (entries: unknown) => void;
  /**
   * Where Distributed Maps read their `ItemReader` objects and write their
   * `ResultWriter` files (bin/local/local-distributed-map.ts).
   * @default - none: a Distributed Map that reads or writes S3 fails
   */
  readonly objects?: LocalObjectStore;
}

/** Every Task state of a definition, those of Map iterations included. */
export function taskStatesOf(definition: {
  readonly States: Record<string, Record<string, unknown>>;
}): TaskStateInfo[] {
  return Object.entries(definition.States).flatMap(([name, state]) => {
    if (state.Type === 'Task') return [{ name, resource: String(state.Resource) }];
    const processor = (state.ItemProcessor ?? state.Iterator) as
      | { States: Record<string, Record<string, unknown>> }
      | undefined;
    return state.Type === 'Map' && processor ? taskStatesOf(processor) : [];
  });
}

/** Names of the states that may retry: Tasks and Maps, at any depth. */
function retryableStatesOf(definition: {
  readonly States: Record<string, Record<string, unknown>>;
}): string[] {
  return Object.entries(definition.States).flatMap(([name, state]) => {
    const processor = (state.ItemProcessor ?? state.Iterator) as
      | { States: Record<string, Record<string, unknown>> }
      | undefined;
    return [
      ...(state.Type === 'Task' || state.Type === 'Map' ? [name] : []),
      ...(processor ? retryableStatesOf(processor) : []),
    ];
  });
}

/** The optimized EventBridge integration's resource (Step Functions developer guide). */
const PUT_EVENTS_RESOURCE = 'arn:aws:states:::events:putEvents';

/**
 * Executes an ASL definition with the local interpreter (aws-local-stepfunctions),
 * each Task state (Map iterations included) answered by the handler `route`
 * picks for it, in this process: the same definition Step Functions runs, with
 * no AWS call for the Task resources. `$$.Task.Token` is `options.taskToken`.
 * A Distributed Map (which the interpreter would run inline, ignoring its
 * distributed fields) is routed to bin/local/local-distributed-map.ts, each child
 * execution run here the same way, its states reported like the parent's.
 *
 * State transitions are reported from the interpreter's event log (nested Map
 * states too), so a Task that ends through its Catch is seen leaving as surely
 * as one that returned; every event is reported before this returns.
 *
 * @returns the execution's output.
 * @throws the interpreter's ExecutionError when the execution fails (a Fail state or an uncaught error).
 */
export async function executeLocally(
  definition: AslDefinition | Record<string, unknown>,
  input: Record<string, unknown>,
  route: TaskRouter,
  options: LocalExecutionOptions,
): Promise<unknown> {
  if (!options.noValidate) {
    // The definition as the service gets it, Distributed Maps and their processors included, is
    // validated once (asl-validator compiles its schemas on every call: ~0.1-0.2 s each); the
    // routed machine and every child then run unvalidated.
    new StateMachine(definition as unknown as StateMachineDefinition, {
      validationOptions: { checkArn: options.checkArns ?? false },
    });
  }
  const { states, maps } = routeDistributedMaps(definition as AslDefinition);
  const machineDefinition = { ...(definition as AslDefinition), States: states };
  const context = {
    Execution: {
      // As Step Functions sets it: the execution ARN (a local one here).
      Id: `arn:aws:states:local:000000000000:execution:local:${options.runId}`,
      Name: options.runId,
      Input: input as Json,
      StartTime: new Date().toISOString(),
    },
    Task: { Token: options.taskToken ?? `local-${options.runId}` },
  };
  const handlers = Object.fromEntries(
    taskStatesOf(machineDefinition).map((state) => {
      const map = maps[state.name];
      // The Run Completed event goes to `onPutEvents`, a Distributed Map to its route, not to the caller's router.
      const handler: TaskHandler =
        state.resource === PUT_EVENTS_RESOURCE
          ? async (payload) => putEventsLocally(payload as Json, options)
          : state.resource === LOCAL_DISTRIBUTED_MAP_RESOURCE && map
            ? async (payload) =>
                runDistributedMap(
                  state.name,
                  map,
                  payload,
                  context,
                  (processor, childInput, name) =>
                    executeLocally(processor, childInput as Record<string, unknown>, route, {
                      ...options,
                      runId: name,
                      noValidate: true,
                    }),
                  options.objects,
                )
            : route(state);
      return [state.name, async (payload: Json) => (await handler(payload)) as Json];
    }),
  );
  const machine = new StateMachine(machineDefinition as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  const execution = machine.run(input as Json, {
    overrides: {
      taskResourceLocalHandlers: handlers,
      retryIntervalOverrides: Object.fromEntries(
        retryableStatesOf(machineDefinition).map((name) => [name, options.retryIntervalMs ?? 0]),
      ),
    },
    context,
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
    if (event.type !== 'StateEntered' && event.type !== 'StateExited') continue;
    const iteration = event.index === undefined ? {} : { iteration: event.index };
    if (event.type === 'StateEntered') {
      options.onStateEntered?.({ name: event.state.name, data: event.state.input, ...iteration });
    } else {
      options.onStateExited?.({ name: event.state.name, data: event.state.output, ...iteration });
    }
  }
}
