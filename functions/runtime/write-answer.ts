/**
 * A write is reported done only on a clear success. A webhook or API that
 * answers HTTP 200 with an HTML page (a proxy, a captive portal), an empty body
 * or a body without the service's acknowledgement has not said it did the write:
 * the tool reports `upstream_error` with `details.effect: 'unknown'`, never
 * "posted". Connectors state what their service's clear success looks like
 * ({@link WriteSuccess}); this module decides.
 */
import { PlatformError } from './errors';

/** What a connector's clear success looks like, for one kind of write. */
export interface WriteSuccess {
  /** The service, reported as the error's `service` (`slack`). */
  readonly service: string;
  /** What was attempted, for the message (`post to the incoming webhook`). */
  readonly write: string;
  /** The acknowledgement expected, in words (`the body "ok"`), for the message. */
  readonly expected: string;
  /** Whether a body (of a 2xx answer) is that acknowledgement. */
  readonly acknowledges: (body: string) => boolean;
}

/** An answer to a write, as the HTTP client or SDK returned it. */
export interface WriteAnswer {
  /** HTTP status, when the client exposes it. */
  readonly status?: number;
  /** Content type, when the client exposes it. */
  readonly contentType?: string;
  /** The body as text (a parsed SDK response serialized as JSON). */
  readonly body: string;
}

/** A write whose answer was not a clear success: it may or may not have happened. */
export class UnclearWriteError extends PlatformError {
  override readonly name = 'UnclearWriteError';
}

/**
 * Checks that `answer` is a clear success of the write: a 2xx status (when
 * known), not HTML, and a body `success.acknowledges`.
 *
 * @throws UnclearWriteError (`upstream_error`, not retryable: the write may have
 *   happened, so repeating it could repeat its effect) with `details.effect:
 *   'unknown'`, the status, the content type and the body's size — never the body,
 *   which may echo what was written.
 * @example
 * assertClearWrite({ body: (await webhook.send(payload)).text }, SLACK_WEBHOOK_SUCCESS);
 */
export function assertClearWrite(answer: WriteAnswer, success: WriteSuccess): void {
  const html =
    /^text\/html\b/i.test(answer.contentType ?? '') ||
    /^\s*<(?:!doctype\s+html|html[\s>])/i.test(answer.body);
  const statusOk = answer.status === undefined || (answer.status >= 200 && answer.status < 300);
  // The body decides, not the content type: Slack serves its webhook's `ok` as text/html.
  if (statusOk && success.acknowledges(answer.body)) return;
  const what =
    answer.body.trim() === ''
      ? 'an empty body'
      : html
        ? 'an HTML page'
        : statusOk
          ? 'another body'
          : `HTTP ${answer.status}`;
  throw new UnclearWriteError(
    'upstream_error',
    `The ${success.service} ${success.write} was answered with ${what}, not ${success.expected}: ` +
      'whether it took effect is unknown, so it is not reported as done',
    {
      retryable: false,
      service: success.service,
      details: {
        effect: 'unknown',
        ...(answer.status !== undefined ? { httpStatusCode: answer.status } : {}),
        ...(answer.contentType ? { contentType: answer.contentType } : {}),
        bodyBytes: Buffer.byteLength(answer.body),
      },
    },
  );
}
