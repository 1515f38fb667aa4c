/**
 * A local Slack: enough of the Web API for `@slack/web-api`'s WebClient
 * (`slackApiUrl` = {@link LocalSlack.apiUrl}) to post messages, and incoming
 * webhooks. Behaviour follows api.slack.com: "chat.postMessage" (arguments,
 * response, error strings), "Rate limits" (HTTP 429 + `Retry-After` in seconds),
 * "Sending messages using incoming webhooks" (plain-text `ok`, or an HTTP error
 * whose body is the error string such as `no_service`).
 */
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { listenOnLoopback, type ReceivedRequest, sendJson, sendText } from './loopback-server';

/** The bot token the server accepts unless told otherwise. */
export const DEFAULT_BOT_TOKEN = 'xoxb-000000000001-000000000002-localslacktoken0001';

/** The webhook path the server accepts unless told otherwise. */
export const DEFAULT_WEBHOOK_PATH = '/services/T00000001/B00000001/localwebhooksecret0001';

/** Channels the server knows unless told otherwise: ID → name. */
export const DEFAULT_CHANNELS: Readonly<Record<string, string>> = {
  C0123ABCD: 'general',
  C0AWSPULSE: 'aws-pulse',
};

/** What the server is started with. */
export interface SlackServerOptions {
  /** The only bot token accepted. @default {@link DEFAULT_BOT_TOKEN} */
  readonly botToken?: string;
  /** Channel ID → name; `channel` may be the ID, `#name` or `name`. @default {@link DEFAULT_CHANNELS} */
  readonly channels?: Readonly<Record<string, string>>;
  /** Incoming-webhook paths accepted (`/services/T…/B…/…`). @default [{@link DEFAULT_WEBHOOK_PATH}] */
  readonly webhookPaths?: readonly string[];
}

/** A message `chat.postMessage` accepted. */
export interface PostedMessage {
  /** The channel's ID (a `#name` is resolved). */
  readonly channel: string;
  readonly text?: string;
  readonly blocks?: unknown[];
  readonly thread_ts?: string;
  /** The ts the server answered with. */
  readonly ts: string;
  /** How the arguments were sent: `form` (WebClient's default) or `json`. */
  readonly encoding: 'form' | 'json';
}

/** A payload an incoming webhook accepted. */
export interface WebhookDelivery {
  readonly path: string;
  readonly payload: Record<string, unknown>;
}

/**
 * An injected failure for the next request(s), API or webhook alike:
 * - `{ status: 429, retryAfterSeconds }`: rate limited (`Retry-After` header, body `ratelimited`);
 * - `{ status: 500 }` (or any other status): an HTTP error with `body` (default: the reason phrase);
 * - `{ error }`: HTTP 200 with `{ ok: false, error }` (Web API) — e.g. `msg_too_long`.
 */
export type SlackFailure =
  | { readonly status: number; readonly retryAfterSeconds?: number; readonly body?: string }
  | { readonly error: string };

/** A running local Slack. */
export interface LocalSlack {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Web API base for WebClient's `slackApiUrl` / `SLACK_API_URL`: `<url>/api/`. */
  readonly apiUrl: string;
  /** The accepted bot token. */
  readonly botToken: string;
  /** Full URL of the first accepted webhook path. */
  readonly webhookUrl: string;
  /** Every request received, in order (failed ones too). */
  readonly requests: readonly ReceivedRequest[];
  /** Messages `chat.postMessage` accepted, in order. */
  readonly messages: readonly PostedMessage[];
  /** Payloads the incoming webhooks accepted, in order. */
  readonly webhookDeliveries: readonly WebhookDelivery[];
  /** Answers the next `times` requests with `failure` (`Infinity`: until {@link clearFailures}). */
  failNext(failure: SlackFailure, times?: number): void;
  /** Drops injected failures not yet used. */
  clearFailures(): void;
  stop(): Promise<void>;
}

/**
 * Starts the local Slack on 127.0.0.1 (OS-chosen port).
 *
 * `POST /api/chat.postMessage` takes form or JSON arguments; the token comes from
 * `Authorization: Bearer …` (or the form's `token`). Answers: `not_authed`,
 * `invalid_auth`, `channel_not_found`, `no_text`, `invalid_blocks_format`, or
 * `{ ok: true, channel, ts, message }`. Other methods answer `unknown_method`.
 * `POST /services/…` answers `ok`, or 404 `no_service` for an unknown path,
 * 400 `invalid_payload` / `no_text` for a bad payload.
 *
 * @example
 * const slack = await startSlackServer();
 * const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
 * await client.chat.postMessage({ channel: '#general', text: 'hi' });
 * slack.messages[0]; // { channel: 'C0123ABCD', text: 'hi', ts: '…', encoding: 'form' }
 * await slack.stop();
 */
export async function startSlackServer(options: SlackServerOptions = {}): Promise<LocalSlack> {
  const botToken = options.botToken ?? DEFAULT_BOT_TOKEN;
  const channels = options.channels ?? DEFAULT_CHANNELS;
  const webhookPaths = options.webhookPaths ?? [DEFAULT_WEBHOOK_PATH];
  const requests: ReceivedRequest[] = [];
  const messages: PostedMessage[] = [];
  const webhookDeliveries: WebhookDelivery[] = [];
  const failures: { failure: SlackFailure; left: number }[] = [];
  let sequence = 0;

  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++sequence).padStart(6, '0')}`;

  const channelId = (channel: unknown): string | undefined => {
    if (typeof channel !== 'string') return undefined;
    const name = channel.replace(/^#/, '');
    return Object.keys(channels).find((id) => id === channel || channels[id] === name);
  };

  const postMessage = (request: ReceivedRequest, response: ServerResponse) => {
    const parsed = parseArguments(request);
    if (!parsed) return sendJson(response, 200, { ok: false, error: 'invalid_json' });
    const { args, encoding } = parsed;
    const token = bearerToken(request) ?? (encoding === 'form' ? args.token : undefined);
    if (token === undefined) return sendJson(response, 200, { ok: false, error: 'not_authed' });
    if (token !== botToken) return sendJson(response, 200, { ok: false, error: 'invalid_auth' });
    const channel = channelId(args.channel);
    if (!channel) return sendJson(response, 200, { ok: false, error: 'channel_not_found' });
    const blocks = blocksOf(args.blocks);
    if (blocks === null) return sendJson(response, 200, { ok: false, error: 'invalid_blocks_format' });
    const text = typeof args.text === 'string' && args.text !== '' ? args.text : undefined;
    if (text === undefined && blocks === undefined) {
      return sendJson(response, 200, { ok: false, error: 'no_text' });
    }
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    const ts = nextTs();
    messages.push({
      channel,
      ...(text !== undefined ? { text } : {}),
      ...(blocks !== undefined ? { blocks } : {}),
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      ts,
      encoding,
    });
    sendJson(response, 200, {
      ok: true,
      channel,
      ts,
      message: {
        type: 'message',
        subtype: 'bot_message',
        text: text ?? '',
        bot_id: 'B0LOCALBOT',
        ts,
        ...(blocks !== undefined ? { blocks } : {}),
        ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      },
    });
  };

  const webhook = (request: ReceivedRequest, response: ServerResponse) => {
    if (!webhookPaths.includes(request.path)) return sendText(response, 404, 'no_service');
    const payload = parseJson(request.body);
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      return sendText(response, 400, 'invalid_payload');
    }
    const fields = payload as Record<string, unknown>;
    if (!fields.text && !fields.blocks) return sendText(response, 400, 'no_text');
    webhookDeliveries.push({ path: request.path, payload: fields });
    sendText(response, 200, 'ok', { 'content-type': 'text/html' });
  };

  const server = await listenOnLoopback((request, response) => {
    requests.push(request);
    const injected = failures[0];
    if (injected) {
      if (--injected.left <= 0) failures.shift();
      return sendFailure(response, injected.failure);
    }
    if (request.method === 'POST' && request.path === '/api/chat.postMessage') {
      return postMessage(request, response);
    }
    if (request.path.startsWith('/api/'))
      return sendJson(response, 200, { ok: false, error: 'unknown_method' });
    if (request.method === 'POST' && request.path.startsWith('/services/')) return webhook(request, response);
    sendText(response, 404, 'not_found');
  });

  return {
    url: server.url,
    apiUrl: `${server.url}/api/`,
    botToken,
    webhookUrl: `${server.url}${webhookPaths[0] ?? DEFAULT_WEBHOOK_PATH}`,
    requests,
    messages,
    webhookDeliveries,
    failNext(failure, times = 1) {
      failures.push({ failure, left: times });
    },
    clearFailures() {
      failures.length = 0;
    },
    stop: server.stop,
  };
}

function sendFailure(response: ServerResponse, failure: SlackFailure): void {
  if ('error' in failure) {
    sendJson(response, 200, { ok: false, error: failure.error });
  } else if (failure.status === 429) {
    sendText(response, 429, failure.body ?? 'ratelimited', {
      'retry-after': String(failure.retryAfterSeconds ?? 1),
    });
  } else {
    sendText(response, failure.status, failure.body ?? STATUS_CODES[failure.status] ?? 'error');
  }
}

/** The Web API's arguments from a form (`application/x-www-form-urlencoded`) or JSON body. */
function parseArguments(
  request: ReceivedRequest,
): { args: Record<string, unknown>; encoding: 'form' | 'json' } | undefined {
  const contentType = String(request.headers['content-type'] ?? '');
  if (contentType.startsWith('application/json')) {
    const body = parseJson(request.body);
    return body !== null && typeof body === 'object' && !Array.isArray(body)
      ? { args: body as Record<string, unknown>, encoding: 'json' }
      : undefined;
  }
  return { args: Object.fromEntries(new URLSearchParams(request.body)), encoding: 'form' };
}

function bearerToken(request: ReceivedRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/.exec(String(request.headers.authorization ?? ''));
  return match?.[1];
}

/** `blocks` as an array (forms carry a JSON string, JSON bodies an array); null when malformed. */
function blocksOf(raw: unknown): unknown[] | undefined | null {
  if (raw === undefined) return undefined;
  const parsed = typeof raw === 'string' ? parseJson(raw) : raw;
  return Array.isArray(parsed) ? parsed : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
