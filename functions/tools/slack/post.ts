/**
 * Posting, shared by the post tools: one message or a parent and threaded
 * follow-ups, each carrying the call's key in its message metadata, paced per
 * channel, and never sent twice: a post whose answer never came is looked up in
 * the channel (conversations.history / conversations.replies with
 * `include_all_metadata`) instead of being sent again (docs/slack.md, "Exactly once").
 */
import type { ChatPostMessageArguments } from '@slack/web-api';
import { callKey, IDEMPOTENCY_RECORD_SECONDS, recordSeconds } from '../../runtime/call-key';
import type { ToolContext } from '../../runtime/context';
import { PlatformError } from '../../runtime/errors';
import { HttpRequestError } from '../../runtime/http/errors';
import { sharedRateLimiter } from '../../runtime/http/rate-limit';
import { normalizeError } from '../../runtime/normalize-error';
import { assertClearWrite } from '../../runtime/write-answer';
import { type SlackSecret, SlackSession } from './client';
import { mapSlackError } from './errors';
import {
  needsEffectNone,
  type PostPart,
  type PostRequest,
  type PostResult,
  SLACK_METADATA_EVENT_TYPE,
} from './post-parts';
import { postThroughWebhook } from './webhook-post';

/**
 * Messages one channel gets from one tenant's calls: Slack allows "about 1
 * message per second per channel" with short bursts (chat.postMessage, "Rate limits").
 */
const CHANNEL_RATE = { burst: 3, perSecond: 1 };

/**
 * Pages scanned when looking for an earlier attempt's messages; past them the
 * outcome is unknown (nothing is sent again).
 */
const LOOKUP_PAGES = 3;

/** Messages asked per lookup page ("Pagination": at most 200 recommended; Slack may answer fewer). */
const LOOKUP_PAGE_SIZE = 200;

/** How far back a lost post is looked for, seconds before it was sent (clock skew between us and Slack). */
const LOOKUP_SKEW_SECONDS = 60;

type SlackMessage = {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
};

/**
 * Posts the parts with the bot token, or through the webhook when the secret has no bot token.
 *
 * @throws the Slack error of a part that failed with nothing posted (mapped by `mapSlackError`).
 * @throws PlatformError with `details.effect` `partial` (some messages posted, listed in
 *   `details.posted_ts`) or `unknown` (a post's outcome could not be established).
 */
export async function postMessages(
  ctx: ToolContext,
  secret: SlackSecret,
  request: PostRequest,
): Promise<PostResult> {
  if (secret.bot_token) return new BotPoster(ctx, new SlackSession(ctx, secret.bot_token), request).run();
  return postThroughWebhook(ctx, secret.webhook_url as string, request);
}

class BotPoster {
  readonly #key: string;
  readonly #posted: (string | undefined)[];
  #channel: string | undefined;
  #threadTs: string | undefined;
  #recovered = 0;
  #truncated = false;

  constructor(
    private readonly ctx: ToolContext,
    private readonly session: SlackSession,
    private readonly request: PostRequest,
  ) {
    this.#key = ctx.idempotency?.key ?? callKey(ctx.tenant, ctx.runId, ctx.callId, ctx.tool);
    this.#posted = new Array(request.parts.length).fill(undefined);
    this.#channel = isChannelId(request.channel) ? request.channel : undefined;
    this.#threadTs = request.threadTs;
  }

  async run(): Promise<PostResult> {
    if (this.ctx.idempotency?.resumed) await this.#recoverEarlierAttempt();
    for (let part = 0; part < this.request.parts.length; part++) {
      if (this.#posted[part] === undefined) await this.#post(part);
    }
    const posted = this.#posted as string[];
    const split = posted.length > 1;
    return {
      via: 'bot_token',
      channel: this.#channel ?? null,
      ts: posted[0] ?? null,
      thread_ts: this.request.threadTs ?? (split ? (posted[0] ?? null) : null),
      messages: posted.length,
      posted_ts: posted,
      recovered: this.#recovered,
      truncated: this.#truncated,
    };
  }

  /**
   * An earlier attempt of this call started and never recorded its outcome: find
   * what it posted. It started within the record's lifetime (`recordSeconds`,
   * runtime/call-key.ts: a Step Functions redrive may come days later), so that far back.
   */
  async #recoverEarlierAttempt(): Promise<void> {
    const since = Math.floor(Date.now() / 1000) - (recordSeconds() ?? IDEMPOTENCY_RECORD_SECONDS);
    await this.#lookUp(since, 'an earlier attempt of this call ended without an outcome', undefined);
  }

  async #post(part: number): Promise<void> {
    const { parts, broadcast } = this.request;
    const content = parts[part] as PostPart;
    let sentAt = Math.floor(Date.now() / 1000);
    try {
      // Inside the try: the channel's pace running out of time (throttled) or the deadline during
      // the wait ends this part with nothing sent, and earlier parts are reported (effect partial).
      await sharedRateLimiter.acquire(
        `${this.ctx.tenant}\u0000slack-channel\u0000${this.request.channel}`,
        CHANNEL_RATE,
        {
          remainingMs: this.ctx.deadline.remainingMs(),
          signal: this.ctx.deadline.signal,
          service: 'slack',
        },
      );
      sentAt = Math.floor(Date.now() / 1000);
      // Built as one object: the SDK types text-only and blocks messages as separate shapes.
      const args = {
        channel: this.#channel ?? this.request.channel,
        text: content.text,
        ...(content.blocks ? { blocks: [...content.blocks] } : {}),
        ...(this.#threadTs ? { thread_ts: this.#threadTs } : {}),
        ...(part === 0 && broadcast && this.#threadTs ? { reply_broadcast: true } : {}),
        // Links and mentions come only from explicit segments, already rendered.
        unfurl_links: false,
        unfurl_media: false,
        metadata: {
          event_type: SLACK_METADATA_EVENT_TYPE,
          event_payload: { key: this.#key, part: part + 1, parts: parts.length },
        },
      } as ChatPostMessageArguments;
      const response = await this.session.api((client) => client.chat.postMessage(args));
      // A post is done when Slack names the message it made; anything less is an unknown outcome.
      assertClearWrite(
        { body: JSON.stringify(response) },
        {
          service: 'slack',
          write: 'chat.postMessage',
          expected: 'ok: true with the message ts',
          acknowledges: () => response.ok === true && typeof response.ts === 'string',
        },
      );
      // `warning` is one code or a comma-separated list of them ("Web API basics");
      // `response_metadata.warnings` a list.
      const warnings = [
        ...(response.warning ?? '').split(',').map((warning) => warning.trim()),
        ...(response.response_metadata?.warnings ?? []),
      ];
      if (warnings.includes('message_truncated')) this.#truncated = true;
      this.#record(part, response.ts as string, response.channel);
    } catch (err) {
      // Slack answered and refused, or the request never left: nothing was posted for this part.
      if (!outcomeUnknown(err)) throw this.#failure(err, part);
      // The post may have reached Slack: look for it rather than send it again.
      await this.#lookUp(sentAt - LOOKUP_SKEW_SECONDS, describe(err), err);
      // Not found in the channel: it was not posted.
      if (this.#posted[part] === undefined) throw this.#failure(err, part);
    }
  }

  #record(part: number, ts: string, channel?: string): void {
    this.#posted[part] = ts;
    this.#channel ??= channel;
    if (part === 0 && !this.request.threadTs && this.request.parts.length > 1) this.#threadTs = ts;
  }

  /**
   * Scans the channel (and the first message's thread) for messages carrying this
   * call's key, recording the parts found.
   *
   * @throws PlatformError (`details.effect: 'unknown'`) when the channel cannot be read.
   */
  async #lookUp(oldest: number, why: string, cause: unknown): Promise<void> {
    if (!this.#channel) {
      throw this.#unknown(
        `${why}, and ${this.request.channel} is a #name: only a channel ID can be looked up`,
        cause,
      );
    }
    try {
      if (this.request.threadTs) {
        await this.#scan('conversations.replies', oldest, this.request.threadTs);
      } else {
        await this.#scan('conversations.history', oldest);
        const parent = this.#posted[0];
        if (parent !== undefined && this.request.parts.length > 1) {
          this.#threadTs = parent;
          await this.#scan('conversations.replies', oldest, parent);
        }
      }
    } catch (err) {
      const reason = normalizeError(this.ctx.tool, err, 'slack', mapSlackError);
      throw this.#unknown(`${why}, and the channel could not be read to check (${reason.message})`, cause);
    }
  }

  async #scan(
    method: 'conversations.history' | 'conversations.replies',
    oldest: number,
    ts?: string,
  ): Promise<void> {
    let cursor: string | undefined;
    let scanned = 0;
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const args = {
        channel: this.#channel as string,
        oldest: String(oldest),
        limit: LOOKUP_PAGE_SIZE,
        include_all_metadata: true,
        ...(cursor ? { cursor } : {}),
      };
      const response =
        method === 'conversations.replies'
          ? await this.session.api((c) => c.conversations.replies({ ...args, ts: ts as string }))
          : await this.session.api((c) => c.conversations.history(args));
      scanned += response.messages?.length ?? 0;
      for (const message of (response.messages ?? []) as SlackMessage[]) {
        const payload = message.metadata?.event_payload;
        if (message.metadata?.event_type !== SLACK_METADATA_EVENT_TYPE || payload?.key !== this.#key)
          continue;
        const part = Number(payload.part) - 1;
        if (
          message.ts &&
          Number.isInteger(part) &&
          part >= 0 &&
          part < this.#posted.length &&
          !this.#posted[part]
        ) {
          this.#posted[part] = message.ts;
          this.#recovered++;
        }
      }
      cursor = response.response_metadata?.next_cursor || undefined;
      if (!cursor) return;
    }
    // Pages left unread may hold the message: not found is not "not posted".
    throw new PlatformError(
      'upstream_error',
      `more than the ${scanned} messages read (${LOOKUP_PAGES} pages) since the post was sent; the rest were not checked`,
      { retryable: false, service: 'slack' },
    );
  }

  #postedSoFar(): string[] {
    return this.#posted.filter((ts): ts is string => ts !== undefined);
  }

  /**
   * A part failed with nothing posted for it (Slack refused it, it never left, or
   * the lookup showed it absent): `partial` when earlier parts were posted; else
   * the error as is, or with `details.effect: 'none'` when it declares no effect and
   * its code alone would be read as a possible effect ({@link needsEffectNone}: an
   * `ok: false` Slack answer our table does not know is `upstream_error`, a refused
   * connection `network_error`), so the call's record is not kept as "may have taken
   * effect". An answer that declares `unknown` (ok: true without a ts) keeps it.
   */
  #failure(err: unknown, part: number): unknown {
    const posted = this.#postedSoFar();
    const info = normalizeError(this.ctx.tool, err, 'slack', mapSlackError);
    if (posted.length === 0) {
      if (!needsEffectNone(this.ctx.tool, this.ctx.callId, info)) return err;
      return new PlatformError(info.code, info.message, {
        retryable: info.retryable,
        service: 'slack',
        details: { ...info.details, effect: 'none' },
        cause: err,
      });
    }
    return new PlatformError(
      info.code,
      `Posted ${posted.length} of ${this.request.parts.length} messages, then message ${part + 1} failed: ${info.message}`,
      {
        retryable: false,
        service: 'slack',
        details: { ...info.details, effect: 'partial', posted_ts: posted, channel: this.#channel ?? null },
        cause: err,
      },
    );
  }

  #unknown(reason: string, cause: unknown): PlatformError {
    const info =
      cause === undefined ? undefined : normalizeError(this.ctx.tool, cause, 'slack', mapSlackError);
    return new PlatformError(
      info?.code ?? 'timeout',
      `A post to ${this.request.channel} may have reached Slack (${reason}); it is not sent again`,
      {
        retryable: false,
        service: 'slack',
        details: { effect: 'unknown', posted_ts: this.#postedSoFar(), key: this.#key },
        cause,
      },
    );
  }
}

/** IDs of conversations (C public, G private, D direct): what conversations.history takes. */
function isChannelId(channel: string): boolean {
  return /^[CGD][A-Z0-9]{6,}$/.test(channel);
}

/** The HTTP client's error inside a WebClient request error. */
function transportError(err: unknown): unknown {
  const fields = (err ?? {}) as { code?: unknown; original?: unknown };
  return fields.code === 'slack_webapi_request_error' ? fields.original : err;
}

/**
 * Whether a failed post may have been acted on: no answer after the request left
 * (a timeout, a reset: `reached: 'maybe'`), or Slack failed on its side (HTTP
 * 5xx, `internal_error`). A refused connection, a 429 or any other Slack answer
 * means nothing was posted.
 */
export function outcomeUnknown(err: unknown): boolean {
  const transport = transportError(err);
  if (transport instanceof HttpRequestError) return transport.reached === 'maybe';
  const info = mapSlackError(err);
  if (info) return info.code === 'upstream_error' && info.retryable;
  return err instanceof PlatformError ? false : transport !== err;
}

function describe(err: unknown): string {
  const transport = transportError(err);
  return transport instanceof HttpRequestError
    ? `no answer: ${transport.errno}`
    : `Slack failed: ${(err as Error)?.message ?? String(err)}`;
}
