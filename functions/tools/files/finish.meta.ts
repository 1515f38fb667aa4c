import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';

/**
 * `finish`: ends a level with the final answer, also kept in the run's workspace
 * as `levels/<level>/finish.json`. A file tool: always allowed, runs inside the dispatcher.
 */
export const finishSpec = defineToolSpec({
  name: 'finish',
  description:
    'Ends the current level with a final answer: a short summary for people, and optional structured data. ' +
    "The answer is also kept in this run's workspace as levels/<level>/finish.json for later levels and reports. " +
    'Always allowed; calling it again with the same answer is harmless. Free: no remote service is called.',
  inputSchema: () =>
    z.strictObject({
      summary: z
        .string()
        .check(z.minLength(1), z.maxLength(4000), z.describe('The final answer, at most 4,000 characters.')),
      data: z.optional(z.record(z.string(), z.unknown())).check(z.describe('Optional structured result.')),
    }),
  tags: ['workspace'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'write',
  iam: [],
});
