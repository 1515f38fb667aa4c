import { parseToolArgs } from './args';
import { boundResult } from './bound';
import { createToolContext, type ToolContextServices } from './context';
import { runRenewingOnce } from './credential-renewal';
import {
  beforeDeadline,
  type Deadline,
  deadlineBefore,
  hardStopGraceMs,
  inFlightReserveMs,
} from './deadline';
import { DeadlineExceededError } from './errors';
import type { ToolInvocation } from './invocation';
import { normalizeError } from './normalize-error';
import { type RedactOptions, redact, redactString } from './redact';
import { failureResult, oneLineSummary, type ToolResult } from './result';
import { resultMaxBytes } from './result-limits';
import { SecretValues, withSecretValues } from './secret-values';
import type { Tool } from './spec';

/**
 * Runs one tool call and never throws: validates the args (before any remote
 * call), builds the context, runs the handler, maps any exception through
 * `normalizeError`, bounds the size and measures the duration.
 *
 * Returns by the deadline whatever the handler does: when the deadline passes
 * before the handler settles (a request waiting on an endpoint that never
 * answers), the call fails with `timeout` (retryable), naming the tool and its
 * budget in seconds. Handlers still check the deadline between pages and
 * regions to return partial results before that happens.
 *
 * The result, summary, error and every log line of the call are redacted
 * (docs/redaction.md), including the strings the call resolved from secrets, by
 * exact match: the call runs inside `withSecretValues` with its own set. The
 * spec's `visibleOutputKeys` stay visible in the result.
 *
 * @param maxBytes - bound on the result's JSON size. @default {@link resultMaxBytes}()
 * @example
 * const result = await runTool(ec2InventoryTool, invocation, deadlineIn(60_000), services);
 * if (!result.ok) console.log(result.error.code);
 */
export async function runTool(
  tool: Tool,
  invocation: ToolInvocation,
  deadline: Deadline,
  services: ToolContextServices,
  maxBytes: number = resultMaxBytes(),
): Promise<ToolResult> {
  // One set of resolved secret values per call, in scope for everything the call
  // runs (its handler, error mapping and log lines): masked by exact match.
  const secretValues = new SecretValues();
  for (const handed of services.callSecretStrings?.() ?? []) secretValues.add(handed);
  return withSecretValues(secretValues, () =>
    runInScope(tool, invocation, deadline, services, maxBytes, secretValues),
  );
}

async function runInScope(
  tool: Tool,
  invocation: ToolInvocation,
  deadline: Deadline,
  services: ToolContextServices,
  maxBytes: number,
  secretValues: SecretValues,
): Promise<ToolResult> {
  const redaction: RedactOptions = { secretValues, keepKeys: tool.visibleOutputKeys };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const budgetSeconds = Math.round(deadline.remainingMs() / 100) / 10;
  let toolDeadline: Deadline | undefined;
  try {
    const args = parseToolArgs(tool, invocation.args);
    // The tool sees an earlier deadline than the hard stop, so a page in flight when
    // it passes can still arrive and the tool return what it read (partial, truncated).
    toolDeadline = deadlineBefore(deadline, inFlightReserveMs(deadline.remainingMs()));
    const callDeadline = toolDeadline;
    // The hard stop: when the harness gives up on the handler, its requests are aborted too.
    const hardStop = new AbortController();
    // After an auth failure the call runs once more if a re-read secret changed (credential-renewal.ts).
    const handled = runRenewingOnce({
      tool,
      mayRetry: tool.retryAfterSecretRenewal ?? tool.sideEffects === 'none',
      run: (credentials) =>
        tool.handler(
          createToolContext(tool, invocation, callDeadline, services, {
            signal: hardStop.signal,
            secretValues,
            credentials,
          }),
          args,
        ),
      reread: async (name) => {
        if (!services.secrets) throw new Error('no secret store');
        return services.secrets.resolve(invocation.tenant, name, { fresh: true });
      },
      logger: services.logger,
    });
    const output = await beforeDeadline(
      handled,
      deadline,
      () => {
        const error = new DeadlineExceededError(
          `Tool ${tool.name} did not finish within its budget of ${budgetSeconds} s`,
        );
        hardStop.abort(error);
        return error;
      },
      hardStopGraceMs(deadline.remainingMs()),
    );
    const result: ToolResult = {
      ok: true,
      tool: tool.name,
      callId: invocation.callId,
      value: output.value,
      truncated: output.truncated ?? false,
      resultRef: null,
      durationMs: elapsed(),
      // Masked before it is cut to one line, so no part of a secret survives the cut.
      summary: oneLineSummary(redactString(output.summary ?? `${tool.name} succeeded`, redaction)),
    };
    // Redacted here too: only this process knows the secret values it resolved.
    return boundResult(redact(result, redaction), maxBytes);
  } catch (err) {
    // normalizeError masks the message (in this scope, resolved values too) before cutting it.
    const error = redact(normalizeError(tool.name, err, tool.service, tool.mapError), { secretValues });
    services.logger.warn('tool failed', { tool: tool.name, callId: invocation.callId, error });
    return boundResult(failureResult(tool.name, invocation.callId, error, elapsed()), maxBytes);
  } finally {
    // The call has ended: its deadline's timer goes with it.
    toolDeadline?.dispose?.();
  }
}
