import { z } from 'zod';
import { defineToolSpec } from '../../runtime/spec';

/** `finish`: ends a level with the final answer. A file tool: always allowed, runs inside the dispatcher. */
export const finishSpec = defineToolSpec({
  name: 'finish',
  description:
    'Ends the current level with a final answer: a short summary for people, and optional structured data. ' +
    'Always allowed; makes no remote call and costs nothing.',
  inputSchema: z.strictObject({
    summary: z.string().min(1).max(4000).describe('The final answer, at most 4,000 characters.'),
    data: z.record(z.string(), z.unknown()).optional().describe('Optional structured result.'),
  }),
  tags: ['file'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
  placement: 'dispatcher',
});
