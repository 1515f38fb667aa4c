/** Call args and Slack channels with `{{…}}` references as payload-template entries (JSONPath, `States.Format`). */
import { parseTemplate, soleRef } from '../../../functions/engine/template';
import type { Scenario } from '../model';
import { resolveRef } from '../references';

/** Escapes literal text for a `States.Format` template: `'`, `{`, `}` and `\` take a backslash. */
function formatLiteral(text: string): string {
  return text.replace(/[\\'{}]/g, (char) => `\\${char}`);
}

/**
 * A string with `{{…}}` references as a payload-template entry: a sole reference
 * keeps its JSON type (`key.$: <path>`), text with references becomes
 * `States.Format`, a synth-time value (`run.scenario`) is written in.
 */
export function templateEntry(
  key: string,
  text: string,
  scenario: Scenario,
  levelIndex: number,
): [string, unknown] {
  const resolve = (expression: { expression: string; path: readonly string[] }) => {
    const resolution = resolveRef(expression, { scenario, levelIndex, use: 'args' });
    if ('problem' in resolution) throw new Error(`${scenario.name}: ${resolution.problem}`);
    return resolution.target;
  };
  const sole = soleRef(text);
  if (sole) {
    const target = resolve(sole);
    if (target.kind === 'path') return [`${key}.$`, target.path];
    if (target.kind === 'static') return [key, target.value];
  }
  const parts = parseTemplate(text);
  if (parts.every((part) => typeof part === 'string')) return [key, text];
  let format = '';
  const args: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      format += formatLiteral(part);
      continue;
    }
    const target = resolve(part);
    if (target.kind === 'static') format += formatLiteral(target.value);
    else if (target.kind === 'path') {
      format += '{}';
      args.push(target.path);
    }
  }
  return [`${key}.$`, `States.Format('${format}'${args.map((arg) => `, ${arg}`).join('')})`];
}

/** Call args as a payload template (nested objects followed; lists are literal: the loader forbids references in them). */
export function argsTemplate(
  args: Readonly<Record<string, unknown>>,
  scenario: Scenario,
  levelIndex: number,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value === 'string') return templateEntry(key, value, scenario, levelIndex);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        return [key, argsTemplate(value as Record<string, unknown>, scenario, levelIndex)];
      }
      return [key, value];
    }),
  );
}
