import { InvalidArgsError, LimitExceededError } from '../../runtime/errors';
import { defineTool } from '../../runtime/spec';
import { sha256Hex, WorkspaceConflictError } from '../../runtime/workspace-content';
import { EDIT_FILE_MAX_BYTES, editFileSpec } from './edit-file.meta';
import { assertWritablePath, requireWorkspace } from './workspace-args';

/**
 * Metadata key of a file's edit ledger: the last {@link LEDGER_ENTRIES} edits
 * applied to it, each `<callId>=<fingerprint>:<replacements>`.
 */
export const EDIT_LEDGER_KEY = 'etp-edits';

/** Edits a ledger remembers: 16 entries of at most ~90 bytes stay within S3's 2 KB of user metadata. */
const LEDGER_ENTRIES = 16;

/** Tries of read → replace → conditional write when another call changed the file in between. */
const MAX_ATTEMPTS = 3;

/** Identifies an edit's arguments (16 hex chars of SHA-256). */
function fingerprint(oldString: string, newString: string, replaceAll: boolean): string {
  return sha256Hex(JSON.stringify([oldString, newString, replaceAll])).slice(0, 16);
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function notFound(path: string, content: string, oldString: string): InvalidArgsError {
  const hint = collapse(content).includes(collapse(oldString))
    ? ' It does occur when white space is ignored: copy the exact spaces, tabs and line breaks.'
    : ' It must match the file exactly, white space and line breaks included.';
  return new InvalidArgsError(
    `old_string was not found in ${path}.${hint} read_file shows the current text.`,
  );
}

/**
 * `edit_file` with its handler: reads the file, checks that `old_string` occurs
 * exactly once (or at least once with `replace_all`), and writes the result only
 * if the file is still the version it read (a conditional write; on a conflict it
 * starts over, {@link MAX_ATTEMPTS} times in all).
 *
 * Retries: the write also records the edit in the file's metadata ledger
 * ({@link EDIT_LEDGER_KEY}: call id and a fingerprint of the arguments), in the
 * same request, so the effect and its record land together. A retried call finds
 * its entry and answers as the first attempt did (`alreadyApplied: true`) instead
 * of replacing again — `a → aa` applied twice would give `aaa`. A `write_file` of
 * the same path in between replaces the file and its ledger.
 */
export const editFileTool = defineTool(editFileSpec, async (ctx, args) => {
  assertWritablePath(args.path);
  const { old_string: oldString, new_string: newString, replace_all: replaceAll } = args;
  if (oldString === newString) {
    throw new InvalidArgsError('old_string and new_string are the same: the edit would change nothing');
  }
  const workspace = requireWorkspace(ctx);
  const mark = `${ctx.callId}=${fingerprint(oldString, newString, replaceAll)}`;
  for (let attempt = 1; ; attempt += 1) {
    const file = await workspace.read(args.path, { offset: 0, length: EDIT_FILE_MAX_BYTES + 1 });
    if (file.totalBytes > EDIT_FILE_MAX_BYTES) {
      throw new LimitExceededError(
        `${file.path} is ${file.totalBytes} bytes; edit_file edits files of at most ${EDIT_FILE_MAX_BYTES} bytes (write_file replaces a file whole)`,
      );
    }
    const ledger = (file.metadata?.[EDIT_LEDGER_KEY] ?? '').split(' ').filter((entry) => entry !== '');
    const applied = ledger.find((entry) => entry.startsWith(`${mark}:`));
    if (applied) {
      const replacements = Number(applied.slice(mark.length + 1)) || 1;
      return {
        value: { path: file.path, replacements, bytes: file.totalBytes, alreadyApplied: true },
        summary: `${file.path} already had this edit (${replacements} replacement(s)) from call ${ctx.callId}`,
      };
    }
    const parts = file.content.split(oldString);
    const occurrences = parts.length - 1;
    if (occurrences === 0) throw notFound(file.path, file.content, oldString);
    if (occurrences > 1 && !replaceAll) {
      throw new InvalidArgsError(
        `old_string occurs ${occurrences} times in ${file.path}; it must occur exactly once. Include more of the ` +
          'surrounding text to make it unique, or set replace_all to true to replace every occurrence.',
      );
    }
    // Joined, never String.replace: `$&` or `$1` in new_string must stay as written.
    const updated = replaceAll
      ? parts.join(newString)
      : `${parts[0]}${newString}${parts.slice(1).join(oldString)}`;
    const bytes = Buffer.byteLength(updated, 'utf8');
    if (bytes > EDIT_FILE_MAX_BYTES) {
      throw new LimitExceededError(
        `The edit would make ${file.path} ${bytes} bytes; files are edited up to ${EDIT_FILE_MAX_BYTES} bytes`,
      );
    }
    const entries = [
      ...ledger.filter((entry) => !entry.startsWith(`${ctx.callId}=`)),
      `${mark}:${occurrences}`,
    ];
    try {
      const written = await workspace.write(file.path, updated, undefined, {
        ...(file.etag === undefined ? {} : { ifMatch: file.etag }),
        metadata: { 'etp-call': ctx.callId, [EDIT_LEDGER_KEY]: entries.slice(-LEDGER_ENTRIES).join(' ') },
      });
      return {
        value: { path: written.path, replacements: occurrences, bytes: written.bytes, alreadyApplied: false },
        summary: `Edited ${written.path}: ${occurrences} replacement(s)`,
      };
    } catch (err) {
      if (!(err instanceof WorkspaceConflictError) || attempt >= MAX_ATTEMPTS) throw err;
      ctx.logger.info('edit_file: the file changed since it was read; starting over', { attempt });
    }
  }
});
