import { clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import { cloudtrailCoverageTool } from '../../../functions/tools/aws/cloudtrail-coverage';
import { computeOptimizerRecsTool } from '../../../functions/tools/aws/compute-optimizer-recs';
import { costBreakdownTool } from '../../../functions/tools/aws/cost-breakdown';
import { ec2InventoryTool } from '../../../functions/tools/aws/ec2-inventory';
import { eipsAuditTool } from '../../../functions/tools/aws/eips-audit';
import { rdsInventoryTool } from '../../../functions/tools/aws/rds-inventory';
import { s3InventoryTool } from '../../../functions/tools/aws/s3-inventory';
import { runAwsTool } from '../../helpers/aws-tool';
import { type ListeningServer, listenOnLoopback, type ReceivedRequest } from '../../helpers/loopback-server';

/**
 * Empty is not zero, through the real AWS SDK clients and the real tools: an AWS
 * API on 127.0.0.1 answers HTTP 200 with an empty body, an HTML page or a body
 * with no data, and the tool must report `upstream_error` — never `ok: true`
 * with 0 instances or $0.00. A control answer per tool, shaped as the API
 * reference documents an empty result, still reads as a real zero.
 */

/** How the server answers the operation under test: status 200, this content type and body. */
interface Answer {
  readonly contentType: string;
  readonly body: string;
}

const XML = 'text/xml;charset=UTF-8';
const JSON_11 = 'application/x-amz-json-1.1';
const JSON_10 = 'application/x-amz-json-1.0';

/** The service (credential scope) and operation of a signed request. */
function operationOf(request: ReceivedRequest): { service: string; operation: string } {
  const auth = String(request.headers.authorization ?? '');
  const service = /\/[a-z0-9-]+\/([a-z0-9-]+)\/aws4_request/.exec(auth)?.[1] ?? '?';
  const target = request.headers['x-amz-target'];
  if (typeof target === 'string') return { service, operation: target.split('.').pop() as string };
  const action = /(?:^|&)Action=([A-Za-z0-9]+)/.exec(request.body)?.[1];
  return { service, operation: action ?? `${request.method} ${request.path}` };
}

/** Documented answers of the calls made before the one under test (STS GetCallerIdentity, ListBuckets…). */
const SUPPORTING: Record<string, Answer> = {
  // STS API reference, "GetCallerIdentity", example response.
  GetCallerIdentity: {
    contentType: XML,
    body:
      '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>' +
      '<Arn>arn:aws:iam::123456789012:user/Alice</Arn><UserId>AIDACKCEVSQ6C2EXAMPLE</UserId>' +
      '<Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>' +
      '01234567-89ab-cdef-0123-456789abcdef</RequestId></ResponseMetadata></GetCallerIdentityResponse>',
  },
};

let server: ListeningServer;
let answerFor: (operation: string) => Answer | undefined = () => undefined;
const savedEndpoint = process.env.AWS_ENDPOINT_URL;

beforeAll(async () => {
  server = await listenOnLoopback((request, response) => {
    const { operation } = operationOf(request);
    const answer = answerFor(operation) ?? SUPPORTING[operation];
    if (!answer) {
      response.writeHead(400, { 'content-type': XML });
      response.end(
        `<Response><Errors><Error><Code>InvalidAction</Code><Message>${operation}</Message></Error></Errors></Response>`,
      );
      return;
    }
    response.writeHead(200, {
      'content-type': answer.contentType,
      'content-length': Buffer.byteLength(answer.body),
    });
    response.end(answer.body);
  });
  process.env.AWS_ENDPOINT_URL = server.url;
});

afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL;
  else process.env.AWS_ENDPOINT_URL = savedEndpoint;
  await server.stop();
});

beforeEach(() => {
  clearAssumedRoleCache();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

/** Runs `tool` while `operation` is answered with `answer`. */
async function runWith(tool: Tool, args: unknown, operation: string, answer: Answer): Promise<ToolResult> {
  answerFor = (asked) => (asked === operation ? answer : undefined);
  try {
    return await runAwsTool(tool, args);
  } finally {
    answerFor = () => undefined;
  }
}

const HTML_PAGE = '<!DOCTYPE html><html><head><title>Sign in</title></head><body>Proxy login</body></html>';

/** Each tool, the operation carrying its figures, its shape-less answers, and a documented empty answer. */
const CASES: {
  tool: Tool;
  args: unknown;
  operation: string;
  shapeless: Answer[];
  documentedEmpty: Answer;
  /** The summary of the documented empty answer: a real zero. */
  zeroSummary: RegExp;
}[] = [
  {
    tool: ec2InventoryTool as unknown as Tool,
    args: { regions: ['eu-west-1'] },
    operation: 'DescribeInstances',
    shapeless: [
      { contentType: XML, body: '<Response/>' },
      {
        contentType: XML,
        body: '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId></DescribeInstancesResponse>',
      },
      { contentType: 'application/json', body: '{}' },
    ],
    // EC2 API reference, "DescribeInstances": an empty result still carries <reservationSet/>.
    documentedEmpty: {
      contentType: XML,
      body:
        '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">' +
        '<requestId>8f7724cf-496f-496e-8fe3-example</requestId><reservationSet/></DescribeInstancesResponse>',
    },
    zeroSummary: /^0 EC2 instances in 1 region \(0 running\)$/,
  },
  {
    tool: eipsAuditTool as unknown as Tool,
    args: { regions: ['eu-west-1'] },
    operation: 'DescribeAddresses',
    shapeless: [{ contentType: XML, body: '<Response/>' }],
    documentedEmpty: {
      contentType: XML,
      body:
        '<DescribeAddressesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">' +
        '<requestId>f7de5e98-491a-4c19-a92d-example</requestId><addressesSet/></DescribeAddressesResponse>',
    },
    zeroSummary: /^0 Elastic IPs \(0 unassociated\) in 1 region/,
  },
  {
    tool: rdsInventoryTool as unknown as Tool,
    args: { regions: ['eu-west-1'] },
    operation: 'DescribeDBInstances',
    shapeless: [{ contentType: XML, body: '<Response/>' }],
    // RDS API reference, "DescribeDBInstances", response elements.
    documentedEmpty: {
      contentType: XML,
      body:
        '<DescribeDBInstancesResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><DescribeDBInstancesResult>' +
        '<DBInstances/></DescribeDBInstancesResult><ResponseMetadata><RequestId>5e60c46d-a844-11e4-bb68-example' +
        '</RequestId></ResponseMetadata></DescribeDBInstancesResponse>',
    },
    zeroSummary: /^0 RDS DB instances \(0 public, 0 unencrypted\) in 1 region/,
  },
  {
    tool: costBreakdownTool as unknown as Tool,
    args: { start: '2024-04-01', end: '2024-05-01' },
    operation: 'GetCostAndUsage',
    shapeless: [
      { contentType: JSON_11, body: '{}' },
      { contentType: JSON_11, body: ' { } ' },
    ],
    // Cost Explorer API reference, "GetCostAndUsage": ResultsByTime always present.
    documentedEmpty: {
      contentType: JSON_11,
      body: JSON.stringify({
        GroupDefinitions: [{ Key: 'SERVICE', Type: 'DIMENSION' }],
        ResultsByTime: [
          { Estimated: false, Groups: [], TimePeriod: { End: '2024-05-01', Start: '2024-04-01' }, Total: {} },
        ],
        DimensionValueAttributes: [],
      }),
    },
    zeroSummary: /^UnblendedCost 2024-04-01\.\.2024-05-01: 0\.00,/,
  },
  {
    tool: cloudtrailCoverageTool as unknown as Tool,
    args: { regions: ['eu-west-1'] },
    operation: 'DescribeTrails',
    shapeless: [{ contentType: JSON_11, body: '{}' }],
    // CloudTrail API reference, "DescribeTrails".
    documentedEmpty: { contentType: JSON_11, body: '{"trailList":[]}' },
    zeroSummary: /^0 of 1 region covered by a logging, delivering multi-region trail.*0 trails/,
  },
  {
    tool: computeOptimizerRecsTool as unknown as Tool,
    args: { regions: ['eu-west-1'], resourceTypes: ['ec2'] },
    operation: 'GetEC2InstanceRecommendations',
    shapeless: [{ contentType: JSON_10, body: '{}' }],
    documentedEmpty: { contentType: JSON_10, body: '{"errors":[],"instanceRecommendations":[]}' },
    zeroSummary: /^0 Compute Optimizer recommendations in 1 region/,
  },
  {
    tool: s3InventoryTool as unknown as Tool,
    args: {},
    operation: 'GET /',
    shapeless: [{ contentType: 'application/xml', body: '<Response/>' }],
    // S3 API reference, "ListBuckets": an account without buckets answers an empty <Buckets/>.
    documentedEmpty: {
      contentType: 'application/xml',
      body:
        '<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>owner-id</ID>' +
        '</Owner><Buckets></Buckets></ListAllMyBucketsResult>',
    },
    zeroSummary: /^0 S3 buckets in 0 regions/,
  },
];

describe.each(CASES.map((c) => [c.tool.name, c] as const))('%s', (_name, c) => {
  const generic: [string, Answer][] = [
    ['an empty body', { contentType: c.shapeless[0]?.contentType ?? XML, body: '' }],
    ['an HTML page', { contentType: 'text/html; charset=utf-8', body: HTML_PAGE }],
    ['an HTML page labeled XML/JSON', { contentType: c.shapeless[0]?.contentType ?? XML, body: HTML_PAGE }],
  ];
  const shapeless = c.shapeless.map((answer): [string, Answer] => [
    `no data: ${answer.body.slice(0, 60)}`,
    answer,
  ]);

  it.each([...generic, ...shapeless])(
    'reports upstream_error, not a zero, for HTTP 200 with %s',
    async (_kind, answer) => {
      // Act
      const result = await runWith(c.tool, c.args, c.operation, answer);

      // Assess
      expect(result).toMatchObject({ ok: false, error: { code: 'upstream_error', retryable: true } });
      expect(result.ok ? '' : result.error.message).toMatch(
        /answered HTTP 200 .*the figures are unknown, not zero/,
      );
    },
  );

  it('reads the documented empty answer as a real zero', async () => {
    // Act
    const result = await runWith(c.tool, c.args, c.operation, c.documentedEmpty);

    // Assess
    expect(result.ok).toBe(true);
    expect(result.summary).toMatch(c.zeroSummary);
  });
});
