import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { defaultLocalDir } from '../../functions/runtime/local-workspace-dir';
import type {
  Workspace,
  WorkspaceFile,
  WorkspaceListOptions,
  WorkspaceProvider,
  WorkspaceRead,
  WorkspaceScope,
  WorkspaceWriteOptions,
} from '../../functions/runtime/workspace';
import {
  checkMetadata,
  contentBytes,
  DEFAULT_LIST_LIMIT,
  fileNotFound,
  readRange,
  sha256Hex,
  sliceText,
  UTF8_LOOKAHEAD_BYTES,
  WorkspaceConflictError,
  writtenFile,
} from '../../functions/runtime/workspace-content';
import {
  workspaceKey,
  workspacePath,
  workspacePrefix,
  workspaceRoot,
} from '../../functions/runtime/workspace-path';

/**
 * Folders of the base directory beside `runs/` and `scratch/`: files being
 * written (renamed into place when complete) and each file's metadata.
 */
const TEMP_DIR = '.tmp';
const METADATA_DIR = '.meta';

/** Only the owner may enter a workspace directory: the OS temp dir is shared by every user. */
const PRIVATE_DIR_MODE = 0o700;

/** Options of a {@link LocalDirectoryWorkspace}. */
export interface LocalWorkspaceOptions {
  /** The local stand-in for the bucket. @default {@link defaultLocalDir}() */
  readonly baseDir?: string;
  /** Whose workspace: its root is `<baseDir>/<workspaceRoot(scope)>`. */
  readonly scope: WorkspaceScope;
}

const etagOf = (bytes: Uint8Array) => `"${sha256Hex(bytes)}"`;

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** What a path is, without following it. */
type PathKind = 'missing' | 'link' | 'other';

async function kindOf(target: string): Promise<PathKind> {
  const stats = await lstat(target).catch((err: unknown) => {
    if (isMissing(err)) return undefined;
    throw err;
  });
  return !stats ? 'missing' : stats.isSymbolicLink() ? 'link' : 'other';
}

function linkRefused(relative: string): InvalidArgsError {
  return new InvalidArgsError(
    `path ${JSON.stringify(relative)} is refused: it goes through a symbolic link, which workspaces never follow`,
  );
}

/**
 * Base directories made ready in this process (created private, their temporary
 * folder too), by path: their real path. Each workspace of a run (the engine
 * opens one per action) then costs no `mkdir` of its own before its writes.
 */
const readyBases = new Map<string, Promise<string>>();

function baseDirOf(base: string): Promise<string> {
  let ready = readyBases.get(base);
  if (!ready) {
    ready = (async () => {
      await mkdir(path.join(base, TEMP_DIR), { recursive: true, mode: PRIVATE_DIR_MODE });
      return realpath(base);
    })();
    // A failure is not kept: the next workspace tries again.
    ready.catch(() => readyBases.delete(base));
    readyBases.set(base, ready);
  }
  return ready;
}

/**
 * A run's workspace in a local directory, for local runs and tests: the same
 * layout as the bucket (`<baseDir>/runs/<tenant>/<scenario>/<runId>/…`) and the
 * same path rule (functions/runtime/workspace-path.ts), checked before any file
 * system call. It never follows a symbolic link: a path going through one is
 * refused with `invalid_args`, and reads open files with `O_NOFOLLOW`. Files are
 * written to a temporary file and renamed into place, so a reader never sees half
 * a file; metadata lives in `<baseDir>/.meta/`, outside every workspace root.
 *
 * The link checks and the write are separate steps: another local process able to
 * write the base directory could swap a folder for a link in between. The base
 * directory is created private to its owner (mode 700) for that reason. Each use
 * looks at the file's folder (one `realpath`: it is its own real path when no
 * folder below the base is a link) and at the file, so a folder swapped for a
 * link is refused by the next use; only a missing folder or a link takes the
 * walk through each folder (looked at once by this object).
 *
 * @example
 * const workspace = new LocalDirectoryWorkspace({ scope: { tenant: 'default', scenario: 'aws_pulse', runId: 'local-1' } });
 * await workspace.write('notes.md', 'hello'); // <tmp>/etp-local/runs/default/aws_pulse/local-1/notes.md
 */
export class LocalDirectoryWorkspace implements Workspace {
  readonly uri: string;
  readonly #base: string;
  readonly #root: string;
  #ready: Promise<string> | undefined;
  /** The folders below the base this object has looked at ({@link LocalDirectoryWorkspace.#folder}). */
  readonly #folders = new Map<string, Promise<PathKind>>();

  /** @throws InvalidArgsError when the scope's identifiers break their rules. */
  constructor(options: LocalWorkspaceOptions) {
    this.#base = path.resolve(options.baseDir ?? defaultLocalDir());
    this.#root = workspaceRoot(options.scope);
    this.uri = `${pathToFileURL(path.join(this.#base, ...this.#root.split('/'))).href}/`;
  }

  /** The base directory, created private, as a real path (the OS temp dir may itself be a link, as on macOS). */
  #baseDir(): Promise<string> {
    this.#ready ??= baseDirOf(this.#base);
    return this.#ready;
  }

  /**
   * The file system path of `key`, after checking that no existing component of
   * it below the base directory is a symbolic link; `complete` when every
   * component exists (the file itself included: a new file's folder exists then
   * when `parentExists`).
   *
   * @throws InvalidArgsError naming the path when one is.
   */
  async #resolve(
    key: string,
    relative: string,
  ): Promise<{ readonly path: string; readonly parentExists: boolean }> {
    const base = await this.#baseDir();
    const segments = key.split('/').filter((part) => part !== '');
    const resolved = path.join(base, ...segments);
    if (!resolved.startsWith(path.join(base, ...this.#root.split('/')))) {
      throw new InvalidArgsError(`path ${JSON.stringify(relative)} resolves outside the workspace`);
    }
    // The common case in one look: the file's folder exists and is its own real path (the base is
    // real), so no folder below the base is a link; then only the file itself is looked at. Anything
    // else (a missing folder, a link, a file system that answers in another case) takes the walk.
    const folder = path.dirname(resolved);
    if ((await realpath(folder).catch(() => undefined)) === folder) {
      if ((await kindOf(resolved)) === 'link') throw linkRefused(relative);
      return { path: resolved, parentExists: true };
    }
    let current = base;
    let existing = 0;
    for (const [index, segment] of segments.entries()) {
      current = path.join(current, segment);
      // A folder is looked at once by this object (its calls at once share the look); the file itself each time.
      const found = index < segments.length - 1 ? this.#folder(current) : kindOf(current);
      const kind = await found;
      if (kind === 'missing') break;
      existing++;
      if (kind === 'link') throw linkRefused(relative);
    }
    return { path: resolved, parentExists: existing >= segments.length - 1 };
  }

  /** What `folder` is, looked at once by this object when it exists (a missing one is looked at again). */
  #folder(folder: string): Promise<PathKind> {
    let known = this.#folders.get(folder);
    if (!known) {
      known = kindOf(folder);
      this.#folders.set(folder, known);
      known.then(
        (kind) => kind === 'missing' && this.#folders.delete(folder),
        () => this.#folders.delete(folder),
      );
    }
    return known;
  }

  #metadataPath(base: string, key: string): string {
    return `${path.join(base, METADATA_DIR, ...key.split('/'))}.json`;
  }

  async read(
    filePath: string,
    range?: { readonly offset?: number; readonly length?: number },
  ): Promise<WorkspaceRead> {
    const relative = workspacePath(filePath);
    const key = workspaceKey(this.#root, relative);
    const wanted = readRange(range);
    const target = (await this.#resolve(key, relative)).path;
    const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (code === 'ELOOP') {
        throw new InvalidArgsError(
          `path ${JSON.stringify(relative)} is a symbolic link, which workspaces never follow`,
        );
      }
      throw isMissing(err) || code === 'EISDIR' ? fileNotFound(relative, err) : err;
    });
    let bytes: Buffer;
    try {
      if (!(await handle.stat()).isFile()) throw fileNotFound(relative);
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
    const total = bytes.length;
    const start = Math.min(wanted.offset, total);
    const end =
      wanted.length === undefined ? total : Math.min(total, start + wanted.length + UTF8_LOOKAHEAD_BYTES);
    const metadata = await readFile(this.#metadataPath(await this.#baseDir(), key), 'utf8')
      .then((text) => JSON.parse(text) as Record<string, string>)
      .catch(() => ({}));
    return sliceText(relative, bytes.subarray(start, end), { ...wanted, offset: start }, total, {
      etag: etagOf(bytes),
      metadata,
    });
  }

  async write(
    filePath: string,
    content: string | Uint8Array,
    _contentType?: string,
    options: WorkspaceWriteOptions = {},
  ): Promise<WorkspaceFile> {
    const relative = workspacePath(filePath);
    const key = workspaceKey(this.#root, relative);
    const metadata = checkMetadata(options);
    const body = contentBytes(content);
    const resolved = await this.#resolve(key, relative);
    const target = resolved.path;
    const base = await this.#baseDir();
    if (!resolved.parentExists) {
      await mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
      // Checked again now that the folders exist: none of the new ones may be a link.
      await this.#resolve(key, relative);
    }
    const temp = path.join(base, TEMP_DIR, `${randomBytes(8).toString('hex')}.tmp`);
    await writeFile(temp, body, { mode: 0o600 }).catch(async (err: unknown) => {
      // The temporary folder went away since this process made it ready (a directory removed by hand).
      if (!isMissing(err)) throw err;
      await mkdir(path.dirname(temp), { recursive: true, mode: PRIVATE_DIR_MODE });
      await writeFile(temp, body, { mode: 0o600 });
    });
    try {
      if (options.ifMatch !== undefined) {
        const current = await readFile(target).catch((err: unknown) => {
          if (isMissing(err)) return undefined;
          throw err;
        });
        if (!current || etagOf(current) !== options.ifMatch) throw new WorkspaceConflictError(relative);
      }
      const metadataFile = this.#metadataPath(base, key);
      if (Object.keys(metadata).length === 0) {
        // No metadata reads as `{}`: none is kept, and an earlier version's goes.
        await unlink(metadataFile).catch((err: unknown) => {
          if (!isMissing(err)) throw err;
        });
      } else {
        await mkdir(path.dirname(metadataFile), { recursive: true, mode: PRIVATE_DIR_MODE });
        await writeFile(metadataFile, JSON.stringify(metadata), { mode: 0o600 });
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return writtenFile(relative, body);
  }

  async list(prefix?: string, options: WorkspaceListOptions = {}): Promise<WorkspaceFile[]> {
    const relative = workspacePrefix(prefix);
    workspaceKey(this.#root, relative);
    const limit = Math.max(0, options.limit ?? DEFAULT_LIST_LIMIT);
    const base = await this.#baseDir();
    const rootDir = path.join(base, ...this.#root.split('/'));
    const found: { path: string; full: string }[] = [];
    const walk = async (dir: string, under: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const entry of entries) {
        // Links are neither listed nor followed; only regular files and folders count.
        const entryPath = `${under}${entry.name}`;
        if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${entryPath}/`);
        else if (entry.isFile() && entryPath.startsWith(relative)) {
          found.push({ path: entryPath, full: path.join(dir, entry.name) });
        }
      }
    };
    await walk(rootDir, '');
    found.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    const files: WorkspaceFile[] = [];
    for (const file of found.slice(0, limit)) {
      const stats = await lstat(file.full);
      files.push({ path: file.path, bytes: stats.size, lastModified: stats.mtime.toISOString() });
    }
    return files;
  }
}

/**
 * Opens local-directory workspaces under `baseDir`: what a local run's dispatcher
 * uses instead of the bucket.
 *
 * @example const workspaces = localWorkspaceProvider(); // under <OS temp dir>/etp-local
 */
export function localWorkspaceProvider(baseDir: string = defaultLocalDir()): WorkspaceProvider {
  return (scope) => new LocalDirectoryWorkspace({ baseDir, scope });
}
