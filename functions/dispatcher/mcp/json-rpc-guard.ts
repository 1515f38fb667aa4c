/**
 * What an MCP message must be before the SDK sees it, answered with the error
 * codes the JSON-RPC 2.0 specification ("Error object") defines, as MCP uses
 * them (MCP specification 2025-11-25, "Base protocol"):
 *
 * | code | when |
 * | --- | --- |
 * | -32700 Parse error | the body is not JSON at all |
 * | -32600 Invalid Request | valid JSON that is not one JSON-RPC 2.0 message (a batch: MCP removed batching in 2025-06-18; not an object; no `jsonrpc: "2.0"`; a `method` or `id` of the wrong type; `params` neither object nor array) |
 * | -32602 Invalid params | `tools/call` without a string `name`, with `arguments` that are not an object, or with a malformed idempotency key in `_meta` (`IDEMPOTENCY_META_KEY`); `tools/list` with a `cursor` (this server lists every tool on one page and never issues one). A notification (no `id`) refused here gets no answer |
 *
 * The SDK's own checks answer -32700 for all of the first two kinds and -32603
 * with a schema dump for the third; tool failures stay `isError` results
 * (./server.ts), never JSON-RPC errors.
 *
 * A `"cursor": null` in a list request's params is read as no cursor (clients
 * send null for "not given"; the specification's `PaginatedRequest` has the
 * cursor optional, and the SDK's schema refuses null): {@link refusalOfBody}
 * gives the message on without it.
 */

/** JSON-RPC 2.0 error codes ("Error object"). */
export const JSON_RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
} as const;

/** A message refused before the SDK: the JSON-RPC error to answer, and the request id when one was readable. */
export interface JsonRpcRefusal {
  readonly code: number;
  readonly message: string;
  /** The request's id, or null when it had none or it could not be read. */
  readonly id: string | number | null;
  /**
   * True for a notification (a well-formed message without `id`) whose params are
   * refused: JSON-RPC 2.0 ("Notification") lets no reply answer it, so stdio sends
   * none and HTTP answers 400 with an error that has no id (MCP "Transports",
   * Streamable HTTP: input the server cannot accept).
   */
  readonly notification?: true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The refusal of one parsed message, or undefined when it may go on to the SDK. */
export function refusalOfMessage(message: unknown): JsonRpcRefusal | undefined {
  const invalid = (text: string, id: string | number | null = null): JsonRpcRefusal => ({
    code: JSON_RPC_ERROR.invalidRequest,
    message: `Invalid Request: ${text}`,
    id,
  });
  if (Array.isArray(message)) {
    return invalid('batches are not supported (MCP removed JSON-RPC batching): send one message per request');
  }
  if (!isRecord(message)) return invalid('a message is a JSON object');
  const rawId = message.id;
  if (
    rawId !== undefined &&
    typeof rawId !== 'string' &&
    !(typeof rawId === 'number' && Number.isFinite(rawId))
  ) {
    return invalid('id must be a string or a number');
  }
  const id = rawId === undefined ? null : rawId;
  if (message.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"', id);
  if (message.method === undefined) {
    // A response to a server request: an id and a result or an error.
    if (rawId !== undefined && ('result' in message || 'error' in message)) return undefined;
    return invalid(
      'a request or notification has a string method; a response has an id and a result or error',
      id,
    );
  }
  if (typeof message.method !== 'string') return invalid('method must be a string', id);
  const params = message.params;
  if (params !== undefined && params !== null && typeof params !== 'object') {
    return invalid('params must be an object', id);
  }
  const paramsProblem = paramsProblemOf(message.method, params);
  if (!paramsProblem) return undefined;
  const refusal = { code: JSON_RPC_ERROR.invalidParams, message: `Invalid params: ${paramsProblem}`, id };
  return rawId === undefined ? { ...refusal, notification: true } : refusal;
}

/**
 * The `params._meta` key of a `tools/call` that names the logical call
 * (docs/entry-points.md, "What identifies a call"): the MCP specification
 * (2025-11-25, "Base protocol", `_meta`) defines no idempotency key, so the
 * platform uses its own, named as the specification asks of implementations
 * (a prefix of dot-separated labels in reverse DNS notation, a slash, a name;
 * the second label not `modelcontextprotocol` or `mcp`, which MCP reserves).
 * Its value, 1-255 printable ASCII characters, is checked with the other params
 * (-32602 when malformed) and used by the server (./server.ts).
 */
export const IDEMPOTENCY_META_KEY = 'dev.etp/idempotency-key';

/** A value of the `_meta` idempotency key: 1-255 printable ASCII characters. */
const IDEMPOTENCY_KEY_VALUE = /^[\x20-\x7e]{1,255}$/;

/** What is wrong with the params of the methods this server checks itself, or undefined. */
function paramsProblemOf(method: string, params: unknown): string | undefined {
  if (Array.isArray(params)) return `${method} takes its params as an object`;
  const fields = isRecord(params) ? params : {};
  if (method === 'tools/call') {
    if (typeof fields.name !== 'string') return 'tools/call needs the tool name as a string in params.name';
    const meta = fields._meta;
    if (meta !== undefined && !isRecord(meta)) return 'params._meta must be an object';
    const key = meta?.[IDEMPOTENCY_META_KEY];
    if (key !== undefined && !(typeof key === 'string' && IDEMPOTENCY_KEY_VALUE.test(key))) {
      return `params._meta["${IDEMPOTENCY_META_KEY}"] must be a string of 1-255 printable ASCII characters naming the logical call`;
    }
    const args = fields.arguments;
    if (args !== undefined && args !== null && !isRecord(args)) {
      return `params.arguments must be an object of the tool's arguments, got ${Array.isArray(args) ? 'an array' : typeof args}`;
    }
  }
  if (method === 'tools/list' && fields.cursor !== undefined) {
    return 'unknown cursor: this server lists every tool on one page and issues no cursor';
  }
  return undefined;
}

/**
 * The message as the SDK is to see it: a list request's `params.cursor: null`
 * (a client's "not given") removed, since the SDK's schema accepts a string or
 * nothing; the message itself when there is nothing to remove.
 */
function withoutNullCursor(message: unknown): unknown {
  if (!isRecord(message) || !isRecord(message.params) || message.params.cursor !== null) return message;
  const { cursor: _null, ...params } = message.params;
  return { ...message, params };
}

/**
 * The refusal of a raw message body, or the parsed message and the body to give
 * the SDK (the body itself, or the message re-serialized when a null cursor was
 * removed, {@link withoutNullCursor}). The one check every MCP message passes,
 * over stdio (`etp mcp`) and the function URL alike.
 *
 * @example refusalOfBody('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}')
 * // { refusal: { code: -32602, message: 'Invalid params: unknown cursor: …', id: 1 } }
 * @example refusalOfBody('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}').body
 * // '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
 */
export function refusalOfBody(
  body: string,
):
  | { refusal: JsonRpcRefusal; message?: undefined; body?: undefined }
  | { refusal?: undefined; message: unknown; body: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {
      refusal: { code: JSON_RPC_ERROR.parseError, message: 'Parse error: the body is not JSON', id: null },
    };
  }
  const message = withoutNullCursor(parsed);
  const refusal = refusalOfMessage(message);
  if (refusal) return { refusal };
  return { message, body: message === parsed ? body : JSON.stringify(message) };
}

/** The JSON-RPC error response of a refusal (without `id` for a notification's: it has none to echo). */
export function errorResponseOf(refusal: JsonRpcRefusal): Record<string, unknown> {
  const error = { code: refusal.code, message: refusal.message };
  return refusal.notification ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id: refusal.id, error };
}

/**
 * The Accept header the SDK's Streamable HTTP transport is given: a client that
 * accepts `application/json` (or anything) is served, since this server only
 * ever answers JSON (`enableJsonResponse`); the transport itself insists on both
 * `application/json` and `text/event-stream` and would answer 406.
 */
export function acceptServed(accept: string | undefined): string | undefined {
  if (accept === undefined) return undefined;
  const types = accept.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase());
  return types.some((type) => type === 'application/json' || type === 'application/*' || type === '*/*')
    ? 'application/json, text/event-stream'
    : accept;
}
