import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { MAX_WORKSPACE_PATH_BYTES, workspacePrefixProblem } from '../../runtime/workspace-path';

/** Most files `list_files` returns in one call. */
export const LIST_FILES_MAX_ENTRIES = 100;

/**
 * Most bytes of JSON the listed files take in one result: 5 KiB, like a
 * `read_file` slice (`READ_FILE_MAX_BYTES` says why), so a listing always fits
 * the inline budget.
 */
export const LIST_FILES_MAX_JSON_BYTES = 5 * 1024;

/** `list_files`: the files of the run's workspace. A file tool: always allowed. */
export const listFilesSpec = defineToolSpec({
  name: 'list_files',
  description:
    "Lists the files of this run's workspace, in path order, with their sizes in bytes: results too large to show " +
    "inline (results/), levels' answers (levels/<level>/finish.json), files written with write_file. " +
    `At most ${LIST_FILES_MAX_ENTRIES} files a call; truncated says there are more (narrow with prefix). ` +
    'Free: no remote service is called.',
  inputSchema: () =>
    z.strictObject({
      prefix: z.optional(
        z.string().check(
          z.superRefine((value, ctx) => {
            const problem = workspacePrefixProblem(value, 'the prefix');
            if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
          }),
          z.describe(
            `Only paths starting with this (results/, reports/pulse), at most ${MAX_WORKSPACE_PATH_BYTES} bytes. ` +
              'Default: every file.',
          ),
        ),
      ),
    }),
  tags: ['workspace', 'read_only'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
