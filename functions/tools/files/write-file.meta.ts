import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { PLATFORM_PATHS, workspacePathArg } from './workspace-args';

/**
 * Largest content `write_file` takes, in UTF-8 bytes: 64 KiB. The content arrives
 * in the model's tool call, which travels in Step Functions state (256 KiB, "Step
 * Functions service quotas") beside the rest of the conversation; a quarter of it
 * holds any report a model writes in one turn.
 */
export const WRITE_FILE_MAX_BYTES = 64 * 1024;

/** `write_file`: creates or replaces a text file of the run's workspace. A file tool: always allowed. */
export const writeFileSpec = defineToolSpec({
  name: 'write_file',
  description:
    "Creates or replaces a UTF-8 text file in this run's workspace (notes, drafts, reports) that later calls and " +
    `levels can read with read_file. At most ${WRITE_FILE_MAX_BYTES} bytes; ${PLATFORM_PATHS.join(', ')} are the ` +
    "platform's and cannot be written. Writing the same content again is harmless. Free: no remote service is called.",
  inputSchema: () =>
    z.strictObject({
      path: workspacePathArg('The file to write, e.g. reports/pulse.md.', { writable: true }),
      content: z.string().check(
        z.maxLength(WRITE_FILE_MAX_BYTES),
        z.refine((text) => Buffer.byteLength(text, 'utf8') <= WRITE_FILE_MAX_BYTES, {
          message: `Too big: expected at most ${WRITE_FILE_MAX_BYTES} bytes of UTF-8`,
        }),
        z.describe(`The whole new content of the file, at most ${WRITE_FILE_MAX_BYTES} bytes of UTF-8.`),
      ),
    }),
  tags: ['workspace', 'write'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'write',
  iam: [],
});
