/**
 * Files the CLI writes (`etp tools docs --write`, the generated docs) are written whole or
 * not at all: the text goes to a temporary file beside the target, renamed over it once
 * complete, so a write that fails part-way (a full disk, a file size limit) leaves the
 * previous file as it was and no partial file behind.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** The file a path names once its symbolic links are followed (itself when it does not exist yet). */
function targetOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * Writes `text` to `file` whole: a temporary file in the same directory, then a rename.
 *
 * @throws the file system's error (ENOENT, EISDIR, EACCES, ENOSPC, EFBIG…), with nothing left behind.
 */
export function writeFileWhole(file: string, text: string): void {
  const target = targetOf(file);
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    writeFileSync(temp, text, { flag: 'wx' });
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
