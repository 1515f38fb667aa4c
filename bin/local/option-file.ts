/**
 * Reading a file a command-line option names (`--script`, `--answers`,
 * `--value-file`, `--root`'s catalog), with one wording for every way it can
 * fail: the option, the path, the reason in words and what is accepted — never
 * Node's bare `ENOENT: no such file or directory, open '…'`.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgsError } from '../../functions/runtime/errors';

/** Node's file error codes in words (Node.js "Common system errors"). */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
};

/** Why a file could not be read, in words: `no such file (ENOENT)`. */
export function fileErrorReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return (err as Error).message;
  return `${REASONS[code] ?? 'unreadable'} (${code})`;
}

/**
 * The bytes of the file `option` names.
 *
 * @param accepted - what the option takes, for the message: `a YAML or JSON list of responses`.
 * @throws InvalidArgsError (a usage error, exit 2): `--script /tmp: cannot be read: it is a
 *   directory, not a file (EISDIR); give a YAML or JSON list of responses`.
 */
export function readOptionFile(option: string, file: string, accepted: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new InvalidArgsError(
      `${option} ${file}: cannot be read: ${fileErrorReason(err)}; give ${accepted}`,
    );
  }
}
