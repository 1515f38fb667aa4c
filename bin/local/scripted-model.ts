/**
 * A scripted model: an HTTP server on 127.0.0.1 speaking the Bedrock Runtime
 * Converse API (API reference, "Converse": `POST /model/{modelId}/converse`,
 * errors as `x-amzn-errortype` + `{ "message" }`), replaying scripted responses
 * in order. Point a local run at it (`etp scenario run --local --model-endpoint
 * <url>`, or `etp model serve --script <file>`) to watch a whole agent run offline;
 * the tests and the bench use it the same way.
 *
 * It accepts both cleartext HTTP/2 (the Bedrock Runtime SDK client's default
 * handler speaks HTTP/2 even to `http://`) and HTTP/1.1 (`NodeHttpHandler`,
 * proxies, curl): each connection is handed to the HTTP/2 server when it opens
 * with the HTTP/2 preface, else to the HTTP/1.1 server.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { parse } from 'yaml';
import { type ConverseProblem, requestProblems } from '../../functions/engine/converse-rules';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { readOptionFile } from './option-file';

/** One scripted model response (YAML/JSON keys as written in a script file). */
export interface ScriptedResponse {
  /** Text the model says. */
  readonly text?: string;
  /** Tools the model calls, in order. */
  readonly tool_use?: readonly { readonly name: string; readonly input?: unknown; readonly id?: string }[];
  /** @default `tool_use` when there are tool calls, else `end_turn` */
  readonly stop_reason?: string;
  /** @default estimated: a token per 4 characters of the request and of the response */
  readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number };
  /** Answer with an error instead: HTTP status, Bedrock error type, message. */
  readonly error?: { readonly status: number; readonly type: string; readonly message?: string };
  /** Never answer (a hung model): the request stays open until the client gives up or the server stops. */
  readonly hang?: boolean;
}

/** A request the scripted model refused as Bedrock would: which one, and every rule it broke. */
export interface RefusedConverse {
  /** Its index among the requests received. */
  readonly index: number;
  readonly problems: readonly ConverseProblem[];
}

/** A Converse request as the server received it. */
export interface ReceivedConverse {
  readonly modelId: string;
  readonly body: {
    readonly messages?: { role: string; content: Record<string, unknown>[] }[];
    readonly system?: { text?: string }[];
    readonly toolConfig?: { tools?: { toolSpec?: { name?: string } }[] };
    readonly inferenceConfig?: Record<string, unknown>;
  };
  /** `http/1.1` or `h2`. */
  readonly protocol: string;
}

/** Picks the response to a request (the n-th request, 0-based). */
export type Responder = (request: ReceivedConverse, index: number) => ScriptedResponse;

/** A running scripted model. */
export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`: the `--model-endpoint`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly ReceivedConverse[];
  /**
   * Requests refused with a `ValidationException` because they break a rule of
   * the Converse API (functions/engine/converse-rules.ts), as Bedrock refuses them.
   */
  readonly refused: readonly RefusedConverse[];
  stop(): Promise<void>;
}

/** Options of {@link startScriptedModel}. */
export interface ScriptedModelOptions {
  /** @default 0 (an OS-chosen port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Milliseconds each response waits, to stand for a model's latency. @default 0 */
  readonly latencyMs?: number;
}

/**
 * Reads a script file: YAML or JSON, a list of {@link ScriptedResponse} (or
 * `{ responses: [...] }`).
 *
 * @throws InvalidArgsError naming the file and what is accepted.
 */
export function loadModelScript(file: string): ScriptedResponse[] {
  const text = readOptionFile('--script', file, 'a YAML or JSON list of scripted responses').toString('utf8');
  let document: unknown;
  try {
    document = parse(text);
  } catch (err) {
    throw new InvalidArgsError(`--script ${file}: ${(err as Error).message.replace(/\s+/g, ' ')}`);
  }
  const responses = Array.isArray(document)
    ? document
    : (document as { responses?: unknown } | null)?.responses;
  const valid =
    Array.isArray(responses) &&
    responses.every(
      (response) =>
        response !== null &&
        typeof response === 'object' &&
        ('text' in response || 'tool_use' in response || 'error' in response || 'hang' in response),
    );
  if (!valid) {
    throw new InvalidArgsError(
      `--script ${file}: expected a list of responses, each with text, tool_use ([{ name, input }]), error ({ status, type, message }) or hang: true`,
    );
  }
  if (responses.length === 0) {
    throw new InvalidArgsError(
      `--script ${file}: the list of responses is empty; give at least one (text, tool_use or error)`,
    );
  }
  return responses as ScriptedResponse[];
}

const tokensOf = (value: unknown) => Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));

/** The Converse response body of a scripted response. */
function converseBody(
  response: ScriptedResponse,
  request: ReceivedConverse,
  index: number,
  latencyMs: number,
) {
  const content: Record<string, unknown>[] = [];
  if (response.text !== undefined) content.push({ text: response.text });
  for (const [position, use] of (response.tool_use ?? []).entries()) {
    content.push({
      toolUse: {
        toolUseId: use.id ?? `tooluse_${index}_${position}`,
        name: use.name,
        input: use.input ?? {},
      },
    });
  }
  const inputTokens = response.usage?.input_tokens ?? tokensOf(request.body);
  const outputTokens = response.usage?.output_tokens ?? tokensOf(content);
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: response.stop_reason ?? ((response.tool_use ?? []).length > 0 ? 'tool_use' : 'end_turn'),
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    metrics: { latencyMs },
  };
}

/** A duplex stream that yields `first`, then what `socket` receives, and writes to `socket`. */
function relayFrom(socket: Socket, first: Buffer): Duplex {
  const relay = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  relay.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!relay.push(chunk)) socket.pause();
  });
  socket.on('end', () => relay.push(null));
  socket.on('close', () => relay.destroy());
  socket.on('error', (error) => relay.destroy(error));
  return relay;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

function send(
  response: AnyResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  // The HTTP/1.1 and HTTP/2 compatibility responses share this part of their API.
  const compatible = response as ServerResponse;
  compatible.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  compatible.end(text);
}

/** A request that opens a conversation: its one message is the level's prompt. */
function opensConversation(request: ReceivedConverse): boolean {
  return (request.body.messages ?? []).length <= 1;
}

/**
 * The responder of a list: the n-th request of a pass gets the n-th response.
 * Once the list is used up, the next request that opens a conversation starts a
 * new pass (the next run of the same scenario replays the same script); a request
 * in the middle of a conversation gets an error that says the script is used up,
 * in its own words (type `ScriptExhausted`, not an AWS error name).
 */
function replay(script: readonly ScriptedResponse[]): Responder {
  let passStart = 0;
  return (request, index) => {
    if (index - passStart >= script.length && opensConversation(request)) passStart = index;
    return (
      script[index - passStart] ?? {
        error: {
          status: 400,
          type: 'ScriptExhausted',
          message: `The scripted model's script is used up in the middle of a conversation: its ${script.length} responses were all given; add responses to the script, or restart etp model serve`,
        },
      }
    );
  };
}

/**
 * Starts a scripted model. With a list, the n-th request gets the n-th
 * response, and a new run replays the list from its start ({@link replay}).
 * With a {@link Responder}, it decides.
 *
 * @example
 * const model = await startScriptedModel([{ tool_use: [{ name: 'finish', input: { summary: 'Done' } }] }]);
 * // etp scenario run aws_pulse --local --model-endpoint <model.url>
 * await model.stop();
 */
export async function startScriptedModel(
  script: readonly ScriptedResponse[] | Responder,
  options: ScriptedModelOptions = {},
): Promise<ScriptedModel> {
  const requests: ReceivedConverse[] = [];
  const refused: RefusedConverse[] = [];
  const latencyMs = options.latencyMs ?? 0;
  const respond: Responder = Array.isArray(script) ? replay(script) : (script as Responder);

  const handle = (request: AnyRequest, response: AnyResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const route = /^\/model\/([^/]+)\/converse$/.exec((request.url ?? '').split('?')[0] ?? '');
      if (request.method !== 'POST' || !route?.[1]) {
        send(
          response,
          404,
          { message: `Unknown operation ${request.method} ${request.url}` },
          {
            'x-amzn-errortype': 'UnknownOperationException',
          },
        );
        return;
      }
      let body: ReceivedConverse['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        send(
          response,
          400,
          { message: 'The request body is not JSON' },
          { 'x-amzn-errortype': 'ValidationException' },
        );
        return;
      }
      const received: ReceivedConverse = {
        modelId: decodeURIComponent(route[1]),
        body,
        protocol: request.httpVersion === '2.0' ? 'h2' : 'http/1.1',
      };
      const index = requests.length;
      requests.push(received);
      // Checked as Bedrock checks a request: a conversation it would refuse is refused here too.
      const problems = requestProblems(body);
      if (problems.length > 0) {
        refused.push({ index, problems });
        send(
          response,
          400,
          {
            message: `The request breaks the Converse API's rules: ${problems.map((p) => `${p.at}: ${p.problem}`).join('; ')}`,
          },
          { 'x-amzn-errortype': 'ValidationException' },
        );
        return;
      }
      const scripted = respond(received, index);
      if (scripted.hang) return;
      setTimeout(() => {
        if (scripted.error) {
          send(
            response,
            scripted.error.status,
            { message: scripted.error.message ?? scripted.error.type },
            { 'x-amzn-errortype': scripted.error.type },
          );
          return;
        }
        send(response, 200, converseBody(scripted, received, index, latencyMs));
      }, latencyMs);
    });
  };

  const http1 = createHttpServer(handle);
  const http2 = createHttp2Server(handle);
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (chunk: Buffer) => {
      // An HTTP/2 client opens with the preface "PRI * HTTP/2.0" (RFC 9113, 3.4); no HTTP/1.1 request does.
      if (chunk.subarray(0, 4).toString('latin1') !== 'PRI ') {
        socket.pause();
        socket.unshift(chunk);
        http1.emit('connection', socket);
        socket.resume();
        return;
      }
      // Node's HTTP/2 reads a net.Socket's native handle, past anything unshifted:
      // hand it a stream that replays the first chunk, then relays the socket.
      http2.emit('connection', relayFrom(socket, chunk));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    requests,
    refused,
    async stop() {
      for (const socket of sockets) socket.destroy();
      http1.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
