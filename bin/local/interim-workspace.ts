/**
 * INTERIM (swap on merge, issue 7 item 4): a run workspace in a local directory,
 * implementing the Workspace contract (functions/runtime/workspace.ts) for local
 * runs, the tests and the bench until the platform's own workspace lands. The
 * engine only sees the interface; replace {@link localWorkspaces} with the
 * workspace module's local factory. Paths are confined to the run's directory.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runPrefix, type WorkspaceFactory } from '../../functions/engine/workspaces';
import { InvalidArgsError, PlatformError } from '../../functions/runtime/errors';
import type { Workspace, WorkspaceFile, WorkspaceRead } from '../../functions/runtime/workspace';

/** A relative path made of plain segments: no `..`, no absolute path, no backslash, no percent-encoding, no NUL. */
const SAFE_SEGMENT = /^[A-Za-z0-9_.=@+,-]+$/;

function confined(root: string, relative: string): string {
  const segments = relative.split('/');
  if (
    relative === '' ||
    relative.startsWith('/') ||
    segments.some(
      (segment) => segment === '' || segment === '.' || segment === '..' || !SAFE_SEGMENT.test(segment),
    )
  ) {
    throw new InvalidArgsError(
      `Path "${relative.slice(0, 200)}" is not a relative path inside the run's workspace (segments of letters, digits and _ . = @ + , -)`,
    );
  }
  return path.join(root, ...segments);
}

/** A workspace in `root` (a directory; created on first write). */
export class InterimDirectoryWorkspace implements Workspace {
  readonly uri: string;

  constructor(private readonly root: string) {
    this.uri = `${pathToFileURL(root).href.replace(/\/?$/, '/')}`;
  }

  async read(relative: string, range: { offset?: number; length?: number } = {}): Promise<WorkspaceRead> {
    const file = confined(this.root, relative);
    let content: Buffer;
    try {
      content = await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new PlatformError('not_found', `${relative} does not exist in the run's workspace`);
      }
      throw err;
    }
    const offset = Math.max(0, range.offset ?? 0);
    const slice = content.subarray(offset, range.length === undefined ? undefined : offset + range.length);
    return {
      path: relative,
      content: slice.toString('utf8'),
      offset,
      bytes: slice.length,
      totalBytes: content.length,
    };
  }

  async write(relative: string, content: string | Uint8Array): Promise<WorkspaceFile> {
    const file = confined(this.root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    await writeFile(file, bytes);
    return {
      path: relative,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      lastModified: new Date().toISOString(),
    };
  }

  async list(prefix = ''): Promise<WorkspaceFile[]> {
    const files: WorkspaceFile[] = [];
    const walk = async (dir: string, relative: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const child = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.isDirectory()) await walk(path.join(dir, entry.name), child);
        else if (child.startsWith(prefix)) {
          const info = await stat(path.join(dir, entry.name));
          files.push({ path: child, bytes: info.size, lastModified: info.mtime.toISOString() });
        }
      }
    };
    await walk(this.root, '');
    return files.sort((a, b) => a.path.localeCompare(b.path));
  }
}

/** Workspaces of local runs: `<baseDir>/runs/<tenant>/<scenario>/<runId>/`. */
export function localWorkspaces(baseDir: string): WorkspaceFactory {
  return (run) => new InterimDirectoryWorkspace(path.join(baseDir, runPrefix(run)));
}
