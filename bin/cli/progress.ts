import type { ToolResult } from '../../functions/runtime/result';
import type { Scenario } from '../../lib/scenarios/model';
import type { LocalCall, ScenarioRunOutput } from '../local/local-run';
import { formatDuration } from './text';

/** Prints a local scenario run as it happens: one line per call, then a summary. */
export interface RunProgress {
  /** Starts a call's line: `collect  aws_ec2_inventory  … `. */
  callStarted(call: LocalCall): void;
  /**
   * Ends it: `ok 412 ms  <summary>` or `✗ <code>: <message> (35 ms)`, also for
   * the `internal_error` result of a Task's Catch (the dispatcher failed or timed out).
   */
  callEnded(call: LocalCall, result: ToolResult): void;
  /** Ends a line left open when the execution itself failed: `✗ <reason>`. */
  interrupted(reason: string): void;
  /** `Completed <scenario> run <id> in 1.2 s: 1 ok, 1 failed (secret_not_found).` */
  completed(output: ScenarioRunOutput, elapsedMs: number): void;
}

/**
 * Progress of a run of `scenario`, written through `write`. Level and tool names
 * are padded to the scenario's longest so results line up. A call's line is
 * written in two parts (start, then result) so a slow call shows what is running.
 *
 * @example
 * collect  aws_ec2_inventory  … ok 412 ms  12 EC2 instances in 2 regions (9 running)
 * report   slack_post_message … ✗ secret_not_found: Secret "slack_default" … is not set (1 ms)
 */
export function createRunProgress(
  scenario: Scenario,
  runId: string,
  write: (text: string) => void,
): RunProgress {
  const levelWidth = Math.max(...scenario.levels.map((level) => level.name.length));
  const toolWidth = Math.max(
    ...scenario.levels.flatMap((level) => level.calls.map((call) => call.tool.length)),
  );
  let lineOpen = false;
  return {
    callStarted(call) {
      lineOpen = true;
      write(`${call.level.padEnd(levelWidth)}  ${call.tool.padEnd(toolWidth)} … `);
    },
    callEnded(_call, result) {
      lineOpen = false;
      const duration = formatDuration(result.durationMs);
      write(
        result.ok
          ? `ok ${duration}  ${result.summary}${result.truncated ? ' (truncated)' : ''}\n`
          : `✗ ${result.error.code}: ${result.error.message} (${duration})\n`,
      );
    },
    interrupted(reason) {
      if (lineOpen) write(`✗ ${reason}\n`);
      lineOpen = false;
    },
    completed(output, elapsedMs) {
      const results = Object.values(output.results);
      const failures = results.filter((result) => !result.ok);
      const codes = [...new Set(failures.map((result) => (result.ok ? '' : result.error.code)))];
      write(
        `Completed ${output.scenario} run ${runId} in ${formatDuration(elapsedMs)}: ` +
          `${results.length - failures.length} ok, ${failures.length} failed${codes.length > 0 ? ` (${codes.join(', ')})` : ''}.\n`,
      );
    },
  };
}
