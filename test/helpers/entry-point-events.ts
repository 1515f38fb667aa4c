/**
 * Events of the entry points, built from the documented examples:
 * - Bedrock Agents action groups: Bedrock user guide, "Configure Lambda functions
 *   to send information that an Amazon Bedrock agent elicits from the user",
 *   Lambda input event (function-details and API-schema forms);
 * - AgentCore Gateway Lambda targets: AgentCore developer guide, "AWS Lambda
 *   function targets", Lambda function input format (the client context);
 * - Lambda function URLs: Lambda developer guide, "Invoking Lambda function
 *   URLs", request payload (format 2.0, IAM auth).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import { fakeLambdaContext } from './events';
import { type ListeningServer, listenOnLoopback, type ReceivedRequest } from './loopback-server';

/** The agent of the examples: its id is what the dispatcher binds to a profile. */
export const EXAMPLE_AGENT = { name: 'ops-agent', id: 'AGENT12345', alias: 'TSTALIASID', version: 'DRAFT' };

/** A function-details event calling `fn` with `parameters` (every value a string, as Bedrock sends them). */
export function bedrockFunctionEvent(
  fn: string,
  parameters: Record<string, string>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    messageVersion: '1.0',
    agent: EXAMPLE_AGENT,
    inputText: 'Tell the team in #aws-pulse that the deploy is done',
    sessionId: '123456789012345',
    actionGroup: 'etp_tools',
    function: fn,
    parameters: Object.entries(parameters).map(([name, value]) => ({ name, type: 'string', value })),
    sessionAttributes: { team: 'platform' },
    promptSessionAttributes: {},
    ...overrides,
  };
}

/** An API-schema event calling `POST /tools/<tool>` with `properties` in the JSON request body. */
export function bedrockApiEvent(tool: string, properties: Record<string, string>): Record<string, unknown> {
  return {
    messageVersion: '1.0',
    agent: EXAMPLE_AGENT,
    inputText: 'Tell the team in #aws-pulse that the deploy is done',
    sessionId: '123456789012345',
    actionGroup: 'etp_tools_api',
    apiPath: `/tools/${tool}`,
    httpMethod: 'POST',
    parameters: [],
    requestBody: {
      content: {
        'application/json': {
          properties: Object.entries(properties).map(([name, value]) => ({ name, type: 'string', value })),
        },
      },
    },
    sessionAttributes: {},
    promptSessionAttributes: {},
  };
}

/**
 * The Lambda context of a Gateway call: the documented client-context keys,
 * as the Node.js runtime hands them over (the JSON's `custom` object).
 */
export function gatewayContext(qualifiedToolName: string, requestId: string = randomUUID()): Context {
  return {
    ...fakeLambdaContext({ functionName: 'etp-dispatcher' }),
    clientContext: {
      custom: {
        bedrockAgentCoreMessageVersion: '1.0',
        bedrockAgentCoreAwsRequestId: requestId,
        bedrockAgentCoreMcpMessageId: '2',
        bedrockAgentCoreGatewayId: 'etp-gateway-abcdefghij',
        bedrockAgentCoreTargetId: 'TARGET0001',
        bedrockAgentCoreToolName: qualifiedToolName,
      },
    } as unknown as Context['clientContext'],
  };
}

/** The IAM caller of the function URL requests. */
export const FUNCTION_URL_CALLER = 'arn:aws:iam::123456789012:user/mcp-tester';

/** A function URL request (payload 2.0, IAM auth) from an HTTP request received on loopback. */
export function functionUrlEvent(
  request: ReceivedRequest,
  host: string,
): LambdaFunctionURLEventWithIAMAuthorizer {
  const [rawPath = '/', rawQueryString = ''] = request.path.split('?');
  const headers = Object.fromEntries(
    Object.entries(request.headers)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : String(value)]),
  );
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdefghijklmnopqrstuvwxyz',
      domainName: host,
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      authorizer: {
        iam: {
          accessKey: 'AKIAIOSFODNN7EXAMPLE',
          accountId: '123456789012',
          callerId: 'AIDACKCEVSQ6C2EXAMPLE',
          cognitoIdentity: null,
          principalOrgId: null,
          userArn: FUNCTION_URL_CALLER,
          userId: 'AIDACKCEVSQ6C2EXAMPLE',
        },
      },
    },
    body: request.body === '' ? undefined : request.body,
    isBase64Encoded: false,
  } as unknown as LambdaFunctionURLEventWithIAMAuthorizer;
}

/**
 * A local stand-in for a function URL: an HTTP server on 127.0.0.1 turning
 * each request into the function URL event and the handler's result into the
 * HTTP response, as Lambda does.
 */
export async function startFunctionUrl(
  handler: (event: unknown, context: Context) => Promise<unknown>,
): Promise<ListeningServer> {
  return listenOnLoopback(async (request: ReceivedRequest, response: ServerResponse) => {
    const host = String(request.headers.host ?? '127.0.0.1');
    const result = (await handler(
      functionUrlEvent(request, host),
      fakeLambdaContext({ functionName: 'etp-dispatcher' }),
    )) as Exclude<LambdaFunctionURLResult, string>;
    response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    response.end(result.body ?? '');
  });
}

/** The GuardDuty finding event of the EventBridge documentation (GuardDuty user guide, "EventBridge event format"). */
export const GUARDDUTY_FINDING = {
  version: '0',
  id: 'c8c4daa7-a20c-2f03-0070-b7393dd542ad',
  'detail-type': 'GuardDuty Finding',
  source: 'aws.guardduty',
  account: '123456789012',
  time: '1970-01-01T00:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail: {
    schemaVersion: '2.0',
    accountId: '123456789012',
    region: 'us-east-1',
    partition: 'aws',
    id: '16afba5c5c43e07c9e3e5e2e544e95df',
    type: 'Canary:EC2/Stateless.IntegTest',
    severity: 5,
    title: 'Canary finding',
  },
};

/**
 * An EventBridge input transformer applied to an event: each `<name>` replaced by
 * its path's value, as a JSON value outside quotes and as the raw text inside
 * them (EventBridge user guide, "Amazon EventBridge input transformation").
 */
export function transformInput(template: string, paths: Record<string, string>, event: unknown): unknown {
  const valueAt = (jsonPath: string) =>
    jsonPath
      .slice(2)
      .split('.')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], event);
  const filled = template
    .replace(/"<([\w-]+)>"/g, (_m, name: string) => JSON.stringify(String(valueAt(paths[name] ?? ''))))
    .replace(/<([\w-]+)>/g, (_m, name: string) => JSON.stringify(valueAt(paths[name] ?? '')));
  return JSON.parse(filled);
}
