import { defineTool } from '../../runtime/spec';
import { finishSpec } from './finish.meta';

/**
 * Where a level's final answer is kept in the run's workspace:
 * `levels/<level>/finish.json`. The level is the call's own, else the level part
 * of its call id (`cli/0` → `cli`).
 *
 * @example finishPath('analyze') // 'levels/analyze/finish.json'
 */
export function finishPath(level: string): string {
  return `levels/${level}/finish.json`;
}

/**
 * `finish` with its handler: returns the answer as the level's result and, where
 * the dispatcher has a workspace, also writes it to {@link finishPath} so later
 * levels and reports can read it. The stored JSON holds no timestamp: a retried
 * call writes the very same bytes.
 */
export const finishTool = defineTool(finishSpec, async (ctx, args) => {
  const level = ctx.level ?? ctx.callId.split('/')[0] ?? 'unknown';
  const answer = { finished: true, summary: args.summary, ...(args.data ? { data: args.data } : {}) };
  const workspace = ctx.workspace();
  const file = workspace
    ? await workspace.write(
        finishPath(level),
        JSON.stringify({ level, callId: ctx.callId, ...answer }, null, 2),
        'application/json',
        { metadata: { 'etp-call': ctx.callId } },
      )
    : undefined;
  return {
    value: { ...answer, ...(file ? { file: file.path } : {}) },
    summary: args.summary.length > 200 ? `${args.summary.slice(0, 199)}…` : args.summary,
  };
});
