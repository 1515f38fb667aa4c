import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { AWS_MAX_ATTEMPTS } from './aws/client-config';
import { awsRequestHandler } from './aws/http-timeouts';
import type { TenantCredentials } from './run-data-sessions';
import type {
  Workspace,
  WorkspaceFile,
  WorkspaceListOptions,
  WorkspaceProvider,
  WorkspaceRead,
  WorkspaceScope,
  WorkspaceWriteOptions,
} from './workspace';
import {
  checkMetadata,
  contentBytes,
  DEFAULT_CONTENT_TYPE,
  DEFAULT_LIST_LIMIT,
  fileNotFound,
  readRange,
  sliceText,
  UTF8_LOOKAHEAD_BYTES,
  WorkspaceConflictError,
  writtenFile,
} from './workspace-content';
import { workspaceKey, workspacePath, workspacePrefix, workspaceRoot } from './workspace-path';

type S3Sdk = typeof import('@aws-sdk/client-s3');
let sdk: S3Sdk | undefined;

/**
 * The S3 SDK, loaded on first use: the dispatcher bundles it, but a call that
 * neither runs a file tool nor claim-checks a result never evaluates it, which
 * keeps it out of the dispatcher's cold start.
 */
function s3Sdk(): S3Sdk {
  // require, not import(): a CommonJS bundle (and Jest's CommonJS runtime) evaluates it lazily.
  sdk ??= require('@aws-sdk/client-s3') as S3Sdk;
  return sdk;
}

/** Options of an {@link S3Workspace}. */
export interface S3WorkspaceOptions {
  /** The platform's bucket (`RUN_BUCKET`). */
  readonly bucket: string;
  /** Whose workspace: its root is `workspaceRoot(scope)`. */
  readonly scope: WorkspaceScope;
  /** Aborts every request: the call's deadline. @default - none */
  readonly signal?: AbortSignal;
  /**
   * Client settings merged over the platform's (tests: `endpoint`,
   * `forcePathStyle`, `credentials`). @default - the platform's only
   */
  readonly clientConfig?: S3ClientConfig;
}

/** HTTP statuses and error names S3 answers a conditional write that lost with (S3 API reference, "PutObject"). */
const CONFLICT_NAMES = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);

function errorName(err: unknown): string | undefined {
  return (err as { name?: unknown } | null)?.name as string | undefined;
}

/**
 * A run's workspace in the platform's S3 bucket, under
 * `runs/<tenant>/<scenario>/<runId>/` (or `scratch/<tenant>/<runId>/`).
 *
 * Every path is checked by the one path rule (functions/runtime/workspace-path.ts)
 * before a request is sent. The S3 client is created for this workspace alone —
 * a workspace serves one call — with the platform's retry policy and HTTP
 * timeouts (`AWS_MAX_ATTEMPTS`, `awsRequestHandler()`), and every request carries
 * the call's `signal`. Deployed, the credentials are the scope's tenant's session
 * of the run-data role (`clientConfig.credentials`, {@link s3WorkspaceProvider}),
 * which IAM limits to `runs/<tenant>/*` and `scratch/<tenant>/*`.
 *
 * @example
 * const workspace = new S3Workspace({ bucket: 'etp-runs', scope: { tenant: 'acme', scenario: 'aws_pulse', runId: 'r1' } });
 * await workspace.write('notes/todo.md', '- check NAT gateways');
 */
export class S3Workspace implements Workspace {
  readonly uri: string;
  readonly #bucket: string;
  readonly #root: string;
  readonly #signal: AbortSignal | undefined;
  readonly #clientConfig: S3ClientConfig | undefined;
  #client: S3Client | undefined;

  /** @throws InvalidArgsError when the scope's identifiers break their rules. */
  constructor(options: S3WorkspaceOptions) {
    this.#bucket = options.bucket;
    this.#root = workspaceRoot(options.scope);
    this.#signal = options.signal;
    this.#clientConfig = options.clientConfig;
    this.uri = `s3://${options.bucket}/${this.#root}`;
  }

  #s3(): S3Client {
    this.#client ??= new (s3Sdk().S3Client)({
      maxAttempts: AWS_MAX_ATTEMPTS,
      retryMode: 'standard',
      requestHandler: awsRequestHandler(),
      ...this.#clientConfig,
    });
    return this.#client;
  }

  /** Per-request options: the call's deadline aborts every request. */
  get #requestOptions(): { abortSignal?: AbortSignal } {
    return this.#signal ? { abortSignal: this.#signal } : {};
  }

  async read(
    path: string,
    range?: { readonly offset?: number; readonly length?: number },
  ): Promise<WorkspaceRead> {
    const relative = workspacePath(path);
    const key = workspaceKey(this.#root, relative);
    const wanted = readRange(range);
    const { GetObjectCommand, HeadObjectCommand } = s3Sdk();
    const last = wanted.length === undefined ? '' : wanted.offset + wanted.length + UTF8_LOOKAHEAD_BYTES - 1;
    const ranged = wanted.offset > 0 || wanted.length !== undefined;
    try {
      const response = await this.#s3().send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(ranged ? { Range: `bytes=${wanted.offset}-${last}` } : {}),
        }),
        this.#requestOptions,
      );
      const bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array();
      const total = Number(/\/(\d+)$/.exec(response.ContentRange ?? '')?.[1] ?? bytes.length);
      return sliceText(relative, bytes, wanted, total, {
        etag: response.ETag,
        metadata: response.Metadata ?? {},
      });
    } catch (err) {
      if (errorName(err) === 'NoSuchKey') throw fileNotFound(relative, err);
      if (errorName(err) === 'AccessDenied' && !(await this.#exists(key))) throw fileNotFound(relative, err);
      // A range starting at or past the end (S3 answers 416): an empty slice at the end.
      if (errorName(err) !== 'InvalidRange') throw err;
      const head = await this.#s3()
        .send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }), this.#requestOptions)
        .catch((headErr: unknown) => {
          throw errorName(headErr) === 'NotFound' ? fileNotFound(relative, headErr) : headErr;
        });
      const total = head.ContentLength ?? 0;
      return sliceText(relative, new Uint8Array(), { offset: Math.min(wanted.offset, total) }, total, {
        etag: head.ETag,
        metadata: head.Metadata ?? {},
      });
    }
  }

  /**
   * Whether the object exists, by listing its key. S3 answers a GetObject of a
   * missing key with 403 AccessDenied, not 404, unless the caller may list the
   * bucket without condition (Amazon S3 API reference, "GetObject", Permissions);
   * the dispatcher may list `runs/` and `scratch/` only (an `s3:prefix` condition),
   * so a 403 is checked this way before it is reported as `access_denied`.
   */
  async #exists(key: string): Promise<boolean> {
    const { ListObjectsV2Command } = s3Sdk();
    const page = await this.#s3().send(
      new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: key, MaxKeys: 1 }),
      this.#requestOptions,
    );
    return page.Contents?.[0]?.Key === key;
  }

  async write(
    path: string,
    content: string | Uint8Array,
    contentType: string = DEFAULT_CONTENT_TYPE,
    options: WorkspaceWriteOptions = {},
  ): Promise<WorkspaceFile> {
    const relative = workspacePath(path);
    const key = workspaceKey(this.#root, relative);
    const metadata = checkMetadata(options);
    const body = contentBytes(content);
    const { PutObjectCommand } = s3Sdk();
    try {
      await this.#s3().send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          Metadata: metadata,
          ...(options.ifMatch === undefined ? {} : { IfMatch: options.ifMatch }),
        }),
        this.#requestOptions,
      );
    } catch (err) {
      if (CONFLICT_NAMES.has(errorName(err) ?? '')) {
        throw new WorkspaceConflictError(relative, { cause: err, service: 's3' });
      }
      throw err;
    }
    return writtenFile(relative, body);
  }

  async list(prefix?: string, options: WorkspaceListOptions = {}): Promise<WorkspaceFile[]> {
    const relative = workspacePrefix(prefix);
    const keyPrefix = workspaceKey(this.#root, relative);
    const limit = Math.max(0, options.limit ?? DEFAULT_LIST_LIMIT);
    const { ListObjectsV2Command } = s3Sdk();
    const files: WorkspaceFile[] = [];
    let token: string | undefined;
    while (files.length < limit) {
      const page = await this.#s3().send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: keyPrefix,
          MaxKeys: Math.min(DEFAULT_LIST_LIMIT, limit - files.length),
          ...(token ? { ContinuationToken: token } : {}),
        }),
        this.#requestOptions,
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key?.startsWith(this.#root)) continue;
        files.push({
          path: object.Key.slice(this.#root.length),
          bytes: object.Size ?? 0,
          ...(object.LastModified ? { lastModified: object.LastModified.toISOString() } : {}),
        });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (!token) break;
    }
    return files.slice(0, limit);
  }
}

/**
 * Opens S3 workspaces in `bucket`: one {@link S3Workspace} (and one client) per
 * call, so nothing of one call — tenant, run, deadline — is kept for the next.
 * Given `tenantCredentials` (the run-data sessions, run-data-sessions.ts), each
 * workspace's client signs with its scope's tenant's session, so IAM refuses any
 * key outside that tenant's `runs/<tenant>/` and `scratch/<tenant>/`.
 *
 * @example
 * const workspaces = s3WorkspaceProvider(process.env.RUN_BUCKET);
 * const workspace = workspaces({ tenant: 'acme', runId: 'r1' }, deadline.signal); // scratch/acme/r1/
 */
export function s3WorkspaceProvider(
  bucket: string,
  clientConfig?: S3ClientConfig,
  tenantCredentials?: TenantCredentials,
): WorkspaceProvider {
  return (scope, signal) =>
    new S3Workspace({
      bucket,
      scope,
      signal,
      clientConfig: tenantCredentials
        ? { ...clientConfig, credentials: tenantCredentials(scope.tenant) }
        : clientConfig,
    });
}
