/**
 * The run workspace contract (DESIGN.md, "Workspace, file tools and claim-check"):
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
}

/**
 * A claim-check reference (DESIGN.md): the full value of a result too large for
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
   * Creates or replaces a file.
   * @throws InvalidArgsError for a path outside the workspace.
   */
  write(path: string, content: string | Uint8Array, contentType?: string): Promise<WorkspaceFile>;
  /** Files under `prefix` (relative, default: everything), sorted by path. */
  list(prefix?: string): Promise<WorkspaceFile[]>;
}
