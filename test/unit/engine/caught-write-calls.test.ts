/**
 * A call whose Task its Catch ends (the Task's TimeoutSeconds, or the dispatcher
 * or the tool's function failing as a function) is a result the Pass states
 * write, whatever its tool: `timeout` says `retryable: true`. For a write tool
 * the write may have happened before the function died, so the engine reads it
 * as final (`details.effect: 'unknown'`, not retryable), as the dispatcher
 * reports a write tool's function failure: a model told "retryable" would post
 * again under a new call id. The Pass states run on the local ASL interpreter.
 */
import { executeLocally } from '../../../bin/local/local-execution';
import { toolResultBlock } from '../../../functions/engine/conversation';
import { CAUGHT_WRITE_SUFFIX, narrowResult, writeToolsOf } from '../../../functions/engine/records';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Workspace } from '../../../functions/runtime/workspace';
import { toolCatalog } from '../../../functions/tools/catalog';
import { type AslBuild, callStates } from '../../../lib/scenarios/asl-states/tasks';

/** Runs one call's Task and Catch states, the Task answered by `task`; the Pass state's output. */
async function caught(tool: string, task: () => Promise<unknown>, timeoutSeconds = 1): Promise<unknown> {
  const build = {
    dispatcherArn: 'arn:aws:lambda:us-east-1:123456789012:function:etp-dispatcher',
  } as AslBuild;
  const definition = { StartAt: 'report_tool', States: callStates(build, 'report_tool', timeoutSeconds) };
  return executeLocally(definition, { tool, callId: 'report/3' }, () => task, { runId: 'run-caught' });
}

const never = () => new Promise<never>(() => undefined);
const crashes = async () => {
  throw Object.assign(new Error('Runtime exited'), { name: 'Lambda.Unknown' });
};
const noWorkspace = {} as Workspace;

describe("a write tool's call ended by its Task's Catch", () => {
  it('is final for a write tool, timed out or failed: effect unknown, not retryable, saying so', async () => {
    // Prepare
    const isWrite = writeToolsOf(toolCatalog);
    expect(isWrite('slack_post_message')).toBe(true);

    // Act
    const timedOut = narrowResult(await caught('slack_post_message', never), fallback, isWrite);
    const failed = narrowResult(await caught('slack_post_message', crashes), fallback, isWrite);

    // Assess
    for (const [result, code] of [
      [timedOut, 'timeout'],
      [failed, 'internal_error'],
    ] as const) {
      if (result.ok) throw new Error('expected a failure');
      expect(result).toMatchObject({ tool: 'slack_post_message', callId: 'report/3', caught: true });
      expect(result.error).toMatchObject({ code, retryable: false, details: { effect: 'unknown' } });
      expect(result.error.message.endsWith(CAUGHT_WRITE_SUFFIX)).toBe(true);
      expect(result.summary).toBe(`${code}: ${result.error.message}`);
      // What the model reads of it.
      expect(toolResultBlock('tu-1', result, noWorkspace)).toMatchObject({
        toolResult: {
          content: [{ json: { ok: false, error: { code, retryable: false } } }],
          status: 'error',
        },
      });
    }
  });

  it("leaves a read tool's caught timeout retryable, as the Pass wrote it", async () => {
    // Act
    const raw = (await caught('aws_ec2_inventory', never)) as ToolResult;
    const result = narrowResult(raw, fallback, writeToolsOf(toolCatalog));

    // Assess
    expect(result).toEqual(raw);
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
  });
});

const fallback = { tool: 'slack_post_message', callId: 'report/3' };
