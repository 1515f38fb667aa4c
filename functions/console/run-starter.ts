/**
 * Runs started from the deployed console: `StartExecution` on the scenario's own
 * state machine, the execution name a new run id, the input checked and merged
 * over the scenario's defaults first, as `etp scenario start` does, so a bad
 * input is a 400 on the page rather than a run that fails its first state.
 */
import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { resolveInput } from '../engine/inputs';
import { PlatformError } from '../runtime/errors';
import { newRunId } from '../runtime/ids';
import type { RunStarter } from './backend';
import type { ConsoleCatalog } from './catalog-view';

/** The variable naming each scenario's state machine ARN: a JSON object `{ "<scenario>": "<arn>" }`. */
export const SCENARIO_STATE_MACHINES_ENV = 'SCENARIO_STATE_MACHINES';

/**
 * The scenario state machines of the console function's configuration.
 *
 * @throws Error when the value is not a JSON object of ARN strings (lib/console.ts sets it).
 */
export function scenarioStateMachines(value: string | undefined): Readonly<Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value ?? '');
  } catch {
    parsed = undefined;
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((arn) => typeof arn === 'string' && arn.startsWith('arn:'))
  ) {
    throw new Error(`${SCENARIO_STATE_MACHINES_ENV} must be a JSON object of state machine ARNs by scenario`);
  }
  return parsed as Record<string, string>;
}

/** What the starter is built from. */
export interface StepFunctionsRunStarterOptions {
  /** The scenarios and their declared inputs (the bundled console catalog). */
  readonly catalog: ConsoleCatalog;
  /** Each scenario's state machine ARN. */
  readonly stateMachines: Readonly<Record<string, string>>;
  readonly client: SFNClient;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * A {@link RunStarter} over Step Functions. The run's tenant is the page's
 * tenant (already authorized); an input's own `tenant` is overridden by it.
 *
 * @throws PlatformError `unknown_scenario` for a scenario without a state machine here;
 *   InvalidArgsError (`invalid_args`) for an input the scenario refuses (resolveInput);
 *   the SDK's error when Step Functions refuses the start (e.g. ExecutionLimitExceeded).
 */
export function stepFunctionsRunStarter(options: StepFunctionsRunStarterOptions): RunStarter {
  const now = options.now ?? (() => new Date());
  return {
    async start(tenant, scenario, input) {
      const view = options.catalog.scenarios.find((candidate) => candidate.name === scenario);
      const stateMachineArn = Object.hasOwn(options.stateMachines, scenario)
        ? options.stateMachines[scenario]
        : undefined;
      if (!view || !stateMachineArn) {
        throw new PlatformError(
          'unknown_scenario',
          `Scenario ${scenario} has no state machine in this stack. Scenarios: ${Object.keys(options.stateMachines).join(', ')}`,
        );
      }
      const resolved = resolveInput(view, { ...input, tenant });
      const runId = newRunId('run', now());
      await options.client.send(
        new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify(resolved) }),
      );
      return { runId };
    },
  };
}
