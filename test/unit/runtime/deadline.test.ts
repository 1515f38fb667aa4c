import { z } from 'zod/mini';
import { deadlineAt, deadlineBefore, deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { logger } from '../../../functions/runtime/logger';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { toolInvocation } from '../../helpers/events';

describe('a deadline’s timer', () => {
  it('aborts its signal when the deadline passes', async () => {
    // Prepare
    const deadline = deadlineIn(30);

    // Act
    await new Promise((resolve) => setTimeout(resolve, 60));

    // Assess
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('is cleared by dispose(): the signal of a call that ended never aborts', async () => {
    // Prepare
    const deadline = deadlineAt(Date.now() + 30);
    const inner = deadlineBefore(deadlineAt(Date.now() + 60), 30);

    // Act
    deadline.dispose?.();
    inner.dispose?.();
    await new Promise((resolve) => setTimeout(resolve, 60));

    // Assess
    expect(deadline.signal.aborted).toBe(false);
  });

  it('is cleared when runTool returns: the tool’s own deadline does not outlive its call', async () => {
    // Prepare: a tool that keeps the deadline it was given
    let seen: AbortSignal | undefined;
    const spec = defineToolSpec({
      name: 'deadline_probe',
      description: 'Keeps its deadline.',
      inputSchema: () => z.strictObject({}),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'none',
      iam: [],
    });
    const tool = defineTool(spec, async (ctx) => {
      seen = ctx.deadline.signal;
      return { value: {} };
    }) as unknown as Tool;
    const call = deadlineAt(Date.now() + 5_000);
    const clearTimeout = jest.spyOn(global, 'clearTimeout');

    // Act
    await runTool(tool, toolInvocation({ tool: 'deadline_probe', args: {} }), call, { logger });

    // Assess: a timer was cleared at the end, and the tool's signal is still not aborted
    expect(clearTimeout).toHaveBeenCalled();
    expect(seen?.aborted).toBe(false);
    call.dispose?.();
    clearTimeout.mockRestore();
  });
});
