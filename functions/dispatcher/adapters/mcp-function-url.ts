/**
 * MCP over Streamable HTTP behind the dispatcher's Lambda function URL (auth type
 * `AWS_IAM`: every request is SigV4-signed by a principal allowed
 * `lambda:InvokeFunctionUrl`). Loaded on first use only (handler.ts imports it
 * lazily): the MCP SDK is not part of the cold start of Step Functions,
 * Bedrock or Gateway calls.
 *
 * The server is stateless (no `Mcp-Session-Id`; MCP specification 2025-11-25,
 * "Transports", Streamable HTTP, session management is optional) and answers
 * each POST with one JSON response: a Lambda function URL buffers the response,
 * so an SSE stream (GET) cannot be held open; GET and DELETE get 405, as the
 * transport specification provides for servers without such a stream.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import type { ToolCatalog } from '../../runtime/catalog';
import { type Deadline, deadlineBefore } from '../../runtime/deadline';
import { type AccessProfile, type EntryPointBindings, profileScope } from '../access';
import type { Dispatch } from '../dispatch';
import { acceptServed, errorResponseOf, JSON_RPC_ERROR, refusalOfBody } from '../mcp/json-rpc-guard';
import { createMcpServer } from '../mcp/server';

/** The path MCP is served on: `https://<url-id>.lambda-url.<region>.on.aws/mcp`. */
export const MCP_HTTP_PATH = '/mcp';

/** What {@link handleMcpFunctionUrl} works with. */
export interface McpFunctionUrlDeps {
  readonly catalog: ToolCatalog;
  readonly dispatch: Dispatch;
  readonly profiles: Readonly<Record<string, AccessProfile>>;
  readonly bindings: EntryPointBindings;
  /** `serverInfo.version`. */
  readonly version: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Whether the event is a function URL request (payload format 2.0: `version`,
 * `rawPath`, `requestContext.http.method`; Lambda developer guide, "Invoking
 * Lambda function URLs", Request payload format).
 */
export function isFunctionUrlEvent(event: unknown): event is LambdaFunctionURLEventWithIAMAuthorizer {
  if (!isRecord(event) || !isRecord(event.requestContext)) return false;
  const http = event.requestContext.http;
  return (
    event.version === '2.0' &&
    typeof event.rawPath === 'string' &&
    isRecord(http) &&
    typeof http.method === 'string'
  );
}

function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): LambdaFunctionURLResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * The request as a Fetch API `Request`, which the SDK's web-standard transport
 * takes, with `body`: the message as the guard gives it on (`refusalOfBody`).
 */
function toRequest(event: LambdaFunctionURLEventWithIAMAuthorizer, body: string): Request {
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined) headers.set(name, value);
  const accept = acceptServed(headers.get('accept') ?? undefined);
  if (accept) headers.set('accept', accept);
  // The body given on may differ from the one received (a null cursor removed): its length is its own.
  headers.delete('content-length');
  return new Request(`https://${event.requestContext.domainName}${event.rawPath}${query}`, {
    method: event.requestContext.http.method,
    headers,
    body,
  });
}

/**
 * Serves one MCP request of the function URL, for the access profile bound to
 * it (`entryPoints.mcpFunctionUrl`). Ids: the run id's session part is the
 * caller's IAM principal (from the signed request), its call part the logical
 * call (tool, arguments, 10-minute window: `logicalCallKey`), never the request
 * or JSON-RPC id, which a retry renews.
 */
export async function handleMcpFunctionUrl(
  event: LambdaFunctionURLEventWithIAMAuthorizer,
  deadline: Deadline,
  deps: McpFunctionUrlDeps,
): Promise<LambdaFunctionURLResult> {
  if (event.rawPath !== MCP_HTTP_PATH) {
    return jsonResponse(404, { error: `MCP is served on ${MCP_HTTP_PATH}` });
  }
  const method = event.requestContext.http.method;
  if (method !== 'POST') {
    return jsonResponse(
      405,
      { error: 'Stateless MCP server: POST JSON-RPC messages only' },
      { allow: 'POST' },
    );
  }
  let scope: ReturnType<typeof profileScope>;
  try {
    scope = profileScope(deps.profiles, deps.bindings.mcpFunctionUrl, 'The function URL');
  } catch (err) {
    return jsonResponse(403, { error: (err as Error).message });
  }
  // Checked here, before the SDK: its own checks answer the wrong JSON-RPC codes (mcp/json-rpc-guard.ts).
  const text =
    event.body === undefined
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  const { refusal, body } = refusalOfBody(text);
  if (refusal) {
    // A request the server could not read is a 400; a readable request with bad params gets its error at
    // 200; a notification with bad params is input the server cannot accept: 400, an error without id.
    const answered = refusal.code === JSON_RPC_ERROR.invalidParams && !refusal.notification;
    return jsonResponse(answered ? 200 : 400, errorResponseOf(refusal));
  }
  const iam = event.requestContext.authorizer?.iam;
  const principal = iam?.userArn ?? iam?.callerId ?? event.requestContext.accountId ?? 'anonymous';
  const server = createMcpServer({
    catalog: deps.catalog,
    dispatch: deps.dispatch,
    scope,
    version: deps.version,
    session: principal,
    // Leave the dispatcher a second to answer before the function's own timeout.
    deadline: () => deadlineBefore(deadline, 1_000),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(toRequest(event, body));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { statusCode: response.status, headers, body: await response.text() };
  } finally {
    await server.close();
  }
}
