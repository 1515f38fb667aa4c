import { defineTool } from '../../runtime/spec';
import { finishSpec } from './finish.meta';

/** `finish` with its handler: echoes the answer back as the level's result. */
export const finishTool = defineTool(finishSpec, async (_ctx, args) => ({
  value: { finished: true, summary: args.summary, ...(args.data ? { data: args.data } : {}) },
  summary: args.summary.length > 200 ? `${args.summary.slice(0, 199)}…` : args.summary,
}));
