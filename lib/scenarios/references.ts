/**
 * What a `{{…}}` reference of a scenario file may name, and where it points in
 * the run's state: the rules the loader checks (every problem reported with what
 * is accepted) and the ASL generator follows (a reference becomes a JSONPath).
 *
 * References name only what every run has, so no state can fail on a missing
 * path: a call's `value` or a finish's `data` fields are absent when the call or
 * the model failed, and are not referenceable from args.
 */
import type { ScenarioDefinition } from '../../functions/engine/definition';
import { isWellFormedPath, type TemplateRef } from '../../functions/engine/template';

/** Where a reference is used: call args and Slack channels become JSONPath; prompts are rendered by the engine. */
export type RefUse = 'args' | 'prompt';

/** What a reference resolves to. */
export type RefTarget =
  /** A JSONPath of the state (`$.input.regions`) or the context object (`$$.Execution.Name`). */
  | { readonly kind: 'path'; readonly path: string; readonly scalar: boolean }
  /** A value known at synth (`run.scenario`). */
  | { readonly kind: 'static'; readonly value: string }
  /** Rendered by the engine only (a prompt's `{{findings.collect}}`, `{{levels.collect.results}}`). */
  | { readonly kind: 'prompt' };

/** What a reference is checked against. */
export interface RefScope {
  /** The scenario, with `inputs` and `levels` as parsed (prompt files not yet read). */
  readonly scenario: Pick<ScenarioDefinition, 'name' | 'inputs' | 'levels'>;
  /** Index of the level the reference is in; only earlier levels may be named. */
  readonly levelIndex: number;
  readonly use: RefUse;
}

const RUN_FIELDS = ['id', 'tenant', 'scenario'] as const;
const CALL_FIELDS = ['summary', 'ok', 'tool', 'callId'];
const FINDINGS_FIELDS = ['total', 'new', 'unchanged', 'resolved', 'unknown', 'estimatedMonthlyCostUsd'];
const SCALAR_INPUTS = new Set(['string', 'integer', 'number', 'boolean']);

/** A reference's target, or the problem with it (saying what is accepted). */
export type RefResolution = { readonly target: RefTarget } | { readonly problem: string };

function problem(text: string): RefResolution {
  return { problem: text };
}

/**
 * Resolves a reference in its scope.
 *
 * @example
 * resolveRef({ expression: 'input.regions', path: ['input', 'regions'] }, scope)
 * // { target: { kind: 'path', path: '$.input.regions', scalar: false } }
 */
export function resolveRef(ref: TemplateRef, scope: RefScope): RefResolution {
  const { scenario, levelIndex, use } = scope;
  if (!isWellFormedPath(ref))
    return problem(`{{${ref.expression}}} is not a dotted path such as {{input.regions}}`);
  const [head, name, field, ...rest] = ref.path;
  const level = scenario.levels[levelIndex];
  // A per-account level's calls run in child executions that hold the run's input only.
  if (
    use === 'args' &&
    level?.kind === 'plan' &&
    level.for_each_account &&
    head !== 'input' &&
    !(head === 'run' && name !== 'id')
  ) {
    return problem(
      `{{${ref.expression}}}: the calls of a per-account level (for_each_account) may reference inputs ({{input.regions}}), run.tenant and run.scenario only`,
    );
  }
  const promptOnly = (what: string): RefResolution =>
    use === 'prompt'
      ? { target: { kind: 'prompt' } }
      : problem(`{{${ref.expression}}}: ${what} can be used in a prompt only`);

  if (head === 'input') {
    const inputs = { tenant: { type: 'string' }, ...scenario.inputs } as Record<string, { type: string }>;
    const input = name === undefined ? undefined : inputs[name];
    if (!input || !Object.hasOwn(inputs, name ?? '')) {
      return problem(
        `{{${ref.expression}}}: no input "${name ?? ''}". Declared inputs: ${Object.keys(inputs).join(', ')}`,
      );
    }
    if (field !== undefined)
      return problem(`{{${ref.expression}}}: inputs are referenced whole ({{input.${name}}})`);
    return { target: { kind: 'path', path: `$.input.${name}`, scalar: SCALAR_INPUTS.has(input.type) } };
  }

  if (head === 'run') {
    if (field !== undefined || !RUN_FIELDS.includes(name as (typeof RUN_FIELDS)[number])) {
      return problem(`{{${ref.expression}}}: run fields are ${RUN_FIELDS.map((f) => `run.${f}`).join(', ')}`);
    }
    if (name === 'scenario') return { target: { kind: 'static', value: scenario.name } };
    return {
      target: { kind: 'path', path: name === 'id' ? '$$.Execution.Name' : '$.input.tenant', scalar: true },
    };
  }

  if (head === 'levels' || head === 'findings') {
    const earlier = scenario.levels.slice(0, levelIndex);
    const index = scenario.levels.findIndex((level) => level.name === name);
    const level = earlier.find((candidate) => candidate.name === name);
    if (!level) {
      const why =
        index === levelIndex
          ? 'a level cannot reference itself'
          : index > levelIndex
            ? `level ${name} runs after this one`
            : `no level "${name ?? ''}"`;
      return problem(
        `{{${ref.expression}}}: ${why}. Earlier levels: ${earlier.map((l) => l.name).join(', ') || 'none'}`,
      );
    }
    if (head === 'findings') {
      if (level.kind !== 'plan' || !level.track_findings) {
        return problem(`{{${ref.expression}}}: level ${name} does not track findings (track_findings: true)`);
      }
      if (field !== undefined) return problem(`{{${ref.expression}}}: use {{findings.${name}}}`);
      return promptOnly('a findings listing');
    }
    const base = `$.levels.${name}`;
    if ((field === 'summary' || field === 'outcome') && rest.length === 0) {
      return { target: { kind: 'path', path: `${base}.${field}`, scalar: true } };
    }
    if (level.kind === 'agent') {
      if (field === 'data' && rest.length === 0) {
        return use === 'prompt'
          ? { target: { kind: 'prompt' } }
          : { target: { kind: 'path', path: `${base}.data`, scalar: false } };
      }
      return problem(
        `{{${ref.expression}}}: an agent level offers summary, outcome and data (whole: its fields are absent when the model did not finish)`,
      );
    }
    if (field === 'results') {
      if (rest.length === 0) return promptOnly('a level’s results listing');
      const [position, key, ...deeper] = rest;
      const n = Number(position);
      if (!Number.isInteger(n) || n < 0 || n >= level.calls.length) {
        return problem(`{{${ref.expression}}}: level ${name} has calls 0 to ${level.calls.length - 1}`);
      }
      if (key === 'value' || key === 'error') {
        return problem(
          `{{${ref.expression}}}: a call's ${key} is absent when the call ${key === 'value' ? 'fails' : 'succeeds'}; reference its summary, or let an agent level read the full result`,
        );
      }
      if (key === undefined || !CALL_FIELDS.includes(key) || deeper.length > 0) {
        return problem(
          `{{${ref.expression}}}: a call offers ${CALL_FIELDS.map((f) => `results.${n}.${f}`).join(', ')}`,
        );
      }
      return { target: { kind: 'path', path: `${base}.calls[${n}].${key}`, scalar: true } };
    }
    if (field === 'findings' && level.track_findings) {
      if (rest.length === 0) return promptOnly('the findings counts');
      if (rest.length === 1 && FINDINGS_FIELDS.includes(rest[0] ?? '')) {
        return { target: { kind: 'path', path: `${base}.findings.${rest[0]}`, scalar: true } };
      }
      return problem(`{{${ref.expression}}}: findings counts are ${FINDINGS_FIELDS.join(', ')}`);
    }
    return problem(
      `{{${ref.expression}}}: a plan level offers summary, outcome, results.<n>.(${CALL_FIELDS.join('|')})` +
        (level.track_findings ? `, findings.(${FINDINGS_FIELDS.join('|')})` : '') +
        (use === 'prompt' ? ', results (the listing)' : ''),
    );
  }

  return problem(
    `{{${ref.expression}}}: a reference starts with input., run., levels.${use === 'prompt' ? ' or findings.' : ''}`,
  );
}
