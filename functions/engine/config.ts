import type { ScenarioDefinition } from './definition';

/**
 * The engine's configuration, computed by the CDK at synth from the scenario
 * files (prompts read from their files) and the stack's function settings, and
 * bundled into the engine's code (esbuild `define` of {@link ENGINE_CONFIG_GLOBAL}),
 * as the dispatcher's is (functions/dispatcher/config.ts): no YAML parser and no
 * file reads in the engine's cold start, and no 4 KB environment limit.
 */
declare const ETP_ENGINE_CONFIG: unknown;

/** The global the CDK defines at bundle time with the JSON of an {@link EngineConfig}. */
export const ENGINE_CONFIG_GLOBAL = 'ETP_ENGINE_CONFIG';

/** Memory of the platform's functions, in MB, for the run summary's Lambda GB-seconds. */
export interface FunctionMemory {
  readonly engineMb: number;
  readonly dispatcherMb: number;
  /** Function tools by name (file tools run in the dispatcher). */
  readonly toolMb: Readonly<Record<string, number>>;
}

/** What the engine runs with. */
export interface EngineConfig {
  /** Every scenario by name. */
  readonly scenarios: Readonly<Record<string, ScenarioDefinition>>;
  readonly functions: FunctionMemory;
}

/**
 * Checks the shape of a configuration.
 *
 * @throws Error naming what is missing, so a broken build fails the function's init loudly.
 */
export function parseEngineConfig(raw: unknown): EngineConfig {
  const config = raw as Partial<EngineConfig> | null;
  const problems: string[] = [];
  if (!config || typeof config !== 'object') problems.push('(root): expected an object');
  else {
    if (!config.scenarios || typeof config.scenarios !== 'object')
      problems.push('scenarios: expected an object');
    const functions = config.functions;
    if (
      !functions ||
      typeof functions.engineMb !== 'number' ||
      typeof functions.dispatcherMb !== 'number' ||
      typeof functions.toolMb !== 'object'
    ) {
      problems.push('functions: expected { engineMb, dispatcherMb, toolMb }');
    }
  }
  if (problems.length > 0) throw new Error(`Invalid engine configuration: ${problems.join('; ')}`);
  return config as EngineConfig;
}

/**
 * The configuration bundled into this engine function.
 *
 * @throws Error when the code was bundled without one, or it is malformed.
 */
export function bundledEngineConfig(): EngineConfig {
  if (typeof ETP_ENGINE_CONFIG === 'undefined') {
    throw new Error(`The engine was bundled without its configuration (${ENGINE_CONFIG_GLOBAL})`);
  }
  return parseEngineConfig(ETP_ENGINE_CONFIG);
}
