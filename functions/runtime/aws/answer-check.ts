/**
 * Empty is not zero. The AWS SDK turns an HTTP 200 answer with an empty body,
 * an HTML page (a proxy, a captive portal) or a body with no data
 * (`<Response/>`, `{}`) into an output with no list at all, which a tool reads
 * as "0 instances" or "$0.00" (checked with the real clients against a server on
 * 127.0.0.1: test/integration/aws/empty-answers.test.ts). Every AWS client of a
 * tool sends through `CallBoundRequestHandler`, which checks each answer here
 * first: such an answer fails the request with `upstream_error`, the figure unknown.
 */
import type { HttpRequest, HttpResponse } from '@smithy/types';
import { PlatformError } from '../errors';

/** An AWS answer with a success status but no usable data: `upstream_error`, retryable. */
export class UpstreamAnswerError extends PlatformError {
  override readonly name = 'UpstreamAnswerError';

  constructor(message: string, details: Record<string, unknown>) {
    super('upstream_error', message, { retryable: true, details });
  }
}

/** How an AWS API frames its answers, read from the request the SDK built. */
type Protocol = 'query' | 'json' | 'cbor' | 'rest';

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function protocolOf(request: HttpRequest): Protocol {
  const contentType = header(request.headers, 'content-type') ?? '';
  if (header(request.headers, 'smithy-protocol') === 'rpc-v2-cbor') return 'cbor';
  if (contentType.startsWith('application/x-amz-json-')) return 'json';
  if (contentType.startsWith('application/x-www-form-urlencoded') && /(?:^|&)Action=/.test(bodyText(request)))
    return 'query';
  return 'rest';
}

function bodyText(request: HttpRequest): string {
  const body: unknown = request.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return '';
}

/** The service of a SigV4-signed request, from its credential scope (`…/eu-west-1/s3/aws4_request`). */
function serviceOf(request: HttpRequest): string {
  return (
    /\/[a-z0-9-]+\/([a-z0-9-]+)\/aws4_request/.exec(header(request.headers, 'authorization') ?? '')?.[1] ??
    'aws'
  );
}

/**
 * A REST request's subresources, the query parameters that name what is read
 * (`?versioning`, `?policyStatus`; `x-id=ListObjectsV2` where the SDK adds it),
 * as a query string. Other parameters (`prefix`, `continuation-token`) carry
 * the caller's values and are left out of messages.
 */
function subresourcesOf(request: HttpRequest): string {
  const names = Object.entries(request.query ?? {}).flatMap(([name, value]) => {
    if (name === 'x-id' && typeof value === 'string') return [`x-id=${value}`];
    return value === '' || value === null ? [name] : [];
  });
  return names.length === 0 ? '' : `?${names.join('&')}`;
}

/**
 * A bucket's virtual-hosted endpoint ("Virtual hosting of buckets"): the bucket, then
 * an S3 label (`s3`, `s3-fips`, `s3-accelerate`, the legacy `s3-<region>`), or a
 * directory bucket (`…--x-s3`) before `s3express-<zone>`. S3 Control's hosts carry
 * the account id there (`123456789012.s3-control.<region>`), access points and
 * Outposts their own names (`s3-accesspoint`, `s3-object-lambda`, `s3-outposts`,
 * Multi-Region `s3-global`): none is a bucket. Greedy, so a bucket whose name holds
 * `.s3.` (`logs.s3.eu`) is read whole.
 */
const VIRTUAL_HOSTED_BUCKET =
  /^(.+)\.s3(?:express)?(?!-control|-accesspoint|-object-lambda|-outposts|-global)[.-]/;

/**
 * A REST request's path as path-style addressing writes it: S3's virtual-hosted
 * requests (the SDK's default: the bucket is the host's first labels,
 * `bkt.s3.eu-west-1.amazonaws.com`, the path `/`) get their bucket back in front
 * ({@link VIRTUAL_HOSTED_BUCKET}), so a message names the bucket in either style.
 */
function pathOf(request: HttpRequest): string {
  if (!/^s3/.test(serviceOf(request))) return request.path;
  const bucket = VIRTUAL_HOSTED_BUCKET.exec(request.hostname ?? '')?.[1];
  return bucket === undefined ? request.path : `/${bucket}${request.path}`;
}

/**
 * The operation a request calls, for messages: the query `Action`, the JSON
 * target, or the method, path and subresources (`GET /bkt/?versioning`).
 */
function operationOf(request: HttpRequest, protocol: Protocol): string {
  if (protocol === 'query') return /(?:^|&)Action=([A-Za-z0-9]+)/.exec(bodyText(request))?.[1] ?? 'request';
  if (protocol === 'json') return header(request.headers, 'x-amz-target')?.split('.').pop() ?? 'request';
  if (protocol === 'cbor') return request.path.split('/').pop() ?? 'request';
  return `${request.method} ${pathOf(request)}${subresourcesOf(request)}`;
}

/**
 * Whether the answer to `request` is checked: a success status with a body to read
 * (not 204); for REST APIs, reads (GET) only — a REST write may answer 200 with
 * no body — and not an S3 object read, whose body is the object itself (an empty
 * or HTML object is legitimate): `x-id=GetObject`.
 */
export function isCheckedAnswer(request: HttpRequest, response: HttpResponse): boolean {
  if (response.statusCode < 200 || response.statusCode >= 300 || response.statusCode === 204) return false;
  if (protocolOf(request) !== 'rest') return true;
  return request.method === 'GET' && request.query?.['x-id'] !== 'GetObject';
}

/** Root elements of query-protocol answers that carry no data, only metadata. */
const METADATA_ELEMENTS = new Set(['ResponseMetadata', 'requestId', 'RequestId']);

/** XML tags: the name of each start (or empty) tag; end tags, comments and declarations skipped. */
const TAG = /<(\/?)([A-Za-z_][\w:.-]*)[^>]*?(\/?)>|<[?!][^>]*>/g;

/**
 * The root element of a query-protocol answer and whether it has a child other
 * than request metadata. Scans tags only as far as that child, so a page of a
 * thousand instances is not walked in full.
 */
function xmlShape(text: string): { root?: string; hasData: boolean } {
  let depth = 0;
  let root: string | undefined;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(text); match; match = TAG.exec(text)) {
    const [, closing, name, selfClosing] = match;
    if (name === undefined) continue;
    const local = name.includes(':') ? (name.split(':').pop() as string) : name;
    if (closing) {
      depth--;
      continue;
    }
    if (depth === 0) root ??= local;
    else if (depth === 1 && !METADATA_ELEMENTS.has(local)) return { root, hasData: true };
    if (!selfClosing) depth++;
  }
  return { root, hasData: false };
}

const HTML = /^\s*(?:<!doctype\s+html|<html[\s>])/i;

/**
 * Whether `text` is a JSON object: a JSON-protocol answer that an emulator (moto)
 * labels `text/html` is still the API's answer, and no HTML page parses as one.
 * XML answers keep the content type's verdict: an HTML fragment can look like XML.
 */
function isJsonObject(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The root element of each S3 / S3 Control read the tools make (S3 API reference,
 * each operation's "Response Syntax"), by its subresource or operation. REST
 * answers name no operation, so a shape-less `<Response/>` is told from a real
 * answer by its root; an unknown read is not checked for its root.
 */
const S3_ROOTS: Readonly<Record<string, string>> = {
  ListBuckets: 'ListAllMyBucketsResult',
  versioning: 'VersioningConfiguration',
  location: 'LocationConstraint',
  publicAccessBlock: 'PublicAccessBlockConfiguration',
  policyStatus: 'PolicyStatus',
  encryption: 'ServerSideEncryptionConfiguration',
};

/** The root an S3 or S3 Control read must answer with, if the read is one of {@link S3_ROOTS}. */
function expectedS3Root(request: HttpRequest): string | undefined {
  if (/\/configuration\/publicAccessBlock$/.test(request.path)) return S3_ROOTS.publicAccessBlock;
  const query = request.query ?? {};
  const xId = query['x-id'];
  if (typeof xId === 'string' && Object.hasOwn(S3_ROOTS, xId)) return S3_ROOTS[xId];
  const subresource = Object.keys(query).find((key) => Object.hasOwn(S3_ROOTS, key) && key !== 'ListBuckets');
  return subresource === undefined ? undefined : S3_ROOTS[subresource];
}

/**
 * Checks one answer of a tool's AWS client before the SDK reads it.
 *
 * - any protocol: an empty body, or an HTML page (by content, or by content type unless a
 *   JSON protocol's body is a JSON object);
 * - query protocol (EC2, IAM, RDS, STS…): a root element other than
 *   `<{Action}Response>`, or one with nothing but request metadata;
 * - JSON protocols (Cost Explorer, CloudTrail, CloudWatch, Compute Optimizer…): `{}`;
 * - CBOR protocol: an empty map;
 * - S3 and S3 Control reads: a root element other than the operation's
 *   (`<ListAllMyBucketsResult>`, `<VersioningConfiguration>`…).
 *
 * A real empty result always carries its (empty) list: EC2 answers
 * `<reservationSet/>`, Cost Explorer `"ResultsByTime": []`; what is refused here
 * is an answer without any.
 *
 * @throws UpstreamAnswerError (`upstream_error`, retryable) naming the service,
 *   the operation and what was wrong; `details` carries the status, content type
 *   and body size, never the body.
 */
export function checkAnswer(request: HttpRequest, response: HttpResponse, body: Uint8Array): void {
  const protocol = protocolOf(request);
  const contentType = header(response.headers as Record<string, string | undefined>, 'content-type') ?? '';
  const text = protocol === 'cbor' ? '' : Buffer.from(body).toString('utf8');
  const fail = (what: string): never => {
    throw new UpstreamAnswerError(
      `${serviceOf(request)} ${operationOf(request, protocol)} answered HTTP ${response.statusCode} ${what}: ` +
        'the figures are unknown, not zero',
      {
        httpStatusCode: response.statusCode,
        contentType: contentType || null,
        bodyBytes: body.byteLength,
        operation: operationOf(request, protocol),
      },
    );
  };
  if (body.byteLength === 0 || (protocol !== 'cbor' && text.trim() === '')) fail('with an empty body');
  if (HTML.test(text) || (/^text\/html\b/i.test(contentType) && !(protocol === 'json' && isJsonObject(text))))
    fail('with an HTML page instead of its API answer');
  if (protocol === 'json' && /^\{\s*\}$/.test(text.trim())) fail('with no data ({})');
  if (protocol === 'cbor' && (body[0] === 0xa0 || (body[0] === 0xbf && body[1] === 0xff))) {
    fail('with no data (an empty map)');
  }
  if (protocol === 'query') {
    const action = operationOf(request, protocol);
    const { root, hasData } = xmlShape(text);
    if (root !== `${action}Response`) fail(`with <${root ?? '?'}> instead of <${action}Response>`);
    if (!hasData) fail(`with no data (<${root}> holds no result)`);
  }
  const s3Root = protocol === 'rest' && /^s3/.test(serviceOf(request)) ? expectedS3Root(request) : undefined;
  if (s3Root !== undefined) {
    const { root } = xmlShape(text);
    if (root !== s3Root) fail(`with <${root ?? '?'}> instead of <${s3Root}>`);
  }
}
