import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { PLATFORM_PATHS, workspacePathArg } from './workspace-args';
import { WRITE_FILE_MAX_BYTES } from './write-file.meta';

/** Largest file `edit_file` edits, in bytes, before and after the edit: 1 MiB. */
export const EDIT_FILE_MAX_BYTES = 1024 * 1024;

const text = (what: string, min: number) =>
  z
    .string()
    .check(
      z.minLength(min),
      z.maxLength(WRITE_FILE_MAX_BYTES),
      z.describe(`${what}, at most ${WRITE_FILE_MAX_BYTES} characters.`),
    );

/** `edit_file`: exact-match replace in a file of the run's workspace. A file tool: always allowed. */
export const editFileSpec = defineToolSpec({
  name: 'edit_file',
  description:
    "Edits a text file of this run's workspace by exact replacement: old_string must appear in the file exactly " +
    '(white space and line breaks included) and exactly once, unless replace_all is true, which replaces every ' +
    'occurrence. Zero or several matches fail with invalid_args saying how many were found: read_file the file and ' +
    `copy more surrounding text. ${PLATFORM_PATHS.join(', ')} are the platform's and cannot be edited. A retried ` +
    'call is not applied twice. Free: no remote service is called.',
  inputSchema: () =>
    z.strictObject({
      path: workspacePathArg('The file to edit, e.g. reports/pulse.md.', { writable: true }),
      old_string: text('The exact text to replace', 1),
      new_string: text('The text to put in its place (may be empty)', 0),
      replace_all: z
        ._default(z.boolean(), false)
        .check(z.describe('Replace every occurrence of old_string instead of exactly one (default false).')),
    }),
  tags: ['workspace', 'write'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'write',
  iam: [],
});
