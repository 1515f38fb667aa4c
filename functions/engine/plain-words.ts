/**
 * Failures in words a person understands, for reports that must be written even
 * when data collection or the model failed (issue 7: "not `auth_failed: …`
 * jargon"). The error codes are docs/errors.md's.
 */
import type { ErrorCode } from '../runtime/errors';
import type { ScenarioDefinition } from './definition';
import type { AgentOutcome, CallRecord, LevelRecord, PlanLevelRecord } from './records';

const REASONS: Readonly<Record<ErrorCode, string>> = {
  invalid_args: 'it was asked for something it does not accept',
  unknown_tool: 'it does not exist on this platform',
  tool_not_allowed: 'this step is not allowed to use it',
  unknown_scenario: 'the scenario is not known to the platform',
  unknown_level: 'the step is not known to the platform',
  secret_not_found: 'the platform has no credentials for it configured for this tenant',
  secret_invalid: 'the credentials configured for it are malformed',
  unsupported_ref_kind: 'its credentials are stored in a way the platform cannot read',
  auth_failed: 'the platform could not sign in (the credentials were missing, expired or rejected)',
  access_denied: 'the account does not allow the platform to read this',
  opt_in_required: 'the AWS service it needs is not enabled for the account',
  data_unavailable: 'AWS has no data for it yet',
  throttled: 'AWS asked the platform to slow down and it ran out of retries',
  not_found: 'what it looked for does not exist',
  timeout: 'it took too long and was stopped',
  upstream_error: 'the service it called had an internal error',
  network_error: 'the service could not be reached over the network',
  limit_exceeded: 'it hit one of the platform’s size or count limits',
  internal_error: 'of an error inside the platform',
};

/** Why a call failed, as a clause: `the platform could not sign in (…)`. */
export function plainReason(code: ErrorCode | undefined): string {
  return REASONS[code ?? 'internal_error'] ?? REASONS.internal_error;
}

/** `aws_cost_breakdown` → `cost breakdown`: a tool name as words. */
export function toolInWords(tool: string): string {
  return tool.replace(/^(aws|slack)_/, '').replaceAll('_', ' ');
}

/**
 * Why an agent level ended without `finish`, as a sentence. `reason` is a
 * clause that reads after "because" ({@link plainReason}), or for the outcomes
 * a model's answer ends the level with, what the model or the guardrail said.
 */
export function agentEndInWords(outcome: AgentOutcome, maxTurns: number, reason?: string): string {
  switch (outcome) {
    case 'finished':
      return 'The analysis finished.';
    case 'max_turns':
      return `The analysis was stopped after ${maxTurns} turns before it wrote its result.`;
    case 'stopped':
      return 'The model stopped without writing its result.';
    case 'truncated':
      return `The model's answer was cut at its output limit, even with the largest budget the step allows, so the result is incomplete${reason ? `. What it said: ${reason}` : '.'}`;
    case 'guardrail_intervened':
      return `A guardrail blocked the model's answer${reason ? `: ${reason}` : '.'}`;
    case 'content_filtered':
      return `The model's content filter blocked its answer${reason ? `: ${reason}` : '.'}`;
    case 'context_window_exceeded':
      return 'The conversation grew past what the model can read at once, even after the platform shortened it, so the analysis stopped before it wrote its result.';
    case 'budget_exhausted':
      return 'The analysis was stopped before its next model turn, whose estimated cost would have taken the run past its budget (budget_usd), so it wrote no result.';
    case 'model_error':
      return `The model could not be used because ${reason ?? 'it returned an error'}.`;
    case 'failed':
      return `The analysis step failed because ${reason ?? 'of an error inside the platform'}.`;
  }
}

/** One plan level's calls in words: which succeeded, which failed and why. */
function planInWords(name: string, record: PlanLevelRecord): string {
  const failed = record.calls.filter((call) => !call.ok);
  const total = record.calls.length;
  if (failed.length === 0) return `Step "${name}": all ${total} checks succeeded.`;
  const byReason = new Map<string, CallRecord[]>();
  for (const call of failed) {
    const reason =
      call.skipped === 'budget'
        ? 'it was not started, as its estimated cost would have taken the run past its budget'
        : plainReason(call.code);
    byReason.set(reason, [...(byReason.get(reason) ?? []), call]);
  }
  if (failed.length === total && byReason.size === 1) {
    return `Step "${name}": none of the ${total} checks could run, because ${[...byReason.keys()][0]}.`;
  }
  const reasons = [...byReason.entries()].map(
    ([reason, calls]) => `${calls.map((call) => toolInWords(call.tool)).join(', ')}: ${reason}`,
  );
  const head =
    failed.length === total
      ? `Step "${name}": none of the ${total} checks could run`
      : `Step "${name}": ${total - failed.length} of ${total} checks succeeded; ${failed.length} failed`;
  return `${head} (${reasons.join('; ')}).`;
}

/**
 * A report built without the model, from what earlier levels recorded: used as
 * an agent level's summary when the model did not call `finish`, so a report
 * level still has something a person can read.
 *
 * @example
 * // 'The model could not be used because the platform could not sign in (…). Step "collect": none of the checks could run (…).'
 */
export function fallbackReport(
  scenario: ScenarioDefinition,
  levels: Readonly<Record<string, LevelRecord>>,
  ending: string,
): string {
  const parts = [ending];
  for (const level of scenario.levels) {
    const record = levels[level.name];
    if (!record) continue;
    if (record.kind === 'plan') {
      parts.push(planInWords(level.name, record));
      const findings = record.findings;
      if (findings && findings.total > 0) {
        parts.push(
          `${findings.total} findings (${findings.new} new, ${findings.resolved} resolved), estimated waste ~$${findings.estimatedMonthlyCostUsd.toFixed(2)}/month.`,
        );
      }
    } else if (record.outcome === 'finished') {
      parts.push(`Step "${level.name}": ${record.summary}`);
    }
  }
  return parts.join(' ');
}
