/**
 * A local Slack: enough of the Web API for `@slack/web-api`'s WebClient
 * (`slackApiUrl` = {@link LocalSlack.apiUrl}) to post messages (with message
 * metadata) and read them back (conversations.history / conversations.replies),
 * and incoming webhooks. Behavior follows api.slack.com: "chat.postMessage"
 * (arguments, response, error strings, `message_truncated` past 40,000
 * characters), "conversations.history" (newest first, `oldest`/`latest`,
 * `include_all_metadata`, cursor pagination), "Rate limits" (HTTP 429 +
 * `Retry-After` in seconds), "Sending messages using incoming webhooks"
 * (plain-text `ok`, or an HTTP error whose body is the error string such as
 * `no_service`). Injected behaviors: failures, a late answer to a recorded
 * post, a connection reset after recording.
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
  /** Channel ID → the error chat.postMessage answers there (`not_in_channel`, `is_archived`). */
  readonly channelErrors?: Readonly<Record<string, string>>;
  /** Text longer than this is cut and answered with the `message_truncated` warning. @default 40,000 (Slack's) */
  readonly truncateTextAt?: number;
  /**
   * How a truncation is warned: `both` (`warning` and `response_metadata.warnings`), or
   * `warning_list`, only `warning` as a comma-separated list beside another warning
   * (`missing_charset,message_truncated`: "Web API basics", "a comma-separated list of
   * them, in the case of multiple warnings"). @default 'both'
   */
  readonly truncationWarning?: 'both' | 'warning_list';
  /**
   * Most messages one conversations.history or .replies page holds, whatever `limit` asks
   * (Slack's 2025 limit for apps outside the Marketplace: 15). @default 1,000
   */
  readonly historyPageMax?: number;
}

/** Block types the server knows (Block Kit reference); any other is `invalid_blocks`, as Slack answers. */
const KNOWN_BLOCK_TYPES = new Set([
  'section',
  'header',
  'divider',
  'context',
  'image',
  'actions',
  'rich_text',
  'markdown',
  'input',
  'file',
  'video',
]);

/** chat.postMessage, "Truncating content": text past 40,000 characters is cut, with a warning. */
const TEXT_TRUNCATED_AT = 40_000;

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
  /** Message metadata as sent (`event_type`, `event_payload`). */
  readonly metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** `reply_broadcast` as sent. */
  readonly reply_broadcast?: boolean;
}

/** A payload an incoming webhook accepted. */
export interface WebhookDelivery {
  readonly path: string;
  readonly payload: Record<string, unknown>;
}

/**
 * An injected failure for the next request(s), API or webhook alike:
 * - `{ status: 429, retryAfterSeconds }`: rate limited (`Retry-After` header, body `ratelimited`;
 *   `retryAfterSeconds: null`: no header, as a proxy in front of Slack may answer);
 * - `{ status: 500 }` (or any other status): an HTTP error with `body` (default: the reason phrase);
 * - `{ error }`: HTTP 200 with `{ ok: false, error }` (Web API) — e.g. `msg_too_long`.
 */
export type SlackFailure =
  | { readonly status: number; readonly retryAfterSeconds?: number | null; readonly body?: string }
  | { readonly error: string; readonly extra?: Record<string, unknown> }
  | SlackBehavior;

/**
 * A request handled normally (a post is recorded) but answered badly:
 * `delayMs` answers late (after a client's timeout); `reset` destroys the
 * connection instead of answering.
 */
export type SlackBehavior = { readonly delayMs: number } | { readonly reset: true };

/** Which requests an injected failure applies to. */
export interface FailureScope {
  /** Only requests to this path (`/api/chat.postMessage`). @default every request */
  readonly path?: string;
  /** Matching requests answered normally before the failure applies. @default 0 */
  readonly after?: number;
}

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
  /** Answers the next `times` requests (of `scope.path`) with `failure` (`Infinity`: until {@link clearFailures}). */
  failNext(failure: SlackFailure, times?: number, scope?: FailureScope): void;
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
  const channelErrors = options.channelErrors ?? {};
  const truncateAt = options.truncateTextAt ?? TEXT_TRUNCATED_AT;
  const requests: ReceivedRequest[] = [];
  const messages: PostedMessage[] = [];
  const webhookDeliveries: WebhookDelivery[] = [];
  const failures: { failure: SlackFailure; left: number; path?: string; after: number }[] = [];
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
    const channelError = channelErrors[channel];
    if (channelError) return sendJson(response, 200, { ok: false, error: channelError });
    const blocks = blocksOf(args.blocks);
    if (blocks === null) return sendJson(response, 200, { ok: false, error: 'invalid_blocks_format' });
    const unknownBlock = (blocks ?? []).findIndex(
      (block) => !KNOWN_BLOCK_TYPES.has(String((block as { type?: unknown })?.type)),
    );
    if (unknownBlock >= 0 || (blocks?.length ?? 0) > 50) {
      const pointer = unknownBlock >= 0 ? `/blocks/${unknownBlock}/type` : '/blocks';
      const problem =
        unknownBlock >= 0 ? 'unsupported type' : 'must provide an array of no more than 50 items';
      return sendJson(response, 200, {
        ok: false,
        error: 'invalid_blocks',
        errors: [`${problem} [json-pointer:${pointer}]`],
        response_metadata: { messages: [`[ERROR] ${problem} [json-pointer:${pointer}]`] },
      });
    }
    const sent = typeof args.text === 'string' && args.text !== '' ? args.text : undefined;
    if (sent === undefined && blocks === undefined) {
      return sendJson(response, 200, { ok: false, error: 'no_text' });
    }
    const truncated = sent !== undefined && sent.length > truncateAt;
    const text = truncated ? sent.slice(0, truncateAt) : sent;
    const metadata = metadataOf(args.metadata);
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    const broadcast = args.reply_broadcast === true || args.reply_broadcast === 'true';
    const ts = nextTs();
    messages.push({
      channel,
      ...(text !== undefined ? { text } : {}),
      ...(blocks !== undefined ? { blocks } : {}),
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      ts,
      encoding,
      ...(metadata ? { metadata } : {}),
      ...(broadcast ? { reply_broadcast: true } : {}),
    });
    sendJson(response, 200, {
      ok: true,
      channel,
      ts,
      ...(truncated
        ? options.truncationWarning === 'warning_list'
          ? { warning: 'missing_charset,message_truncated' }
          : { warning: 'message_truncated', response_metadata: { warnings: ['message_truncated'] } }
        : {}),
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

  /** conversations.history (top-level messages, newest first) and conversations.replies (a thread, oldest first). */
  const readMessages = (request: ReceivedRequest, response: ServerResponse, thread: boolean) => {
    const parsed = parseArguments(request);
    if (!parsed) return sendJson(response, 200, { ok: false, error: 'invalid_json' });
    const { args, encoding } = parsed;
    const token = bearerToken(request) ?? (encoding === 'form' ? args.token : undefined);
    if (token === undefined) return sendJson(response, 200, { ok: false, error: 'not_authed' });
    if (token !== botToken) return sendJson(response, 200, { ok: false, error: 'invalid_auth' });
    const channel =
      typeof args.channel === 'string' && Object.hasOwn(channels, args.channel) ? args.channel : undefined;
    if (!channel) return sendJson(response, 200, { ok: false, error: 'channel_not_found' });
    const oldest = Number(args.oldest ?? 0);
    const latest = args.latest === undefined ? Number.POSITIVE_INFINITY : Number(args.latest);
    const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
    const parentTs = thread ? String(args.ts ?? '') : undefined;
    if (thread && !messages.some((m) => m.channel === channel && m.ts === parentTs)) {
      return sendJson(response, 200, { ok: false, error: 'thread_not_found' });
    }
    const selected = messages
      .filter((m) => m.channel === channel)
      .filter((m) =>
        thread
          ? m.ts === parentTs || m.thread_ts === parentTs
          : m.thread_ts === undefined || m.reply_broadcast,
      )
      .filter((m) => Number(m.ts) > oldest && Number(m.ts) < latest);
    if (!thread) selected.reverse();
    const offset =
      typeof args.cursor === 'string' ? Number(Buffer.from(args.cursor, 'base64').toString()) : 0;
    const limit = Math.min(options.historyPageMax ?? 1000, Number(args.limit ?? 100) || 100);
    const page = selected.slice(offset, offset + limit);
    const more = offset + limit < selected.length;
    sendJson(response, 200, {
      ok: true,
      messages: page.map((m) => ({
        type: 'message',
        ts: m.ts,
        text: m.text ?? '',
        bot_id: 'B0LOCALBOT',
        ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
        ...(thread || m.thread_ts ? {} : replyInfo(m.ts)),
        ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
      })),
      has_more: more,
      response_metadata: { next_cursor: more ? Buffer.from(String(offset + limit)).toString('base64') : '' },
    });
  };

  const replyInfo = (ts: string) => {
    const replies = messages.filter((m) => m.thread_ts === ts);
    return replies.length > 0
      ? { thread_ts: ts, reply_count: replies.length, latest_reply: replies.at(-1)?.ts }
      : {};
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

  const handle = (request: ReceivedRequest, response: ServerResponse) => {
    if (request.method === 'POST' && request.path === '/api/chat.postMessage') {
      return postMessage(request, response);
    }
    if (request.path === '/api/conversations.history') return readMessages(request, response, false);
    if (request.path === '/api/conversations.replies') return readMessages(request, response, true);
    if (request.path.startsWith('/api/'))
      return sendJson(response, 200, { ok: false, error: 'unknown_method' });
    if (request.method === 'POST' && request.path.startsWith('/services/')) return webhook(request, response);
    sendText(response, 404, 'not_found');
  };

  const server = await listenOnLoopback((request, response) => {
    requests.push(request);
    const at = failures.findIndex((f) => f.path === undefined || f.path === request.path);
    const injected = at >= 0 ? failures[at] : undefined;
    if (!injected) return handle(request, response);
    if (injected.after > 0) {
      injected.after--;
      return handle(request, response);
    }
    if (--injected.left <= 0) failures.splice(at, 1);
    const failure = injected.failure;
    if ('delayMs' in failure) {
      // Handled (recorded) now, answered late: the client has given up by then.
      const late = lateResponse(response);
      handle(request, late.response);
      return late.flushAfter(failure.delayMs);
    }
    if ('reset' in failure) {
      handle(request, discarded(response));
      response.socket?.destroy();
      return;
    }
    return sendFailure(response, failure);
  });

  return {
    url: server.url,
    apiUrl: `${server.url}/api/`,
    botToken,
    webhookUrl: `${server.url}${webhookPaths[0] ?? DEFAULT_WEBHOOK_PATH}`,
    requests,
    messages,
    webhookDeliveries,
    failNext(failure, times = 1, scope = {}) {
      failures.push({
        failure,
        left: times,
        after: scope.after ?? 0,
        ...(scope.path ? { path: scope.path } : {}),
      });
    },
    clearFailures() {
      failures.length = 0;
    },
    stop: server.stop,
  };
}

function sendFailure(response: ServerResponse, failure: Exclude<SlackFailure, SlackBehavior>): void {
  if ('error' in failure) {
    sendJson(response, 200, { ok: false, error: failure.error, ...failure.extra });
  } else if (failure.status === 429) {
    sendText(
      response,
      429,
      failure.body ?? 'ratelimited',
      failure.retryAfterSeconds === null ? {} : { 'retry-after': String(failure.retryAfterSeconds ?? 1) },
    );
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

/** `metadata` as sent: a JSON string in a form, an object in JSON. */
function metadataOf(raw: unknown): PostedMessage['metadata'] {
  const parsed = typeof raw === 'string' ? parseJson(raw) : raw;
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { event_type, event_payload } = parsed as Record<string, unknown>;
  return typeof event_type === 'string' && event_payload !== null && typeof event_payload === 'object'
    ? { event_type, event_payload: event_payload as Record<string, unknown> }
    : undefined;
}

/**
 * A response whose writes are held and flushed after a delay (or dropped when the
 * client is gone by then): the request is handled at once, answered late.
 */
export function lateResponse(response: ServerResponse): {
  response: ServerResponse;
  flushAfter(ms: number): void;
} {
  const held: (() => void)[] = [];
  const proxy = new Proxy(response, {
    get(target, property, receiver) {
      if (property === 'writeHead' || property === 'end' || property === 'write') {
        return (...args: unknown[]) => {
          held.push(() => (target[property] as (...a: unknown[]) => unknown).apply(target, args));
          return receiver;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    response: proxy,
    flushAfter(ms) {
      setTimeout(() => {
        if (response.destroyed || response.socket?.destroyed) return;
        for (const write of held) write();
      }, ms).unref();
    },
  };
}

/** A response whose writes go nowhere (the connection is reset instead). */
export function discarded(response: ServerResponse): ServerResponse {
  return new Proxy(response, {
    get(target, property) {
      if (property === 'writeHead' || property === 'end' || property === 'write') return () => target;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
