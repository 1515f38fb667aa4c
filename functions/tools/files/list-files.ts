import { jsonByteLength } from '../../runtime/bound';
import { defineTool } from '../../runtime/spec';
import { LIST_FILES_MAX_ENTRIES, LIST_FILES_MAX_JSON_BYTES, listFilesSpec } from './list-files.meta';
import { requireWorkspace } from './workspace-args';

/**
 * `list_files` with its handler: asks the workspace for one file more than it may
 * return, so it knows whether the listing is cut, then keeps the files that fit
 * {@link LIST_FILES_MAX_JSON_BYTES}.
 */
export const listFilesTool = defineTool(listFilesSpec, async (ctx, args) => {
  const prefix = args.prefix ?? '';
  const found = await requireWorkspace(ctx).list(prefix, { limit: LIST_FILES_MAX_ENTRIES + 1 });
  const files: { path: string; bytes: number }[] = [];
  let used = 2;
  for (const file of found.slice(0, LIST_FILES_MAX_ENTRIES)) {
    const entry = { path: file.path, bytes: file.bytes };
    const size = jsonByteLength(entry) + 1;
    if (used + size > LIST_FILES_MAX_JSON_BYTES) break;
    files.push(entry);
    used += size;
  }
  const truncated = files.length < found.length;
  const where = prefix === '' ? 'the workspace' : `${prefix}*`;
  return {
    value: { prefix, files, truncated },
    truncated,
    summary: `${files.length}${truncated ? '+' : ''} file(s) in ${where}`,
  };
});
