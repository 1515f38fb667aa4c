/**
 * Slack's error table: what `@slack/web-api` throws and what incoming webhooks
 * answer, mapped to the platform's codes with their meaning kept. Consulted by
 * `normalizeError` through each Slack tool's `mapError` (see `defineSlackTool`),
 * so the runtime holds no Slack error string.
 */
import {
  type ErrorFields,
  type ErrorMeaning,
  fieldsOf,
  meaningIn,
  meaningOfEach,
  stringField,
} from '../../runtime/error-sources/error-info';
import { PlatformError } from '../../runtime/errors';
import { HttpStatusError } from '../../runtime/http/errors';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';

/**
 * Slack `error` strings ("Errors" on each method's page of api.slack.com, and the
 * incoming-webhook errors of "Sending messages using incoming webhooks").
 * Codes and retryable flags as `docs/errors.md` documents them.
 */
export const SLACK_ERRORS: Readonly<Record<string, ErrorMeaning>> = {
  ...meaningOfEach(
    [
      'not_authed',
      'invalid_auth',
      'account_inactive',
      'token_revoked',
      'token_expired',
      'no_permission',
      'org_login_required',
      'two_factor_setup_required',
      'invalid_token',
    ],
    'auth_failed',
    false,
  ),
  ...meaningOfEach(
    [
      'missing_scope',
      'not_in_channel',
      'restricted_action',
      'restricted_action_read_only_channel',
      'restricted_action_thread_only_channel',
      'restricted_action_non_threadable_channel',
      'ekm_access_denied',
      'is_archived',
      'access_denied',
      'team_access_not_granted',
      'not_allowed_token_type',
      'cannot_reply_to_message',
      'action_prohibited',
      'posting_to_general_channel_denied',
      'restricted_action_thread_locked',
      'messages_tab_disabled',
      'metadata_must_be_sent_from_app',
      'slack_connect_file_link_sharing_blocked',
      'slack_connect_canvas_sharing_blocked',
      'enterprise_is_restricted',
      'accesslimited',
      // Incoming webhooks, HTTP 410: the channel is archived (the Web API's is_archived), not a bad argument.
      'channel_is_archived',
    ],
    'access_denied',
    false,
  ),
  ...meaningOfEach(
    [
      'channel_not_found',
      'user_not_found',
      'message_not_found',
      'thread_not_found',
      'no_service',
      'no_service_id',
      // Incoming webhooks, HTTP 410: the webhook is disabled, as gone as an unknown 410.
      'no_active_hooks',
      'no_team',
      'team_disabled',
      'invalid_channel_id',
    ],
    'not_found',
    false,
  ),
  ...meaningOfEach(['ratelimited', 'rate_limited', 'message_limit_exceeded'], 'throttled', true),
  ...meaningOfEach(
    [
      'invalid_blocks',
      'invalid_blocks_format',
      'msg_too_long',
      'msg_blocks_too_long',
      'no_text',
      'too_many_attachments',
      'too_many_contact_cards',
      'as_user_not_supported',
      'duplicate_channel_not_found',
      'invalid_arguments',
      'invalid_arg_name',
      'invalid_array_arg',
      'invalid_charset',
      'invalid_form_data',
      'invalid_post_type',
      'missing_post_type',
      'invalid_json',
      'json_not_object',
      'duplicate_message_not_found',
      'invalid_metadata_format',
      'invalid_metadata_schema',
      'metadata_too_large',
      'too_many_blocks',
      'invalid_payload',
      'missing_text_or_fallback_or_attachments',
      'invalid_cursor',
      'invalid_ts_latest',
      'invalid_ts_oldest',
    ],
    'invalid_args',
    false,
  ),
  ...meaningOfEach(
    ['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout'],
    'upstream_error',
    true,
  ),
};

/** What an error string means for whoever reads the result (an agent deciding its next step). */
const EXPLANATIONS: Readonly<Record<string, string>> = {
  channel_not_found:
    'the channel does not exist or the app cannot see it (a private channel needs the app invited; use its ID, C0123ABCD)',
  not_in_channel: 'the app is not a member of the channel: invite it with /invite @<app> in that channel',
  is_archived: 'the channel is archived: nothing can be posted or read there until it is unarchived',
  channel_is_archived:
    "the webhook's channel is archived: nothing can be posted there until it is unarchived (or create a webhook for another channel)",
  invalid_auth: 'the token is not valid for this workspace: store a working bot token in the secret',
  not_authed: 'no token was sent',
  token_revoked: 'the token was revoked (the app was uninstalled or the token rotated): store a new one',
  token_expired: 'the rotating token expired: refresh it into the secret (Slack token rotation)',
  account_inactive: 'the bot user or workspace is deactivated',
  missing_scope: 'the token lacks an OAuth scope this call needs: add it to the app and reinstall',
  msg_too_long: 'the text is too long for one message',
  msg_blocks_too_long: "the blocks' text is too long for one message (about 12,000 characters)",
  invalid_blocks: 'Slack rejected the blocks',
  no_text: 'the message has no text',
  invalid_payload: 'the webhook could not read the payload',
  no_service: 'the webhook does not exist (removed, or the URL is wrong): create a new one',
  no_active_hooks: 'the webhook is disabled: reinstall the app or create a new webhook',
  invalid_token: "the webhook's token is invalid: create a new webhook",
  team_disabled: 'the workspace is disabled',
  action_prohibited: 'a workspace admin restricted posting to this channel',
  posting_to_general_channel_denied: 'only admins may post to #general in this workspace',
  restricted_action: 'a workspace preference forbids this action',
  cannot_reply_to_message: 'that message cannot have replies',
  restricted_action_thread_locked: 'an admin locked that thread: no replies can be posted to it',
  messages_tab_disabled: "the app's Messages tab is disabled: direct messages to it cannot be posted",
  metadata_must_be_sent_from_app: 'message metadata needs an app bot token (xoxb-… of a Slack app)',
  thread_not_found: 'thread_ts does not name a message of this channel',
  ratelimited: 'Slack rate limit reached',
};

/** `[json-pointer:/blocks/0/text]` in Slack's `invalid_blocks` messages. */
const JSON_POINTER = /\[json-pointer:([^\]]*)\]/;

/** One Block Kit violation Slack reported: where (a JSON pointer) and what. */
export interface SlackBlockViolation {
  readonly pointer: string;
  readonly message: string;
}

/**
 * The violations of an `invalid_blocks` answer: `errors` (`"must be less than 3001
 * characters [json-pointer:/blocks/0/text/text]"`) or `response_metadata.messages`
 * (`"[ERROR] … [json-pointer:/blocks/0/type]"`), at most 10.
 */
export function slackBlockViolations(data: Record<string, unknown>): SlackBlockViolation[] {
  const metadata = (data.response_metadata ?? {}) as { messages?: unknown };
  const lines = [
    ...(Array.isArray(data.errors) ? data.errors : []),
    ...(Array.isArray(metadata.messages) ? metadata.messages : []),
  ].filter((line): line is string => typeof line === 'string');
  const seen = new Set<string>();
  const violations: SlackBlockViolation[] = [];
  for (const line of lines) {
    const pointer = JSON_POINTER.exec(line)?.[1];
    if (pointer === undefined) continue;
    const message = line
      .replace(JSON_POINTER, '')
      .replace(/^\[(ERROR|WARN)\]\s*/, '')
      .trim();
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key) || violations.length >= 10) continue;
    seen.add(key);
    violations.push({ pointer, message });
  }
  return violations;
}

function described(prefix: string, slack: string): string {
  const explanation = Object.hasOwn(EXPLANATIONS, slack) ? EXPLANATIONS[slack] : undefined;
  return explanation ? `${prefix}: ${slack}: ${explanation}` : `${prefix}: ${slack}`;
}

/**
 * An HTTP 200 answer of the Web API that is no Web API answer: not a JSON object
 * with a boolean `ok` (and, when `ok` is false, an `error` string): an HTML page, an
 * empty body, a word (`ok`), `{}`, `null`, `[]`. Slack answers every method with
 * `{ ok, … }` ("Web API basics"); anything else came from something in between (a
 * proxy, a captive portal), so whether Slack acted is unknown. Thrown by the
 * WebClient's fetch (client.ts) before `@slack/web-api` reads the body: it would make
 * a body that is no JSON an `error` string (`ok` read as a refusal) and fail on a
 * JSON `null` or string with a TypeError. The body is not quoted.
 */
export class SlackUnclearAnswerError extends PlatformError {
  override readonly name = 'SlackUnclearAnswerError';

  constructor(body: string) {
    super('upstream_error', unclearAnswerMessage(body), {
      retryable: false,
      service: 'slack',
      details: { effect: 'unknown' },
    });
  }
}

function unclearAnswerMessage(body: string): string {
  const what =
    body.trim() === ''
      ? 'an empty body'
      : isJson(body)
        ? 'JSON that is no Web API answer'
        : 'a body that is not JSON';
  return `Slack's Web API answered with ${what}, not a Web API answer (a proxy or captive portal in between?): whether it acted is unknown`;
}

function isJson(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether an HTTP 200 body is a Web API answer: a JSON object with a boolean `ok`,
 * and an `error` string when `ok` is false ("Web API basics").
 *
 * @example isWebApiAnswer('{"ok":false,"error":"not_in_channel"}') // true
 * @example isWebApiAnswer('ok') // false
 */
export function isWebApiAnswer(body: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const { ok, error } = data as { ok?: unknown; error?: unknown };
  return ok === true || (ok === false && typeof error === 'string');
}

/**
 * A Web API `{ ok: false, error }` answer (`WebAPIPlatformError`): Slack refused the
 * request. A 200 body that is no Web API answer never gets here: the client's fetch
 * refuses it first ({@link SlackUnclearAnswerError}), so `error` is Slack's own text,
 * quoted (redacted on the way out) even when it is no code-shaped string.
 */
function platformError(data: ErrorFields): ToolErrorInfo {
  const slack = stringField(data.error) ?? 'unknown_error';
  const mapping = meaningIn(SLACK_ERRORS, slack) ?? { code: 'upstream_error' as const, retryable: false };
  const details: ErrorFields = { slackError: slack };
  let message = described('Slack API error', slack);
  if (slack === 'missing_scope') {
    if (typeof data.needed === 'string') details.needed = data.needed;
    if (typeof data.provided === 'string') details.provided = data.provided;
    if (details.needed) message += ` (needed: ${details.needed})`;
  }
  if (slack === 'invalid_blocks' || slack === 'invalid_arguments') {
    const violations = slackBlockViolations(data);
    if (violations.length > 0) {
      details.violations = violations;
      const first = violations[0] as SlackBlockViolation;
      message += ` at ${first.pointer}: ${first.message}`;
    }
  }
  const retryAfter = fieldsOf(data.response_metadata).retryAfter;
  if (mapping.code === 'throttled' && typeof retryAfter === 'number') details.retryAfterSeconds = retryAfter;
  return { code: mapping.code, message, retryable: mapping.retryable, service: 'slack', details };
}

/**
 * An HTTP error answer: the Web API's rare non-200 (`WebAPIHTTPError`), or an
 * incoming webhook's, whose body is the error string (`no_service`, `invalid_payload`).
 */
function httpError(status: number | undefined, body: string, retryAfter?: number): ToolErrorInfo {
  const slack = body.trim();
  const mapping = meaningIn(SLACK_ERRORS, slack);
  if (mapping) {
    return {
      code: mapping.code,
      message: described('Slack error', slack),
      retryable: mapping.retryable,
      service: 'slack',
      details: { slackError: slack, httpStatusCode: status },
    };
  }
  if (status === 429) {
    return {
      code: 'throttled',
      message: `Slack answered HTTP 429${retryAfter === undefined ? ' without a usable Retry-After; retry later' : `; retry after ${retryAfter} s`}`,
      retryable: true,
      service: 'slack',
      details: {
        httpStatusCode: 429,
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      },
    };
  }
  if (status === 410) {
    // An incoming webhook answers 410 Gone once its channel, app or workspace is gone.
    return {
      code: 'not_found',
      message:
        'Slack answered HTTP 410: the webhook is gone (its channel was archived or deleted, or the app removed); create a new webhook',
      retryable: false,
      service: 'slack',
      details: { httpStatusCode: 410 },
    };
  }
  return {
    code: 'upstream_error',
    message: `Slack answered HTTP ${status ?? '?'}`,
    retryable: status === undefined || status >= 500,
    service: 'slack',
    details: { httpStatusCode: status },
  };
}

/**
 * Maps what the Slack tools throw (`@slack/web-api` errors, the shared HTTP
 * client's errors from a webhook) to a normalized error; `undefined` for
 * anything else (our own typed errors, a bug), which `normalizeError` maps as usual.
 *
 * @example mapSlackError(new WebAPIPlatformError({ ok: false, error: 'not_in_channel' }))
 * // { code: 'access_denied', retryable: false, service: 'slack', message: 'Slack API error: not_in_channel: the app is not a member…' }
 */
export function mapSlackError(err: unknown): ToolErrorInfo | undefined {
  if (err instanceof HttpStatusError && err.service === 'slack') {
    return httpError(err.status, err.body, err.retryAfterSeconds);
  }
  const fields = fieldsOf(err);
  const code = stringField(fields.code);
  if (!code?.startsWith('slack_')) return undefined;
  if (code === 'slack_webapi_platform_error') return platformError(fieldsOf(fields.data));
  if (code === 'slack_webapi_rate_limited_error') {
    const retryAfter = typeof fields.retryAfter === 'number' ? fields.retryAfter : undefined;
    return {
      code: 'throttled',
      message: `Slack rate limit reached; retry after ${retryAfter ?? '?'} s`,
      retryable: true,
      service: 'slack',
      details: { retryAfterSeconds: retryAfter },
    };
  }
  if (code.endsWith('_http_error')) {
    const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
    return httpError(status, stringField(fields.body) ?? '');
  }
  if (code.endsWith('_request_error')) {
    const original = fields.original;
    // An answer the client's fetch refused to hand the SDK (a 429 without a usable Retry-After).
    if (original instanceof HttpStatusError && original.service === 'slack') return mapSlackError(original);
    // An HTTP 200 that is no Web API answer: unknown outcome, as the error says.
    if (original instanceof SlackUnclearAnswerError) {
      return {
        code: original.code,
        message: original.message,
        retryable: false,
        service: 'slack',
        details: { effect: 'unknown' },
      };
    }
    // No answer: `original` is what the transport threw (the HTTP client's typed error,
    // or a system error), mapped as that, labeled Slack.
    const inner = normalizeError('slack', original, 'slack');
    const text = original instanceof PlatformError ? original.message : inner.message;
    return { ...inner, message: `Slack request failed: ${text}`, service: 'slack' };
  }
  return {
    code: 'upstream_error',
    message: stringField(fields.message) ?? code,
    retryable: false,
    service: 'slack',
    details: { slackCode: code },
  };
}

/** Error strings after which a re-read secret may hold a working token (docs/design.md, "Secret references"). */
export const SLACK_AUTH_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'token_expired',
  'token_revoked',
]);

/** The Web API `error` string of a `WebAPIPlatformError`, if it is one. */
export function slackErrorString(err: unknown): string | undefined {
  const fields = fieldsOf(err);
  return fields.code === 'slack_webapi_platform_error' ? stringField(fieldsOf(fields.data).error) : undefined;
}
