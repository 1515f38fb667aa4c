/**
 * A local S3 REST server on 127.0.0.1 speaking the subset the snapshot tools
 * use, path-style (`/<bucket>/<key>`), with the XML shapes of the S3 API
 * reference: ListBuckets, ListObjectsV2 (prefix, delimiter, continuation
 * token), GetObject (with `Range`), PutObject (with `If-None-Match: *`),
 * GetBucketInventoryConfiguration, ListBucketInventoryConfigurations and
 * GetBucketPolicyStatus; errors as S3's `<Error>` documents.
 *
 * Why not s3rver: its last release (3.7.1, 2024) has no inventory configuration
 * API at all, pulls koa 2 with busboy 0.3 and fast-xml-parser 3 (both with
 * published advisories), and would still need this server's inventory part.
 * These few operations on Node's http module stay small and exact.
 *
 * Every request is recorded (`requests`), so tests can prove what the tools
 * read; `deny()` makes a bucket or key prefix answer 403 AccessDenied.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An inventory configuration as the server returns it (S3 API reference, "InventoryConfiguration"). */
export interface InventoryConfigurationXml {
  readonly id: string;
  readonly enabled?: boolean;
  readonly destinationBucket: string;
  readonly destinationPrefix?: string;
  readonly destinationAccountId?: string;
  readonly format: 'CSV' | 'ORC' | 'Parquet';
  readonly frequency?: 'Daily' | 'Weekly';
  readonly includedObjectVersions?: 'All' | 'Current';
  readonly optionalFields?: readonly string[];
  readonly encryption?: 'SSE-S3' | 'SSE-KMS';
}

/** A stored object: bytes in memory, or a file streamed from disk (the bench's large reports). */
type StoredObject =
  | { readonly body: Buffer; readonly lastModified: Date }
  | { readonly file: string; readonly lastModified: Date };

interface Bucket {
  readonly region: string;
  readonly objects: Map<string, StoredObject>;
  readonly inventories: Map<string, InventoryConfigurationXml>;
  isPublic: boolean;
}

/** A request as the server saw it. */
export interface S3Request {
  readonly method: string;
  readonly bucket: string | null;
  readonly key: string | null;
  /** Query parameter names and values. */
  readonly query: Readonly<Record<string, string>>;
  readonly operation: string;
}

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function xmlResponse(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  response.writeHead(status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(text),
    'x-amz-request-id': 'LOCAL0000000000000',
    ...headers,
  });
  response.end(text);
}

function s3Error(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  resource = '',
): void {
  xmlResponse(
    response,
    status,
    `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource><RequestId>LOCAL0000000000000</RequestId></Error>`,
  );
}

function inventoryXml(c: InventoryConfigurationXml): string {
  const encryption =
    c.encryption === 'SSE-KMS'
      ? '<Encryption><SSE-KMS><KeyId>arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab</KeyId></SSE-KMS></Encryption>'
      : c.encryption === 'SSE-S3'
        ? '<Encryption><SSE-S3/></Encryption>'
        : '';
  return (
    `<InventoryConfiguration><Id>${escapeXml(c.id)}</Id><IsEnabled>${c.enabled ?? true}</IsEnabled>` +
    `<Destination><S3BucketDestination><Format>${c.format}</Format>` +
    (c.destinationAccountId ? `<AccountId>${c.destinationAccountId}</AccountId>` : '') +
    `<Bucket>arn:aws:s3:::${c.destinationBucket}</Bucket>` +
    (c.destinationPrefix ? `<Prefix>${escapeXml(c.destinationPrefix)}</Prefix>` : '') +
    `${encryption}</S3BucketDestination></Destination>` +
    `<Schedule><Frequency>${c.frequency ?? 'Daily'}</Frequency></Schedule>` +
    `<IncludedObjectVersions>${c.includedObjectVersions ?? 'Current'}</IncludedObjectVersions>` +
    `<OptionalFields>${(c.optionalFields ?? ['Size', 'LastModifiedDate', 'ETag']).map((f) => `<Field>${f}</Field>`).join('')}</OptionalFields>` +
    `</InventoryConfiguration>`
  );
}

/** The local server and its state. */
export class LocalS3Server {
  readonly requests: S3Request[] = [];
  private readonly buckets = new Map<string, Bucket>();
  private readonly denied: { bucket: string; keyPrefix?: string; operation?: string }[] = [];
  private server?: Server;
  private base = '';
  /** Inventory configurations per ListBucketInventoryConfigurations page (S3 returns up to 100). */
  inventoryPageSize = 100;

  /** `http://127.0.0.1:<port>` once started. */
  get url(): string {
    if (!this.server) throw new Error('LocalS3Server is not started');
    return this.base;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          s3Error(res, 500, 'InternalError', err instanceof Error ? err.message : String(err));
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
  }

  /** Creates a bucket (idempotent). */
  createBucket(name: string, region = 'us-east-1'): void {
    if (!this.buckets.has(name)) {
      this.buckets.set(name, { region, objects: new Map(), inventories: new Map(), isPublic: false });
    }
  }

  /** Stores an object (bytes, or a file on disk streamed on read). */
  putObject(
    bucket: string,
    key: string,
    body: Buffer | { readonly file: string },
    lastModified = new Date(),
  ): void {
    this.bucketOf(bucket).objects.set(
      key,
      Buffer.isBuffer(body) ? { body, lastModified } : { file: body.file, lastModified },
    );
  }

  deleteObject(bucket: string, key: string): void {
    this.bucketOf(bucket).objects.delete(key);
  }

  /** An object's bytes (in-memory objects only). */
  objectBytes(bucket: string, key: string): Buffer | undefined {
    const object = this.buckets.get(bucket)?.objects.get(key);
    return object && 'body' in object ? object.body : undefined;
  }

  keys(bucket: string): string[] {
    return [...this.bucketOf(bucket).objects.keys()].sort();
  }

  putInventoryConfiguration(sourceBucket: string, configuration: InventoryConfigurationXml): void {
    this.bucketOf(sourceBucket).inventories.set(configuration.id, configuration);
  }

  setPublic(bucket: string, isPublic: boolean): void {
    this.bucketOf(bucket).isPublic = isPublic;
  }

  /** Answers 403 AccessDenied for the bucket (or keys under a prefix, or one operation). */
  deny(rule: { bucket: string; keyPrefix?: string; operation?: string }): void {
    this.denied.push(rule);
  }

  clearDenials(): void {
    this.denied.length = 0;
  }

  /** Forgets the requests recorded so far. */
  clearRequests(): void {
    this.requests.length = 0;
  }

  private bucketOf(name: string): Bucket {
    const bucket = this.buckets.get(name);
    if (!bucket) throw new Error(`No local bucket ${name}`);
    return bucket;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const segments = url.pathname.split('/').slice(1);
    const bucketName = segments[0] ? decodeURIComponent(segments[0]) : null;
    const key = segments.length > 1 ? segments.slice(1).map(decodeURIComponent).join('/') : null;
    const query = Object.fromEntries(url.searchParams.entries());
    const method = req.method ?? 'GET';
    const operation = operationOf(method, bucketName, key, query);
    this.requests.push({ method, bucket: bucketName, key, query, operation });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);

    if (operation === 'ListBuckets') return this.listBuckets(res);
    const bucket = bucketName ? this.buckets.get(bucketName) : undefined;
    if (!bucketName || !bucket) {
      s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist', `/${bucketName}`);
      return;
    }
    const denied = this.denied.some(
      (d) =>
        d.bucket === bucketName &&
        (d.keyPrefix === undefined || (key ?? '').startsWith(d.keyPrefix)) &&
        (d.operation === undefined || d.operation === operation),
    );
    if (denied) {
      s3Error(res, 403, 'AccessDenied', 'Access Denied', `/${bucketName}/${key ?? ''}`);
      return;
    }
    switch (operation) {
      case 'GetBucketInventoryConfiguration':
        return this.getInventory(res, bucket, query.id ?? '');
      case 'ListBucketInventoryConfigurations':
        return this.listInventories(res, bucket, query['continuation-token']);
      case 'GetBucketPolicyStatus':
        return xmlResponse(
          res,
          200,
          `<PolicyStatus xmlns="${XMLNS}"><IsPublic>${bucket.isPublic}</IsPublic></PolicyStatus>`,
        );
      case 'ListObjectsV2':
        return this.listObjects(res, bucketName, bucket, query);
      case 'GetObject':
        return this.getObject(req, res, bucket, key as string);
      case 'PutObject':
        return this.putObjectRequest(req, res, bucket, key as string, body);
      default:
        return s3Error(res, 501, 'NotImplemented', `${operation} is not implemented by the local S3 server`);
    }
  }

  private listBuckets(res: ServerResponse): void {
    const buckets = [...this.buckets.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([name, b]) =>
          `<Bucket><Name>${name}</Name><CreationDate>2024-01-01T00:00:00.000Z</CreationDate><BucketRegion>${b.region}</BucketRegion></Bucket>`,
      )
      .join('');
    xmlResponse(
      res,
      200,
      `<ListAllMyBucketsResult xmlns="${XMLNS}"><Owner><ID>local</ID></Owner><Buckets>${buckets}</Buckets></ListAllMyBucketsResult>`,
    );
  }

  private getInventory(res: ServerResponse, bucket: Bucket, id: string): void {
    const configuration = bucket.inventories.get(id);
    if (!configuration) {
      s3Error(res, 404, 'NoSuchConfiguration', 'The specified configuration does not exist.');
      return;
    }
    xmlResponse(
      res,
      200,
      inventoryXml(configuration).replace(
        '<InventoryConfiguration>',
        `<InventoryConfiguration xmlns="${XMLNS}">`,
      ),
    );
  }

  private listInventories(res: ServerResponse, bucket: Bucket, token: string | undefined): void {
    const all = [...bucket.inventories.values()].sort((a, b) => a.id.localeCompare(b.id));
    const start = token ? Number(token) : 0;
    const page = all.slice(start, start + this.inventoryPageSize);
    const next = start + page.length < all.length ? String(start + page.length) : undefined;
    xmlResponse(
      res,
      200,
      `<ListInventoryConfigurationsResult xmlns="${XMLNS}">${page.map((c) => inventoryXml(c)).join('')}` +
        `<IsTruncated>${next !== undefined}</IsTruncated>` +
        (token ? `<ContinuationToken>${token}</ContinuationToken>` : '') +
        (next ? `<NextContinuationToken>${next}</NextContinuationToken>` : '') +
        '</ListInventoryConfigurationsResult>',
    );
  }

  private listObjects(
    res: ServerResponse,
    name: string,
    bucket: Bucket,
    query: Record<string, string>,
  ): void {
    const prefix = query.prefix ?? '';
    const delimiter = query.delimiter ?? '';
    const maxKeys = Math.min(1000, Number(query['max-keys'] ?? 1000));
    const after = query['continuation-token'] ?? query['start-after'] ?? '';
    const contents: string[] = [];
    const prefixes: string[] = [];
    let last = '';
    let truncated = false;
    for (const key of [...bucket.objects.keys()].sort()) {
      if (!key.startsWith(prefix) || key <= after) continue;
      const rest = key.slice(prefix.length);
      const cut = delimiter ? rest.indexOf(delimiter) : -1;
      const entry = cut === -1 ? key : prefix + rest.slice(0, cut + delimiter.length);
      if (cut !== -1 && prefixes.at(-1) === entry) continue;
      if (contents.length + prefixes.length >= maxKeys) {
        truncated = true;
        break;
      }
      if (cut === -1) contents.push(key);
      else prefixes.push(entry);
      // Continue after the whole common prefix, as S3 does.
      last = cut === -1 ? key : `${entry}\uffff`;
    }
    const items = contents
      .map((key) => {
        const size = this.sizeOf(bucket.objects.get(key) as StoredObject);
        return `<Contents><Key>${escapeXml(key)}</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>"x"</ETag><Size>${size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    xmlResponse(
      res,
      200,
      `<ListBucketResult xmlns="${XMLNS}"><Name>${name}</Name><Prefix>${escapeXml(prefix)}</Prefix>` +
        (delimiter ? `<Delimiter>${escapeXml(delimiter)}</Delimiter>` : '') +
        `<MaxKeys>${maxKeys}</MaxKeys><KeyCount>${contents.length + prefixes.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>` +
        items +
        prefixes.map((p) => `<CommonPrefixes><Prefix>${escapeXml(p)}</Prefix></CommonPrefixes>`).join('') +
        (truncated ? `<NextContinuationToken>${escapeXml(last)}</NextContinuationToken>` : '') +
        '</ListBucketResult>',
    );
  }

  private sizeOf(object: StoredObject): number {
    return 'body' in object ? object.body.length : statSync(object.file).size;
  }

  private getObject(req: IncomingMessage, res: ServerResponse, bucket: Bucket, key: string): void {
    const object = bucket.objects.get(key);
    if (!object) {
      s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.', key);
      return;
    }
    const size = this.sizeOf(object);
    const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start > end && size > 0) {
      s3Error(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
      return;
    }
    const headers: Record<string, string | number> = {
      'content-type': 'application/octet-stream',
      'content-length': Math.max(0, end - start + 1),
      'last-modified': object.lastModified.toUTCString(),
      etag: '"local"',
      'accept-ranges': 'bytes',
    };
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    res.writeHead(range ? 206 : 200, headers);
    if ('body' in object) res.end(object.body.subarray(start, end + 1));
    else if (size === 0) res.end();
    else createReadStream(object.file, { start, end }).pipe(res);
  }

  private putObjectRequest(
    req: IncomingMessage,
    res: ServerResponse,
    bucket: Bucket,
    key: string,
    body: Buffer,
  ): void {
    if (req.headers['if-none-match'] === '*' && bucket.objects.has(key)) {
      s3Error(
        res,
        412,
        'PreconditionFailed',
        'At least one of the pre-conditions you specified did not hold',
        key,
      );
      return;
    }
    const decoded = String(req.headers['content-encoding'] ?? '').includes('aws-chunked')
      ? decodeAwsChunked(body)
      : body;
    bucket.objects.set(key, { body: decoded, lastModified: new Date() });
    res.writeHead(200, { etag: `"${createHash('md5').update(decoded).digest('hex')}"`, 'content-length': 0 });
    res.end();
  }
}

/** Decodes an `aws-chunked` body (SigV4 streaming with a trailing checksum): `<hex size>[;…]\r\n<data>\r\n` … `0\r\n<trailers>`. */
function decodeAwsChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let position = 0;
  while (position < body.length) {
    const lineEnd = body.indexOf('\r\n', position);
    if (lineEnd === -1) break;
    const size = Number.parseInt(
      body.subarray(position, lineEnd).toString('latin1').split(';')[0] ?? '0',
      16,
    );
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    position = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The S3 operation a request is, from its method, path and query (S3 API reference, each operation's "Request Syntax"). */
function operationOf(
  method: string,
  bucket: string | null,
  key: string | null,
  query: Record<string, string>,
): string {
  if (!bucket) return method === 'GET' ? 'ListBuckets' : 'Unknown';
  if (key === null || key === '') {
    if ('inventory' in query)
      return query.id !== undefined ? 'GetBucketInventoryConfiguration' : 'ListBucketInventoryConfigurations';
    if ('policyStatus' in query) return 'GetBucketPolicyStatus';
    if (method === 'GET' && query['list-type'] === '2') return 'ListObjectsV2';
    return `${method}Bucket`;
  }
  if (method === 'GET') return 'GetObject';
  if (method === 'PUT') return 'PutObject';
  return `${method}Object`;
}
