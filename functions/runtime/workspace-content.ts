/**
 * What the S3 and the local-directory workspace share besides the path rule
 * (functions/runtime/workspace-path.ts): content encoding and digests, slicing
 * text on UTF-8 character boundaries, the errors they throw, and the checks of
 * ranges and metadata made before any I/O.
 */
import { createHash } from 'node:crypto';
import { InvalidArgsError, PlatformError } from './errors';
import type { WorkspaceFile, WorkspaceRead, WorkspaceWriteOptions } from './workspace';

/** The content type of a file written without one. */
export const DEFAULT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** Files a listing returns when no limit is given (one S3 ListObjectsV2 page). */
export const DEFAULT_LIST_LIMIT = 1000;

/** Most bytes of user metadata on one file: 2 KB (Amazon S3 user guide, "Working with object metadata"). */
export const MAX_METADATA_BYTES = 2048;

/** Bytes a UTF-8 character takes at most beyond its first: a range is read this much longer to end on a whole character. */
export const UTF8_LOOKAHEAD_BYTES = 3;

/** `content` as bytes (UTF-8 for text). */
export function contentBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
}

/** Hex SHA-256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What a write reports: the file's path, size (bytes), SHA-256 and the time it was written. */
export function writtenFile(path: string, body: Uint8Array): WorkspaceFile {
  return { path, bytes: body.byteLength, sha256: sha256Hex(body), lastModified: new Date().toISOString() };
}

/**
 * The file changed since it was read: a conditional write (`ifMatch`) found
 * another version in place and wrote nothing. Retryable: read again and redo the change.
 */
export class WorkspaceConflictError extends PlatformError {
  override readonly name = 'WorkspaceConflictError';
  constructor(path: string, options: { cause?: unknown; service?: string } = {}) {
    super('upstream_error', `${path} changed while it was being written; read it again and retry`, {
      retryable: true,
      ...options,
    });
  }
}

/** The `not_found` error of a read of a file the workspace does not hold. */
export function fileNotFound(path: string, cause?: unknown): PlatformError {
  return new PlatformError(
    'not_found',
    `No file ${JSON.stringify(path)} in this run's workspace; list_files shows the files it holds`,
    cause === undefined ? {} : { cause },
  );
}

/** A checked read range: `offset` from 0, `length` absent for "to the end". */
export interface ReadRange {
  readonly offset: number;
  readonly length?: number;
}

/**
 * Checks a read range before any I/O.
 *
 * @throws InvalidArgsError for a negative or fractional offset, or a length below 1.
 */
export function readRange(range: { readonly offset?: number; readonly length?: number } = {}): ReadRange {
  const offset = range.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new InvalidArgsError(`offset must be a whole number of bytes from 0, got ${offset}`);
  }
  if (range.length === undefined) return { offset };
  if (!Number.isSafeInteger(range.length) || range.length < 1) {
    throw new InvalidArgsError(`length must be a whole number of bytes from 1, got ${range.length}`);
  }
  return { offset, length: range.length };
}

/**
 * Checks user metadata before any I/O: keys of lowercase letters, digits and `-`
 * (S3 sends them as `x-amz-meta-<key>` headers and lowercases them), printable
 * ASCII values, at most {@link MAX_METADATA_BYTES} in all.
 *
 * @throws InvalidArgsError naming the offending key.
 */
export function checkMetadata(options: WorkspaceWriteOptions = {}): Record<string, string> {
  const metadata = { ...options.metadata };
  let bytes = 0;
  for (const [key, value] of Object.entries(metadata)) {
    if (!/^[a-z0-9-]{1,64}$/.test(key) || !/^[\x20-\x7e]*$/.test(value)) {
      throw new InvalidArgsError(
        `metadata ${JSON.stringify(key)}: keys are 1-64 lowercase letters, digits or -, values printable ASCII`,
      );
    }
    bytes += key.length + value.length;
  }
  if (bytes > MAX_METADATA_BYTES) {
    throw new InvalidArgsError(`metadata is ${bytes} bytes; at most ${MAX_METADATA_BYTES} are stored`);
  }
  return metadata;
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * The text of bytes `[range.offset, range.offset + range.length)` of a file,
 * moved to whole UTF-8 characters: a start inside a character moves forward to
 * the next one, an end inside a character moves back before it (or forward past
 * it when the slice would otherwise be empty, so a reader always progresses).
 *
 * @param bytes - the file's bytes from `range.offset`, read up to
 *   {@link UTF8_LOOKAHEAD_BYTES} further than the range when the file has them.
 * @param totalBytes - the whole file's size.
 */
export function sliceText(
  path: string,
  bytes: Uint8Array,
  range: ReadRange,
  totalBytes: number,
  extra: Pick<WorkspaceRead, 'etag' | 'metadata'> = {},
): WorkspaceRead {
  const available = bytes.length;
  let start = 0;
  while (start < available && isContinuation(bytes[start]) && range.offset + start > 0) start += 1;
  const wanted = range.length === undefined ? available : Math.min(available, range.length);
  let end = Math.max(start, wanted);
  while (end > start && end < available && isContinuation(bytes[end])) end -= 1;
  if (end === start && start < available) {
    end = start + 1;
    while (end < available && isContinuation(bytes[end])) end += 1;
  }
  const slice = bytes.subarray(start, end);
  return {
    path,
    content: Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).toString('utf8'),
    offset: Math.min(range.offset + start, totalBytes),
    bytes: slice.byteLength,
    totalBytes,
    ...(extra.etag === undefined ? {} : { etag: extra.etag }),
    ...(extra.metadata === undefined ? {} : { metadata: extra.metadata }),
  };
}
