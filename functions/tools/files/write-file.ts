import { defineTool } from '../../runtime/spec';
import { assertWritablePath, requireWorkspace } from './workspace-args';
import { writeFileSpec } from './write-file.meta';

/**
 * `write_file` with its handler. A retried call writes the same bytes to the same
 * path, so a retry (the dispatcher's Task retried by Step Functions after its
 * answer was lost) leaves the file as the first attempt did. The call id is kept
 * in the file's metadata (`etp-call`): which call wrote it.
 */
export const writeFileTool = defineTool(writeFileSpec, async (ctx, args) => {
  assertWritablePath(args.path);
  const file = await requireWorkspace(ctx).write(args.path, args.content, undefined, {
    metadata: { 'etp-call': ctx.callId },
  });
  return {
    value: { path: file.path, bytes: file.bytes, sha256: file.sha256 },
    summary: `Wrote ${file.path} (${file.bytes} bytes)`,
  };
});
