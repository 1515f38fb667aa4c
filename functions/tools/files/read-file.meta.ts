import * as z from 'zod/mini';
import { READ_FILE_MAX_BYTES } from '../../runtime/result-limits';
import { defineToolSpec } from '../../runtime/spec';
import { workspacePathArg } from './workspace-args';

/** `read_file`: a slice of a file of the run's workspace. A file tool: always allowed, runs inside the dispatcher. */
export const readFileSpec = defineToolSpec({
  name: 'read_file',
  description:
    "Reads a slice of a file in this run's workspace: results too large to show inline (results/<level>/<index>.json), " +
    "notes and reports written with write_file, earlier levels' answers (levels/<level>/finish.json). " +
    `Returns up to ${READ_FILE_MAX_BYTES} bytes of UTF-8 text from offset (cut on whole characters), the file's ` +
    'total size and nextOffset to continue from (null at the end). Free: no remote service is called.',
  inputSchema: () =>
    z.strictObject({
      path: workspacePathArg('The file to read, e.g. results/collect/0.json.'),
      offset: z
        ._default(z.int().check(z.minimum(0)), 0)
        .check(z.describe('Byte offset to start at (default 0): the nextOffset of the previous slice.')),
      length: z
        ._default(z.int().check(z.minimum(1), z.maximum(READ_FILE_MAX_BYTES)), READ_FILE_MAX_BYTES)
        .check(z.describe(`Bytes to read, 1-${READ_FILE_MAX_BYTES} (default ${READ_FILE_MAX_BYTES}).`)),
    }),
  tags: ['workspace', 'read_only'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
