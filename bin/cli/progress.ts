import type { RunBudgetSummary } from '../../functions/engine/budget-summary';
import type { RunOutput } from '../../functions/engine/engine';
import type { LevelRecord, ModelUsage } from '../../functions/engine/records';
import type { RunSummary } from '../../functions/engine/summary';
import type { ToolResult } from '../../functions/runtime/result';
import type { Scenario } from '../../lib/scenarios/model';
import type { RunEvent } from '../local/local-run';
import { clip, formatDuration, formatTable } from './text';

/** Prints a local scenario run as it happens: per level, per model turn and per tool call, then the run summary. */
export interface RunProgress {
  /** One event of the run (bin/local/local-run.ts). */
  onEvent(event: RunEvent): void;
  /** `✗ <reason>` when the execution itself failed. */
  interrupted(reason: string): void;
  /** The run's last progress line: finished, succeeded or incomplete (the summary itself is the command's result). */
  completed(output: RunOutput): void;
}

/** Longest summary printed on a call line, in characters. */
const LINE_SUMMARY_CHARS = 160;

function describeLevel(level: Scenario['levels'][number]): string {
  if (level.kind === 'plan') {
    // A per-account level runs its calls in every member account: the count is one account's.
    const perAccount = level.for_each_account ? ' per account' : '';
    return level.calls.length === 1
      ? `plan: 1 call${perAccount}`
      : `plan: ${level.calls.length} calls${perAccount}, ${Math.min(level.concurrency, level.calls.length)} at a time`;
  }
  return `agent: ${level.model}, at most ${level.max_turns} turns`;
}

function callLine(result: ToolResult, toolWidth: number, account?: string): string {
  const duration = formatDuration(result.durationMs);
  // A per-account call names its member account, so the lines of one tool over many accounts differ.
  const head = `    ${result.tool.padEnd(toolWidth)} ${account ? `account ${account} ` : ''}`;
  // Shortened: the platform shrank the result; partial: the tool reported it incomplete itself.
  const mark = result.ok && result.truncated ? (result.shrunk ? ' (shortened)' : ' (partial)') : '';
  return result.ok
    ? `${head}ok ${duration}  ${clip(result.summary, LINE_SUMMARY_CHARS)}${mark}\n`
    : `${head}✗ ${result.error.code}: ${clip(result.error.message, LINE_SUMMARY_CHARS)} (${duration})\n`;
}

function levelEndLine(name: string, record: LevelRecord): string {
  if (record.kind === 'plan') {
    const findings = record.findings;
    const tracked = findings
      ? `; findings: ${findings.total} (${findings.new} new, ${findings.unchanged} unchanged, ${findings.resolved} resolved)`
      : '';
    // The summary's own closing period gives way to the findings' "; " (no ".;").
    return `  ${name}: ${tracked ? record.summary.replace(/\.$/, '') : record.summary}${tracked}\n`;
  }
  const tokens = `${record.usage.inputTokens.toLocaleString('en-US')} tokens in, ${record.usage.outputTokens.toLocaleString('en-US')} out`;
  const outcome =
    record.outcome === 'finished'
      ? 'finished'
      : `${record.outcome}${record.error ? ` (${record.error.code}: ${clip(record.error.message, 200)})` : ''}`;
  return `  ${name}: ${outcome} after ${record.turns} turn${record.turns === 1 ? '' : 's'}, ${record.callCount} call${record.callCount === 1 ? '' : 's'} (${tokens})\n`;
}

/** The summary as people read it: levels, then the cost by part. */
export function formatSummary(summary: RunSummary, elapsedMs: number): string {
  const incomplete = summary.levels.filter((level) => !level.hasResult).map((level) => level.name);
  const head =
    `Run summary: ${summary.scenario} run ${summary.runId} (tenant ${summary.tenant}) in ${formatDuration(elapsedMs)}: ` +
    (incomplete.length > 0 ? `incomplete (${incomplete.join(', ')} ended without a result)` : 'succeeded');
  const levels = formatTable(
    ['level', 'outcome', 'calls', 'failed', 'tokens in/out'],
    summary.levels.map((level) => {
      if (level.accountCalls) {
        // A per-account level: its calls are counted over the accounts (their codes are in the report).
        const { calls, failed } = level.accountCalls;
        return [
          level.name,
          level.outcome,
          `${calls - failed}/${calls} ok (per account)`,
          failed > 0 ? `${failed} (see the organization report)` : '-',
          '-',
        ];
      }
      const failed = level.calls.filter((call) => !call.ok);
      const codes = new Map<string, number>();
      for (const call of failed) codes.set(call.code ?? 'error', (codes.get(call.code ?? 'error') ?? 0) + 1);
      return [
        level.name,
        level.outcome,
        `${level.calls.length - failed.length}/${level.calls.length} ok`,
        [...codes].map(([code, count]) => (count > 1 ? `${count} × ${code}` : code)).join(', ') || '-',
        level.kind === 'agent' ? `${level.inputTokens ?? 0}/${level.outputTokens ?? 0}` : '-',
      ];
    }),
  );
  const cost = formatTable(
    ['part', 'quantity', 'usd', 'price source'],
    summary.cost.parts.map((part) => [
      part.part,
      `${part.quantity} ${part.unit}`,
      `$${part.usd.toFixed(6)}`,
      part.source,
    ]),
  );
  const counts = summary.counts;
  // The report in plain words: what each agent level concluded (finish's summary, or the engine's
  // account of why there is none), as the --json output carries it.
  const reports = summary.levels
    .filter((level) => level.kind === 'agent' && level.summary)
    .map((level) => `  Report (${level.name}):\n${indent(indent(`${level.summary}\n`))}`);
  return [
    `${head}\n`,
    indent(levels),
    ...reports,
    `  Estimated cost: $${summary.cost.totalUsd.toFixed(4)} ($${summary.cost.excludingModelUsd.toFixed(4)} without model tokens); ` +
      `${counts.stateTransitions} state transitions, ${counts.lambdaInvocations} Lambda invocations (${counts.lambdaGbSeconds} GB-s), ` +
      `${counts.costExplorerRequests} Cost Explorer requests\n`,
    indent(cost),
    ...(summary.budget ? budgetLines(summary.budget) : []),
    ...summary.cost.notes.map((note) => `  Note: ${note}\n`),
  ].join('');
}

/** The run budget's sentence, then each piece of work it did not start with its estimate. */
function budgetLines(budget: RunBudgetSummary): string[] {
  return [
    `  ${budget.summary}\n`,
    ...budget.skipped.map(
      (skip) =>
        `    not started: ${skip.id}${skip.tool ? ` (${skip.tool})` : ''}, estimated $${skip.estimateUsd.toFixed(4)}\n`,
    ),
  ];
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}

/**
 * Progress of a run of `scenario`, written through `write`. Calls run in
 * parallel, so each call's line is written when it ends; tool names are padded
 * to the scenario's longest so results line up.
 *
 * @example
 * ▸ collect (plan: 12 calls, 4 at a time)
 *     aws_ec2_inventory  ok 412 ms  12 EC2 instances in 2 regions (9 running)
 *   collect: 12 calls: 12 ok; findings: 14 (14 new, 0 unchanged, 0 resolved)
 * ▸ analyze (agent: us.anthropic.claude-3-5-haiku-20241022-v1:0, at most 6 turns)
 *   turn 1: 3,120 tokens in, 410 out → finish
 *     finish             ok 1 ms  AWS Pulse: 14 findings, 3 high …
 *   analyze: finished after 2 turns, 1 call (3,120 tokens in, 410 out)
 */
export function createRunProgress(
  scenario: Scenario,
  runId: string,
  write: (text: string) => void,
): RunProgress {
  const tools = scenario.levels.flatMap((level) =>
    level.kind === 'plan'
      ? level.calls.map((call) => call.tool)
      : [...level.intra_tools, 'finish', 'ask_user'],
  );
  const toolWidth = Math.max(...tools.map((tool) => tool.length));
  const lastUsage = new Map<string, ModelUsage>();
  return {
    onEvent(event) {
      switch (event.type) {
        case 'level_started':
          write(`▸ ${event.level.name} (${describeLevel(event.level)})\n`);
          return;
        case 'call_ended':
          write(callLine(event.result, toolWidth, event.account));
          return;
        case 'turn': {
          const usage = event.turn.usage as unknown as ModelUsage;
          const before = lastUsage.get(event.level);
          lastUsage.set(event.level, usage);
          const input = usage.inputTokens - (before?.inputTokens ?? 0);
          const output = usage.outputTokens - (before?.outputTokens ?? 0);
          const asked = event.turn.status === 'ask' ? ['ask_user'] : [];
          const calls = [...event.turn.calls.map((call) => call.tool), ...asked];
          const rejected =
            event.turn.rejected.length > 0 ? ` (${event.turn.rejected.length} refused by the engine)` : '';
          write(
            `  turn ${event.turn.n}: ${input.toLocaleString('en-US')} tokens in, ${output.toLocaleString('en-US')} out → ${calls.join(', ') || 'no call'}${rejected}\n`,
          );
          return;
        }
        case 'question':
          write(`  ? ${event.level} asks: ${clip(event.question, 300)}\n`);
          return;
        case 'answer':
          write(
            event.answer === undefined ? '  ↳ no answer\n' : `  ↳ answered: ${clip(event.answer, 300)}\n`,
          );
          return;
        case 'level_ended':
          write(levelEndLine(event.level, event.record));
          return;
      }
    },
    interrupted(reason) {
      write(`✗ ${reason}\n`);
    },
    completed(output) {
      const outcome = output.summary.outcome === 'succeeded' ? 'succeeded' : 'incomplete';
      write(`Finished ${output.scenario} run ${runId}: ${outcome}.\n`);
      // Said, not hidden: a workspace that refused every write leaves the output as the summary's only copy.
      if (output.summaryFile && 'notWritten' in output.summaryFile)
        write(`Note: ${output.summaryFile.notWritten}\n`);
    },
  };
}
