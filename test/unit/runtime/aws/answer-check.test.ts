import type { HttpRequest, HttpResponse } from '@smithy/types';
import { checkAnswer, isCheckedAnswer } from '../../../../functions/runtime/aws/answer-check';

/** A request as the SDK builds it, signed for `service`. */
function request(options: {
  service: string;
  method?: string;
  path?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}): HttpRequest {
  return {
    protocol: 'https:',
    method: options.method ?? 'POST',
    hostname: 'example.amazonaws.com',
    path: options.path ?? '/',
    query: options.query ?? {},
    headers: {
      authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240501/eu-west-1/${options.service}/aws4_request, SignedHeaders=host, Signature=0`,
      ...options.headers,
    },
    body: options.body,
  };
}

function response(status: number, contentType: string): HttpResponse {
  return { statusCode: status, headers: { 'content-type': contentType } };
}

const check = (req: HttpRequest, res: HttpResponse, body: string | Uint8Array) => () =>
  checkAnswer(req, res, typeof body === 'string' ? Buffer.from(body) : body);

const s3Get = (path: string, query: Record<string, string>) =>
  request({ service: 's3', method: 'GET', path, query });

describe('isCheckedAnswer()', () => {
  it.each([
    [
      'a 204',
      request({
        service: 'ec2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'Action=X',
      }),
      204,
      false,
    ],
    ['a 404', s3Get('/b/', { versioning: '' }), 404, false],
    ['an S3 object read (the body is the object)', s3Get('/b/k', { 'x-id': 'GetObject' }), 200, false],
    ['a REST write (PUT)', request({ service: 's3', method: 'PUT', path: '/b/k' }), 200, false],
    ['an S3 bucket read', s3Get('/b/', { versioning: '' }), 200, true],
    [
      'a JSON-protocol answer',
      request({ service: 'ce', headers: { 'content-type': 'application/x-amz-json-1.1' } }),
      200,
      true,
    ],
  ])('%s', (_kind, req, status, checked) => {
    expect(isCheckedAnswer(req, response(status, 'application/xml'))).toBe(checked);
  });
});

describe('checkAnswer()', () => {
  const s3Control = request({
    service: 's3',
    method: 'GET',
    path: '/v20180820/configuration/publicAccessBlock',
  });

  it.each([
    [
      'S3 GetBucketVersioning never set (empty root, as S3 documents)',
      s3Get('/b/', { versioning: '' }),
      '<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>',
    ],
    [
      'S3 GetBucketLocation in us-east-1 (empty root)',
      s3Get('/b/', { location: '' }),
      '<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>',
    ],
    [
      'S3 Control GetPublicAccessBlock',
      s3Control,
      '<?xml version="1.0" encoding="UTF-8"?><PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlockConfiguration>',
    ],
  ])('accepts %s', (_kind, req, body) => {
    expect(check(req, response(200, 'application/xml'), body)).not.toThrow();
  });

  it.each([
    [
      'S3 GetBucketVersioning',
      s3Get('/b/', { versioning: '' }),
      '<Response/>',
      /<Response> instead of <VersioningConfiguration>/,
    ],
    [
      'S3 Control GetPublicAccessBlock',
      s3Control,
      '<Response/>',
      /instead of <PublicAccessBlockConfiguration>/,
    ],
    ['S3 ListBuckets', s3Get('/', { 'x-id': 'ListBuckets' }), '', /with an empty body/],
  ])('refuses %s answering without its data', (_kind, req, body, message) => {
    expect(check(req, response(200, 'application/xml'), body)).toThrow(message);
  });

  describe('an answer labelled text/html', () => {
    const organizations = request({
      service: 'organizations',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSOrganizationsV20161128.DescribeOrganization',
      },
    });
    const ec2 = request({
      service: 'ec2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=DescribeInstances&Version=2016-11-15',
    });

    it('accepts a JSON-protocol answer whose body is a JSON object (moto labels its answers so)', () => {
      expect(
        check(
          organizations,
          response(200, 'text/html; charset=utf-8'),
          '{"Organization":{"Id":"o-a1b2c3d4e5"}}',
        ),
      ).not.toThrow();
    });

    it.each([
      ['a JSON-protocol answer that is a page', organizations, '<body>Sign in to the Wi-Fi</body>'],
      ['a JSON-protocol answer that does not parse', organizations, '{"Organization":'],
      [
        'a query-protocol answer, XML-looking',
        ec2,
        '<DescribeInstancesResponse><x/></DescribeInstancesResponse>',
      ],
    ])('refuses %s', (_kind, req, body) => {
      expect(check(req, response(200, 'text/html'), body)).toThrow(
        /with an HTML page instead of its API answer/,
      );
    });
  });

  it('refuses an empty CBOR map and accepts one with members (rpc-v2-cbor)', () => {
    // Prepare
    const req = request({
      service: 'monitoring',
      headers: { 'smithy-protocol': 'rpc-v2-cbor' },
      path: '/service/GraniteServiceVersion20100801/operation/GetMetricData',
    });

    // Act / Assess
    expect(check(req, response(200, 'application/cbor'), Uint8Array.of(0xa0))).toThrow(
      /with no data \(an empty map\)/,
    );
    expect(
      check(req, response(200, 'application/cbor'), Uint8Array.of(0xa1, 0x61, 0x61, 0x01)),
    ).not.toThrow();
  });

  it('reports upstream_error, retryable, naming service and operation but never the body', () => {
    // Prepare
    const req = request({
      service: 'ec2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=DescribeInstances&Version=2016-11-15',
    });

    // Act
    let error: unknown;
    try {
      checkAnswer(req, response(200, 'text/html'), Buffer.from('<html>secret-looking body</html>'));
    } catch (err) {
      error = err;
    }

    // Assess
    expect(error).toMatchObject({
      code: 'upstream_error',
      retryable: true,
      message:
        'ec2 DescribeInstances answered HTTP 200 with an HTML page instead of its API answer: the figures are unknown, not zero',
      details: {
        httpStatusCode: 200,
        contentType: 'text/html',
        bodyBytes: 32,
        operation: 'DescribeInstances',
      },
    });
    expect(JSON.stringify(error)).not.toContain('secret-looking');
  });

  it.each([
    ['GetBucketVersioning', s3Get('/bkt/', { versioning: '' }), 'GET /bkt/?versioning'],
    ['GetBucketPolicyStatus', s3Get('/bkt/', { policyStatus: '' }), 'GET /bkt/?policyStatus'],
    [
      "ListObjectsV2 with a prefix (the value is the caller's, left out)",
      s3Get('/bkt/', { 'list-type': '2', prefix: 'private/', 'x-id': 'ListObjectsV2' }),
      'GET /bkt/?x-id=ListObjectsV2',
    ],
    ['ListBuckets (no query)', s3Get('/', {}), 'GET /'],
    [
      'GetBucketVersioning, virtual-hosted (the bucket in the host)',
      { ...s3Get('/', { versioning: '' }), hostname: 'my.bkt.s3.eu-west-1.amazonaws.com' },
      'GET /my.bkt/?versioning',
    ],
    [
      'ListObjectsV2, virtual-hosted, dual-stack',
      {
        ...s3Get('/', { 'list-type': '2', 'x-id': 'ListObjectsV2' }),
        hostname: 'bkt.s3.dualstack.eu-west-1.amazonaws.com',
      },
      'GET /bkt/?x-id=ListObjectsV2',
    ],
    [
      'GetBucketVersioning, virtual-hosted, FIPS',
      { ...s3Get('/', { versioning: '' }), hostname: 'bkt.s3-fips.us-east-1.amazonaws.com' },
      'GET /bkt/?versioning',
    ],
    [
      "S3 Control's GetPublicAccessBlock (the account id in the host is no bucket)",
      { ...s3Control, hostname: '123456789012.s3-control.eu-west-1.amazonaws.com' },
      'GET /v20180820/configuration/publicAccessBlock',
    ],
    [
      "S3 Control's GetPublicAccessBlock, FIPS",
      { ...s3Control, hostname: '123456789012.s3-control-fips.us-east-1.amazonaws.com' },
      'GET /v20180820/configuration/publicAccessBlock',
    ],
    [
      'ListBuckets, at the regional endpoint',
      { ...s3Get('/', {}), hostname: 's3.eu-west-1.amazonaws.com' },
      'GET /',
    ],
  ])('names an S3 read by its subresource: %s', (_kind, req, operation) => {
    // Act
    let error: unknown;
    try {
      checkAnswer(req, response(200, 'application/xml'), Buffer.from(''));
    } catch (err) {
      error = err;
    }

    // Assess
    expect(error).toMatchObject({
      message: `s3 ${operation} answered HTTP 200 with an empty body: the figures are unknown, not zero`,
      details: { operation },
    });
  });

  it('names the directory bucket of an S3 Express read (bkt--zone--x-s3.s3express-<zone>)', () => {
    // Prepare
    const req = {
      ...request({
        service: 's3express',
        method: 'GET',
        path: '/',
        query: { 'list-type': '2', 'x-id': 'ListObjectsV2' },
      }),
      hostname: 'bkt--usw2-az1--x-s3.s3express-usw2-az1.us-west-2.amazonaws.com',
    };

    // Act, Assess
    expect(check(req, response(200, 'application/xml'), '')).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({ operation: 'GET /bkt--usw2-az1--x-s3/?x-id=ListObjectsV2' }),
      }),
    );
  });
});
