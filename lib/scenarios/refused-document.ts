/**
 * What a scenario document the schema refused still shows, so that one round of fixes covers it:
 * unknown tools, duplicate level names, missing prompt files and references that resolve to
 * nothing, read from its levels as written; and the levels' `kind` filled in where left out.
 */
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { stringsIn, templateRefs } from '../../functions/engine/template';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import type { Scenario } from './model';
import { resolveRef } from './references';

/**
 * Tool names of a document the schema refused, checked against the catalog:
 * each level's `intra_tools` and `calls[].tool` that are strings.
 */
export function unknownToolsIn(levels: unknown, catalog: ToolCatalog): string[] {
  if (!Array.isArray(levels)) return [];
  const problems: string[] = [];
  const unknown = (name: unknown) => typeof name === 'string' && !catalog.has(name);
  levels.forEach((level: unknown, index) => {
    if (level === null || typeof level !== 'object') return;
    const { intra_tools: intra, calls } = level as { intra_tools?: unknown; calls?: unknown };
    const names = [
      ...(Array.isArray(intra) ? intra : []),
      ...(Array.isArray(calls) ? calls.map((call) => (call as { tool?: unknown } | null)?.tool) : []),
    ].filter(unknown);
    for (const name of new Set(names)) {
      problems.push(
        `levels[${index}]: Unknown tool "${String(name)}". Registered tools: ${catalog.names().join(', ')}`,
      );
    }
  });
  return problems;
}

/**
 * What a document the schema refused still shows, checked on its levels as
 * written: level names used twice, prompt files that do not exist, and
 * references that resolve to nothing (a misspelt input, a later level). A level
 * too malformed to read is skipped: the schema's problems already name it.
 */
export function problemsAsWritten(document: unknown, file: string): string[] {
  const levels = (document as { levels?: unknown } | null)?.levels;
  if (!Array.isArray(levels)) return [];
  const problems: string[] = [];
  const names = levels.map((level) => (level as { name?: unknown } | null)?.name);
  levels.forEach((raw: unknown, index) => {
    if (raw === null || typeof raw !== 'object') return;
    const level = raw as { name?: unknown; prompt?: unknown; prompt_file?: unknown; calls?: unknown };
    const at = `levels[${index}]${typeof level.name === 'string' ? ` (${level.name})` : ''}`;
    if (typeof level.name === 'string' && names.indexOf(level.name) !== index) {
      problems.push(`levels[${index}]: level name "${level.name}" is used twice`);
    }
    if (typeof level.prompt_file === 'string') {
      const promptPath = path.resolve(path.dirname(file), level.prompt_file);
      if (!existsSync(promptPath) || !statSync(promptPath).isFile()) {
        problems.push(`${at}.prompt_file: ${level.prompt_file} does not exist beside ${path.basename(file)}`);
      }
    }
    const texts = [
      ...(typeof level.prompt === 'string'
        ? [{ where: 'prompt', text: level.prompt, use: 'prompt' as const }]
        : []),
      ...stringsIn(level.calls, 'calls').map((text) => ({ ...text, use: 'args' as const })),
    ];
    for (const text of texts) {
      for (const ref of templateRefs(text.text)) {
        try {
          const resolution = resolveRef(ref, {
            scenario: document as Scenario,
            levelIndex: index,
            use: text.use,
          });
          if ('problem' in resolution) problems.push(`${at}.${text.where}: ${resolution.problem}`);
        } catch {
          // The document is too malformed around this reference to resolve it.
        }
      }
    }
  });
  return problems;
}

/** A level's `kind` when it leaves it out: `calls` make a plan, `model` an agent. */
export function withKinds(document: unknown): unknown {
  const levels = (document as { levels?: unknown } | null)?.levels;
  if (!Array.isArray(levels)) return document;
  return {
    ...(document as object),
    levels: levels.map((level: unknown) => {
      if (level === null || typeof level !== 'object' || Array.isArray(level) || 'kind' in level)
        return level;
      if ('calls' in level) return { kind: 'plan', ...level };
      if ('model' in level) return { kind: 'agent', ...level };
      return level;
    }),
  };
}
