/**
 * What the console's Tools page shows: every tool of the catalog (schema, side
 * effects, IAM actions, secrets) and, per scenario level, what it may call and
 * which arguments are pinned. Computed once (deployed: at synth time, bundled with
 * the API function; locally: at start) from the same catalog and scenario files
 * the dispatcher and the state machines are built from.
 */

import type { ScenarioDefinition, ScenarioInput, ScenarioLevel } from '../engine/definition';
import type { ToolCatalog } from '../runtime/catalog';
import { type PublicToolSpec, publicSpec } from '../runtime/spec';

/** One tool as the Tools page lists it. */
export interface ConsoleTool extends PublicToolSpec {
  /** Run by the dispatcher itself (file tools: always allowed at every level). */
  readonly fileTool: boolean;
}

/** One scenario level as the Tools page lists it. */
export interface ConsoleLevel {
  readonly name: string;
  readonly kind: 'plan' | 'agent';
  readonly description?: string;
  /** The level's whitelist (`intra_tools`); file tools come on top. */
  readonly tools: readonly string[];
  /** Agent levels: whether the model may ask a person (`ask_user`). */
  readonly askUser?: boolean;
  /**
   * Arguments pinned per tool (`pin:` of an agent level: the model does not see them and the
   * dispatcher enforces them), as the loader keeps them; absent when the level pins nothing.
   */
  readonly pins?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One scenario as the console lists it. */
export interface ConsoleScenario {
  readonly name: string;
  readonly description: string;
  /** The scenario's declared inputs, as its file declares them: runs started from the page are checked against them. */
  readonly inputs: Readonly<Record<string, ScenarioInput>>;
  readonly levels: readonly ConsoleLevel[];
}

/** The Tools page's data. */
export interface ConsoleCatalog {
  readonly tools: readonly ConsoleTool[];
  readonly scenarios: readonly ConsoleScenario[];
}

/**
 * The pins of a level as loaded (agent levels' `pin:`, docs/scenarios.md,
 * "Pinned arguments"): `{ <tool>: { <argument>: { value } | { one_of } } }`, or
 * undefined when the level pins nothing.
 */
export function pinsOf(level: ScenarioLevel): ConsoleLevel['pins'] {
  if (level.kind !== 'agent' || level.pin === undefined) return undefined;
  return Object.keys(level.pin).length > 0 ? level.pin : undefined;
}

/** The Tools page's data from the catalog and the scenarios, tools in catalog order. */
export function consoleCatalog(
  catalog: ToolCatalog,
  scenarios: readonly ScenarioDefinition[],
): ConsoleCatalog {
  return {
    tools: catalog.list().map((spec) => ({ ...publicSpec(spec), fileTool: catalog.isFileTool(spec.name) })),
    scenarios: scenarios.map((scenario) => ({
      name: scenario.name,
      description: scenario.description,
      inputs: scenario.inputs,
      levels: scenario.levels.map((level) => {
        const pins = pinsOf(level);
        return {
          name: level.name,
          kind: level.kind,
          ...(level.description ? { description: level.description } : {}),
          tools: [...level.intra_tools],
          ...(level.kind === 'agent' ? { askUser: level.ask_user !== false } : {}),
          ...(pins ? { pins } : {}),
        };
      }),
    })),
  };
}
