import { InvalidArgsError, UnknownLevelError } from '../../functions/runtime/errors';
import type { ToolSpec } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';

/** How a command names the tools it works on. */
export interface ToolSelectionOptions {
  /** Comma-separated tool names (`--tools`). */
  readonly tools?: string;
  /** A scenario level whose `intra_tools` (and the file tools) are selected (`--scenario` with `--level`). */
  readonly scenario?: string;
  readonly level?: string;
}

/**
 * The names in a comma-separated list, each registered.
 *
 * @throws UnknownToolError (usage error) naming every registered tool.
 */
export function parseToolList(list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new InvalidArgsError('--tools is empty: give tool names separated by commas');
  for (const name of names) toolCatalog.get(name);
  return [...new Set(names)];
}

/**
 * The tools a command works on: `--tools`, or a level's `intra_tools` plus the
 * file tools (what an agent at that level is offered), or `fallback`.
 *
 * @throws InvalidArgsError when `--tools` and `--scenario` are both given, or
 *   `--scenario` without `--level`; UnknownScenarioError / UnknownLevelError /
 *   UnknownToolError listing what exists.
 */
export function selectTools(options: ToolSelectionOptions, fallback: () => ToolSpec[]): ToolSpec[] {
  if ((options.scenario === undefined) !== (options.level === undefined)) {
    throw new InvalidArgsError('--scenario and --level go together: pass both, or neither');
  }
  if (options.tools !== undefined && options.scenario !== undefined) {
    throw new InvalidArgsError('Select tools with --tools or with --scenario/--level, not both');
  }
  if (options.tools !== undefined) return parseToolList(options.tools).map((name) => toolCatalog.get(name));
  if (options.scenario !== undefined && options.level !== undefined) {
    // Loaded only here: `etp mcp --tools …` and `etp tools schema` start without the scenario files.
    const { findScenario, loadScenarios } =
      require('../../lib/scenarios/loader') as typeof import('../../lib/scenarios/loader');
    const scenario = findScenario(loadScenarios(toolCatalog), options.scenario);
    const level = scenario.levels.find((candidate) => candidate.name === options.level);
    if (!level) {
      throw new UnknownLevelError(
        scenario.name,
        options.level,
        scenario.levels.map((candidate) => candidate.name),
      );
    }
    const names = new Set([...level.intra_tools, ...toolCatalog.fileToolNames()]);
    return toolCatalog.list().filter((spec) => names.has(spec.name));
  }
  return fallback();
}
