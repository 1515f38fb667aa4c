/**
 * Posting through an incoming webhook, for a Slack secret without a bot token
 * ("Sending messages using incoming webhooks"): each part as its own message in
 * the webhook's channel. A webhook cannot thread, say a message's ts or look up
 * what it posted, so a post whose answer never came is reported, not sent again.
 */
import type { ToolContext } from '../../runtime/context';
import { PlatformError } from '../../runtime/errors';
import { HttpRequestError, HttpStatusError } from '../../runtime/http/errors';
import { normalizeError } from '../../runtime/normalize-error';
import { postToWebhook } from './client';
import { mapSlackError } from './errors';
import { needsEffectNone, type PostRequest, type PostResult } from './post-parts';

/**
 * Whether the webhook certainly did not post: it answered an HTTP error below 500
 * ("Sending messages using incoming webhooks": 400 `invalid_payload`, 403
 * `action_prohibited`, 404 `channel_not_found`, 410 `channel_is_archived`; a 429),
 * or the request never left (`reached: 'no'`).
 */
function refused(err: unknown): boolean {
  if (err instanceof HttpStatusError) return err.status < 500;
  return err instanceof HttpRequestError && err.reached === 'no';
}

/**
 * Posts through an incoming webhook: each part as its own message in the
 * webhook's channel (a webhook cannot thread or say a message's ts). A post whose
 * answer never came cannot be looked up: it is reported as `effect: 'unknown'`.
 */
export async function postThroughWebhook(
  ctx: ToolContext,
  webhookUrl: string,
  request: PostRequest,
): Promise<PostResult> {
  if (ctx.idempotency?.resumed) {
    throw new PlatformError(
      'timeout',
      'An earlier attempt of this call ended without an outcome, and an incoming webhook cannot look up what it posted; it is not sent again',
      { retryable: false, service: 'slack', details: { effect: 'unknown' } },
    );
  }
  let posted = 0;
  for (const part of request.parts) {
    try {
      await postToWebhook(ctx, webhookUrl, {
        text: part.text,
        ...(part.blocks ? { blocks: part.blocks } : {}),
        // As the bot posts: links and mentions come only from explicit segments, and
        // nothing unfurls (a webhook payload takes chat.postMessage's unfurl_links and
        // unfurl_media; "Unfurling links in messages": media unfurls by default).
        unfurl_links: false,
        unfurl_media: false,
      });
      posted++;
    } catch (err) {
      const info = normalizeError(ctx.tool, err, 'slack', mapSlackError);
      const unknown = err instanceof HttpRequestError && err.reached === 'maybe';
      if (posted === 0 && !unknown) {
        // Refused (a 4xx such as 400 invalid_payload, 404 no_service, a 429) or never sent (a
        // refused connection): nothing posted, said so where the code alone reads as a possible
        // effect. A 5xx (rollup_error) or an unclear 2xx may have posted: as it is.
        if (!refused(err) || !needsEffectNone(ctx.tool, ctx.callId, info)) throw err;
        throw new PlatformError(info.code, info.message, {
          retryable: info.retryable,
          service: 'slack',
          details: { ...info.details, effect: 'none' },
          cause: err,
        });
      }
      throw new PlatformError(
        info.code,
        unknown
          ? `${info.message}; the webhook post may have reached Slack and cannot be looked up; it is not sent again (${posted} of ${request.parts.length} messages posted before)`
          : `Posted ${posted} of ${request.parts.length} messages, then: ${info.message}`,
        {
          retryable: false,
          service: 'slack',
          details: { ...info.details, effect: unknown ? 'unknown' : 'partial', posted: posted },
          cause: err,
        },
      );
    }
  }
  return {
    via: 'webhook',
    channel: null,
    ts: null,
    thread_ts: null,
    messages: posted,
    posted_ts: [],
    recovered: 0,
    truncated: false,
  };
}
