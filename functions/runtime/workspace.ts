/**
 * The run workspace contract (docs/design.md, "Workspace, file tools and claim-check"):
 * each run owns the S3 prefix `runs/<tenant>/<scenario>/<runId>/` of the
 * platform's bucket (locally, a directory under the OS temp dir with the same
 * rules). File tools, the claim-check and the scenario engine (conversations,
 * findings, reports) read and write through this interface only.
 */

/** One file of a workspace. */
export interface WorkspaceFile {
  /** Path relative to the workspace root (`reports/pulse.md`): no leading `/`, no `..`. */
  readonly path: string;
  /** Size in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the content, when known. */
  readonly sha256?: string;
  /** ISO 8601 UTC time of the last write, when known. */
  readonly lastModified?: string;
}

/** A slice of a file read with {@link Workspace.read}. */
export interface WorkspaceRead {
  readonly path: string;
  /** The UTF-8 text of the slice. */
  readonly content: string;
  /** Byte offset the slice starts at. */
  readonly offset: number;
  /** Bytes in the slice. */
  readonly bytes: number;
  /** Size of the whole file in bytes. */
  readonly totalBytes: number;
  /**
   * The file's version tag (S3 `ETag`; locally the quoted SHA-256): pass it as
   * {@link WorkspaceWriteOptions.ifMatch} to replace exactly this version.
   */
  readonly etag?: string;
  /** User metadata stored with the file ({@link WorkspaceWriteOptions.metadata}). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Options of {@link Workspace.write}. */
export interface WorkspaceWriteOptions {
  /**
   * Write only when the file's current version tag is this one (S3 conditional
   * write, `If-Match`); otherwise fail with `WorkspaceConflictError` and write nothing.
   */
  readonly ifMatch?: string;
  /**
   * User metadata stored with the file: lowercase keys of letters, digits and `-`,
   * ASCII values, at most 2 KB in all (S3 user-defined metadata limit, "Working with
   * object metadata").
   */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Options of {@link Workspace.list}. */
export interface WorkspaceListOptions {
  /** At most this many files (the first ones in path order). @default 1000 */
  readonly limit?: number;
}

/**
 * What a workspace is opened for: the run (`runs/<tenant>/<scenario>/<runId>/`),
 * or, without a scenario, the scratch space of a run id
 * (`scratch/<tenant>/<runId>/`). Identifiers follow functions/runtime/ids.ts.
 */
export interface WorkspaceScope {
  readonly tenant: string;
  readonly runId: string;
  readonly scenario?: string;
}

/**
 * Opens the workspace of a call: S3 deployed, a local directory in local runs.
 * `signal` aborts every request of that workspace (the call's deadline).
 */
export type WorkspaceProvider = (scope: WorkspaceScope, signal?: AbortSignal) => Workspace;

/**
 * A claim-check reference (docs/design.md): the full value of a result too large for
 * the state, written to the run's workspace.
 */
export interface ResultRef {
  /** `s3://<bucket>/runs/<tenant>/<scenario>/<runId>/results/<callId>.json` (or `file://…` locally). */
  readonly uri: string;
  /** Size of the stored JSON in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the stored JSON. */
  readonly sha256: string;
}

/**
 * A run's files. Every path is confined to the workspace root: `..`, absolute
 * paths, encoded traversal and other prefixes are refused with `invalid_args`
 * before any remote call.
 */
export interface Workspace {
  /** The root, `s3://<bucket>/<prefix>` or `file://<dir>/`. */
  readonly uri: string;
  /**
   * Reads a file, or `length` bytes of it from `offset` (bytes).
   * @throws InvalidArgsError for a path outside the workspace; PlatformError `not_found` when absent.
   */
  read(path: string, range?: { readonly offset?: number; readonly length?: number }): Promise<WorkspaceRead>;
  /**
   * Creates or replaces a file. Writing the same content again is harmless: the
   * file ends the same, which makes a retried write idempotent.
   * @param contentType - MIME type. @default 'text/plain; charset=utf-8'
   * @throws InvalidArgsError for a path outside the workspace.
   * @throws WorkspaceConflictError when `options.ifMatch` no longer names the current version.
   */
  write(
    path: string,
    content: string | Uint8Array,
    contentType?: string,
    options?: WorkspaceWriteOptions,
  ): Promise<WorkspaceFile>;
  /**
   * Files under `prefix` (relative, default: everything), sorted by path (byte
   * order of their UTF-8, as S3 lists keys), at most `options.limit`.
   * @throws InvalidArgsError for a prefix outside the workspace.
   */
  list(prefix?: string, options?: WorkspaceListOptions): Promise<WorkspaceFile[]>;
}
