import type { AslDefinition } from './asl';

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
}

/**
 * Executes an ASL definition with the local interpreter (aws-local-stepfunctions),
 * every Task state answered by `task` in this process: the same definition Step
 * Functions runs, with no AWS call for the Task resources.
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
        taskStates.map((name) => [name, async (payload: Json) => (await task(payload)) as Json]),
      ),
      // Retries of Lambda service errors wait 0 ms locally.
      retryIntervalOverrides: Object.fromEntries(taskStates.map((name) => [name, 0])),
    },
    context: {
      Execution: { Name: options.runId, Input: input as Json, StartTime: new Date().toISOString() },
    },
  });
  return execution.result;
}
