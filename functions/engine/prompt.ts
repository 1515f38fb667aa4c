/**
 * Renders an agent level's prompt: its `{{…}}` references (checked by the
 * loader at synth) replaced with the run's input, earlier levels' records and,
 * for `{{findings.<level>}}`, the ranked findings with what changed since the
 * tenant's previous run.
 */
import type { Workspace } from '../runtime/workspace';
import { type FindingsFile, renderFindings } from './findings';
import { plainReason } from './plain-words';
import type { LevelRecord, PlanLevelRecord } from './records';
import { parseTemplate, type TemplateRef } from './template';
import { ENGINE_PATHS, readJson } from './workspaces';

/** What a prompt is rendered from. */
export interface PromptContext {
  readonly input: Readonly<Record<string, unknown>>;
  readonly levels: Readonly<Record<string, LevelRecord>>;
  readonly run: { readonly id: string; readonly tenant: string; readonly scenario: string };
  readonly workspace: Workspace;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** A plan level's calls as prompt lines: outcome, summary, and where the full result is. */
export function renderPlanResults(level: string, record: PlanLevelRecord): string {
  return record.calls
    .map((call, index) => {
      const where = `full result: ${ENGINE_PATHS.callResult(level, index, call.tool)}`;
      return call.ok
        ? `- ${call.tool} (${call.callId}): ok — ${call.summary}${call.truncated ? (call.shrunk ? ' (shortened)' : ' (incomplete, as the tool reported)') : ''}; ${where}`
        : `- ${call.tool} (${call.callId}): FAILED — ${call.summary} (in plain words: ${plainReason(call.code)})`;
    })
    .join('\n');
}

async function renderRef(ref: TemplateRef, context: PromptContext): Promise<string> {
  const [head, name, field, ...rest] = ref.path;
  if (head === 'input' && name !== undefined) return text(context.input[name]);
  if (head === 'run') {
    if (name === 'id') return context.run.id;
    if (name === 'tenant') return context.run.tenant;
    if (name === 'scenario') return context.run.scenario;
  }
  const record = name === undefined ? undefined : context.levels[name];
  if (head === 'findings' && name !== undefined) {
    if (record?.kind !== 'plan') return `(no findings: level ${name} did not run)`;
    const path = ENGINE_PATHS.findings(name);
    try {
      return renderFindings(await readJson<FindingsFile>(context.workspace, path), path);
    } catch {
      return `(the findings of ${name} could not be read)`;
    }
  }
  if (head === 'levels' && record) {
    if (field === 'summary') return record.summary;
    if (field === 'outcome') return record.outcome;
    if (record.kind === 'agent' && field === 'data') return text(record.data);
    if (record.kind === 'plan' && field === 'results') {
      if (rest.length === 0) return renderPlanResults(name ?? '', record);
      const call = record.calls[Number(rest[0])];
      const key = rest[1] as keyof typeof call | undefined;
      return call && key ? text(call[key]) : '';
    }
    if (record.kind === 'plan' && field === 'findings') {
      return text(rest[0] ? record.findings?.[rest[0] as keyof typeof record.findings] : record.findings);
    }
  }
  return `(${ref.expression}: not available)`;
}

/** The prompt with every reference replaced. */
export async function renderPrompt(template: string, context: PromptContext): Promise<string> {
  const parts = await Promise.all(
    parseTemplate(template).map((part) => (typeof part === 'string' ? part : renderRef(part, context))),
  );
  return parts.join('');
}
