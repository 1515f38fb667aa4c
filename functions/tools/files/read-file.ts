import { jsonByteLength } from '../../runtime/bound';
import { READ_FILE_MAX_BYTES } from '../../runtime/result-limits';
import { defineTool } from '../../runtime/spec';
import { wholeCharCut } from '../../runtime/text';
import { readFileSpec } from './read-file.meta';
import { requireWorkspace } from './workspace-args';

/**
 * The longest start of `text` whose JSON string form is at most `budget` bytes,
 * never splitting a surrogate pair: escaping (`\"`, `\n`, `\u0000`) can make a
 * slice of N bytes take up to 6N in the result.
 */
function fitEscaped(text: string, budget: number): string {
  if (jsonByteLength(text) <= budget) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (jsonByteLength(text.slice(0, middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  return text.slice(0, wholeCharCut(text, low));
}

/**
 * `read_file` with its handler: reads the slice from the call's workspace and
 * returns it with the offset to continue from. The text's JSON form is kept within
 * {@link READ_FILE_MAX_BYTES} so the result always fits inline.
 */
export const readFileTool = defineTool(readFileSpec, async (ctx, args) => {
  const slice = await requireWorkspace(ctx).read(args.path, { offset: args.offset, length: args.length });
  // The budget counts the quotes JSON puts around the text.
  const content = fitEscaped(slice.content, READ_FILE_MAX_BYTES + 2);
  const bytes = content === slice.content ? slice.bytes : Buffer.byteLength(content, 'utf8');
  const end = slice.offset + bytes;
  return {
    value: {
      path: slice.path,
      offset: slice.offset,
      bytes,
      totalBytes: slice.totalBytes,
      nextOffset: end < slice.totalBytes ? end : null,
      content,
    },
    summary: `${slice.path}: bytes ${slice.offset}-${end} of ${slice.totalBytes}`,
  };
});
