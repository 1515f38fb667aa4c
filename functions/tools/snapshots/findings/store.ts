/**
 * Where a run's findings live: the run's workspace (docs/design.md, "Workspace":
 * `runs/<tenant>/<scenario>/<runId>/` in the platform's bucket, or
 * `scratch/<tenant>/<runId>/` for a call outside a scenario), at
 * `snapshots/findings.json`, a folder file tools may read and never write
 * (functions/tools/files/workspace-args.ts, PLATFORM_PATHS). The workspace is built elsewhere; this small
 * interface is all the snapshot tools need of it, with an in-memory and a
 * local-directory implementation here and an S3 one in `s3-store.ts`.
 *
 * Writes are create-only: the first scan of a run writes the document and
 * every later `put` (a retried scan, a second scan call) gets that same
 * document back, so findings stay fixed for the run.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { PlatformError } from '../../../runtime/errors';
import { workspaceRoot } from '../../../runtime/workspace-path';
import { FINDINGS_PATH, type FindingsDocument, type RunKey } from './model';

/** A store of findings documents by run. */
export interface FindingsStore {
  /**
   * The run's document, or undefined when no scan has written one.
   *
   * @param signal - aborts a remote read (the call's deadline).
   */
  get(run: RunKey, signal?: AbortSignal): Promise<FindingsDocument | undefined>;
  /**
   * Writes the run's document unless one exists.
   *
   * @returns the stored document (`document` itself, or the one written earlier) and whether this call wrote it.
   */
  put(
    run: RunKey,
    document: FindingsDocument,
    signal?: AbortSignal,
  ): Promise<{ readonly document: FindingsDocument; readonly created: boolean }>;
}

/**
 * The document's object key in the platform's bucket (a path below the local
 * workspace directory): `<workspace root>snapshots/findings.json`. The root's
 * identifiers are checked (functions/runtime/workspace-path.ts), so no part can
 * climb out of its folder.
 *
 * @throws InvalidArgsError for a part that breaks the rules (the dispatcher checked them already).
 * @example findingsKey({ tenant: 'acme', scenario: 'snapshot_forensics', runId: 'r1' })
 * // 'runs/acme/snapshot_forensics/r1/snapshots/findings.json'
 */
export function findingsKey(run: RunKey): string {
  return `${workspaceRoot(run)}${FINDINGS_PATH}`;
}

/** Parses a stored document; a damaged one is an error, never "no findings". */
export function parseFindingsDocument(text: string, where: string): FindingsDocument {
  try {
    const document = JSON.parse(text) as FindingsDocument;
    if (document?.version !== 1 || !Array.isArray(document.findings)) throw new Error('unexpected shape');
    return document;
  } catch (err) {
    throw new PlatformError(
      'internal_error',
      `The findings document at ${where} is damaged: ${(err as Error).message}`,
    );
  }
}

/** Keeps documents in memory: tests and single-process local runs. */
export class MemoryFindingsStore implements FindingsStore {
  private readonly documents = new Map<string, string>();

  async get(run: RunKey): Promise<FindingsDocument | undefined> {
    const text = this.documents.get(findingsKey(run));
    return text === undefined ? undefined : parseFindingsDocument(text, 'memory');
  }

  async put(run: RunKey, document: FindingsDocument) {
    const key = findingsKey(run);
    const existing = this.documents.get(key);
    if (existing !== undefined)
      return { document: parseFindingsDocument(existing, 'memory'), created: false };
    // Stored as text, as the other stores do: a caller mutating its object cannot change what was written.
    this.documents.set(key, JSON.stringify(document));
    return { document: parseFindingsDocument(this.documents.get(key) as string, 'memory'), created: true };
  }
}

/** Keeps documents under a local workspace directory (`<root>/runs/<tenant>/<scenario>/<runId>/snapshots/findings.json`): local runs. */
export class LocalDirFindingsStore implements FindingsStore {
  constructor(private readonly root: string) {}

  private file(run: RunKey): string {
    return path.join(this.root, ...findingsKey(run).split('/'));
  }

  async get(run: RunKey): Promise<FindingsDocument | undefined> {
    const file = this.file(run);
    try {
      return parseFindingsDocument(await readFile(file, 'utf8'), file);
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async put(run: RunKey, document: FindingsDocument) {
    const file = this.file(run);
    await mkdir(path.dirname(file), { recursive: true });
    try {
      // `wx`: create only; a second writer gets EEXIST and reads the first one's document.
      await writeFile(file, JSON.stringify(document, null, 2), { flag: 'wx' });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      return { document: parseFindingsDocument(await readFile(file, 'utf8'), file), created: false };
    }
    return { document: parseFindingsDocument(await readFile(file, 'utf8'), file), created: true };
  }
}
