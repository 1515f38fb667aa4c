import type { EngineConfig, FunctionMemory } from '../../functions/engine/config';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import type { Scenario } from './model';

/** Lambda memory when a spec or setting names none, in MB (lib/platform-function.ts' default). */
const DEFAULT_MEMORY_MB = 256;

/**
 * The functions' memory as the CDK sizes them (a tool's spec `runtime.memorySizeMb`,
 * else 256 MB), for the run summary's GB-seconds; `overrides` are the stack's settings.
 */
export function functionMemory(
  catalog: ToolCatalog,
  overrides: {
    engineMb?: number;
    dispatcherMb?: number;
    toolMb?: Readonly<Record<string, number | undefined>>;
  } = {},
): FunctionMemory {
  return {
    engineMb: overrides.engineMb ?? DEFAULT_MEMORY_MB,
    dispatcherMb: overrides.dispatcherMb ?? DEFAULT_MEMORY_MB,
    toolMb: Object.fromEntries(
      catalog
        .functionTools()
        .map((entry) => [
          entry.spec.name,
          overrides.toolMb?.[entry.spec.name] ?? entry.spec.runtime?.memorySizeMb ?? DEFAULT_MEMORY_MB,
        ]),
    ),
  };
}

/** The engine's configuration (functions/engine/config.ts) for these scenarios. */
export function engineConfig(scenarios: readonly Scenario[], functions: FunctionMemory): EngineConfig {
  return { scenarios: Object.fromEntries(scenarios.map((scenario) => [scenario.name, scenario])), functions };
}
