import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  ErrorCode as WebErrorCode,
} from '@slack/web-api';
import { DeadlineExceededError, InvalidArgsError } from '../../../../functions/runtime/errors';
import { HttpRequestError, HttpStatusError } from '../../../../functions/runtime/http/errors';
import { normalizeError } from '../../../../functions/runtime/normalize-error';
import { mapSlackError, slackBlockViolations } from '../../../../functions/tools/slack/errors';

/** What the harness does for a Slack tool: the tool's mapper first, then the generic mapping. */
const normalize = (err: unknown) => normalizeError('slack_post_message', err, 'slack', mapSlackError);

function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' });
}

describe('Slack errors: Web API answers', () => {
  it.each([
    ['invalid_auth', 'auth_failed', false],
    ['token_expired', 'auth_failed', false],
    ['channel_not_found', 'not_found', false],
    ['not_in_channel', 'access_denied', false],
    ['is_archived', 'access_denied', false],
    ['missing_scope', 'access_denied', false],
    ['msg_too_long', 'invalid_args', false],
    ['msg_blocks_too_long', 'invalid_args', false],
    ['ratelimited', 'throttled', true],
    ['internal_error', 'upstream_error', true],
    // chat.postMessage's documented refusals ("Errors" of chat.postMessage).
    ['restricted_action_thread_locked', 'access_denied', false],
    ['messages_tab_disabled', 'access_denied', false],
    ['metadata_must_be_sent_from_app', 'access_denied', false],
    ['slack_connect_file_link_sharing_blocked', 'access_denied', false],
    ['slack_connect_canvas_sharing_blocked', 'access_denied', false],
    ['enterprise_is_restricted', 'access_denied', false],
    ['accesslimited', 'access_denied', false],
    ['too_many_contact_cards', 'invalid_args', false],
    ['as_user_not_supported', 'invalid_args', false],
    ['duplicate_channel_not_found', 'invalid_args', false],
    ['something_new', 'upstream_error', false],
  ] as const)('maps the Web API error %s to %s', (slackError, code, retryable) => {
    // Prepare
    const err = new WebAPIPlatformError({ ok: false, error: slackError });

    // Act
    const info = normalize(err);

    // Assess
    expect(err.code).toBe(WebErrorCode.PlatformError);
    expect(info).toEqual({
      code,
      message: expect.stringMatching(new RegExp(`^Slack API error: ${slackError}`)),
      retryable,
      service: 'slack',
      details: { slackError },
    });
  });

  it.each([
    [
      'not_in_channel',
      'the app is not a member of the channel: invite it with /invite @<app> in that channel',
    ],
    ['is_archived', 'the channel is archived: nothing can be posted or read there until it is unarchived'],
  ])('keeps the meaning of %s in the message', (slackError, meaning) => {
    expect(normalize(new WebAPIPlatformError({ ok: false, error: slackError })).message).toBe(
      `Slack API error: ${slackError}: ${meaning}`,
    );
  });

  it('names the scope missing_scope needs', () => {
    // Prepare
    const err = new WebAPIPlatformError({
      ok: false,
      error: 'missing_scope',
      needed: 'channels:history',
      provided: 'chat:write',
    } as ConstructorParameters<typeof WebAPIPlatformError>[0]);

    // Act
    const info = normalize(err);

    // Assess
    expect(info.details).toEqual({
      slackError: 'missing_scope',
      needed: 'channels:history',
      provided: 'chat:write',
    });
    expect(info.message).toMatch(/\(needed: channels:history\)$/);
  });

  it("passes invalid_blocks' JSON pointers to the caller", () => {
    // Prepare: Slack's answer (errors and response_metadata.messages carry the same pointer).
    const err = new WebAPIPlatformError({
      ok: false,
      error: 'invalid_blocks',
      errors: ['must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
      response_metadata: {
        messages: ['[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
      },
    } as ConstructorParameters<typeof WebAPIPlatformError>[0]);

    // Act
    const info = normalize(err);

    // Assess
    expect(info).toEqual({
      code: 'invalid_args',
      message:
        'Slack API error: invalid_blocks: Slack rejected the blocks at /blocks/0/text/text: must be less than 3001 characters',
      retryable: false,
      service: 'slack',
      details: {
        slackError: 'invalid_blocks',
        violations: [{ pointer: '/blocks/0/text/text', message: 'must be less than 3001 characters' }],
      },
    });
  });

  it('maps a plain object shaped like WebAPIPlatformError the same way', () => {
    expect(
      normalize({ code: 'slack_webapi_platform_error', data: { ok: false, error: 'invalid_auth' } }),
    ).toMatchObject({
      code: 'auth_failed',
      service: 'slack',
    });
  });

  it('maps a rate-limited error to throttled with retryAfterSeconds', () => {
    expect(normalize(new WebAPIRateLimitedError(30))).toEqual({
      code: 'throttled',
      message: 'Slack rate limit reached; retry after 30 s',
      retryable: true,
      service: 'slack',
      details: { retryAfterSeconds: 30 },
    });
  });

  it.each([
    [502, 'upstream_error', true],
    [500, 'upstream_error', true],
    [400, 'upstream_error', false],
    [429, 'throttled', true],
  ] as const)('maps HTTP %i to %s', (status, code, retryable) => {
    expect(normalize(new WebAPIHTTPError(status, 'status', {}, ''))).toMatchObject({
      code,
      retryable,
      service: 'slack',
      details: { httpStatusCode: status },
    });
  });
});

describe('Slack errors: no answer', () => {
  it('maps a request error wrapping ECONNREFUSED to network_error, retryable', () => {
    // Act
    const info = normalize(
      new WebAPIRequestError(systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443')),
    );

    // Assess
    expect(info).toEqual({
      code: 'network_error',
      message: 'Slack request failed: Could not reach the slack endpoint: connect ECONNREFUSED 127.0.0.1:443',
      retryable: true,
      service: 'slack',
      details: { errno: 'ECONNREFUSED' },
    });
  });

  it('maps a request cut by its timeout to timeout, not network_error', () => {
    // Act
    const info = normalize(
      new WebAPIRequestError(
        new DOMException('The operation was aborted due to timeout', 'TimeoutError') as Error,
      ),
    );

    // Assess
    expect(info).toEqual({
      code: 'timeout',
      message: 'Slack request failed: The operation was aborted due to timeout',
      retryable: true,
      service: 'slack',
    });
  });

  it('maps "fetch failed" caused by a connect timeout to timeout, and by a refused connection to network_error', () => {
    // Prepare
    const failed = (code: string) =>
      new WebAPIRequestError(new TypeError('fetch failed', { cause: systemError(code, `connect ${code}`) }));

    // Act
    const timedOut = normalize(failed('UND_ERR_CONNECT_TIMEOUT'));
    const refused = normalize(failed('ECONNREFUSED'));

    // Assess
    expect(timedOut).toMatchObject({
      code: 'timeout',
      message: 'Slack request failed: The slack endpoint did not answer in time: fetch failed',
    });
    expect(refused).toMatchObject({
      code: 'network_error',
      message: 'Slack request failed: Could not reach the slack endpoint: fetch failed',
    });
  });

  it("keeps the platform HTTP client's error: its code, whether it reached Slack, never the URL", () => {
    // Prepare: what the WebClient's transport threw after a reset.
    const transport = new HttpRequestError(
      'slack.com',
      'POST',
      systemError('UND_ERR_SOCKET', 'other side closed'),
      'slack',
    );

    // Act
    const info = normalize(new WebAPIRequestError(transport));

    // Assess
    expect(info).toEqual({
      code: 'network_error',
      message: 'Slack request failed: POST to slack.com failed: other side closed',
      retryable: true,
      service: 'slack',
      details: { errno: 'UND_ERR_SOCKET', host: 'slack.com', reached: 'maybe' },
    });
  });
});

describe('Slack errors: incoming webhook answers', () => {
  it.each([
    ['no_service', 'not_found', 404],
    ['invalid_token', 'auth_failed', 403],
    ['action_prohibited', 'access_denied', 403],
    ['channel_is_archived', 'access_denied', 410],
    ['no_active_hooks', 'not_found', 410],
    ['invalid_payload', 'invalid_args', 400],
    ['no_text', 'invalid_args', 400],
  ] as const)('maps a webhook error whose plain-text body is %s to %s', (body, code, status) => {
    // Act
    const info = normalize(new HttpStatusError('hooks.slack.com', status, `${body}\n`, undefined, 'slack'));

    // Assess
    expect(info).toMatchObject({
      code,
      retryable: false,
      service: 'slack',
      details: { slackError: body, httpStatusCode: status },
    });
    expect(info.message).toMatch(new RegExp(`^Slack error: ${body}`));
  });

  it('maps HTTP 410 with an unknown body to not_found: the webhook is gone', () => {
    expect(normalize(new HttpStatusError('hooks.slack.com', 410, 'gone', undefined, 'slack'))).toEqual({
      code: 'not_found',
      message:
        'Slack answered HTTP 410: the webhook is gone (its channel was archived or deleted, or the app removed); create a new webhook',
      retryable: false,
      service: 'slack',
      details: { httpStatusCode: 410 },
    });
  });

  it.each([
    [500, 'upstream_error', true],
    [429, 'throttled', true],
    [418, 'upstream_error', false],
  ] as const)('maps a webhook HTTP %i with an unknown body to %s', (status, code, retryable) => {
    expect(normalize(new HttpStatusError('hooks.slack.com', status, 'teapot', 7, 'slack'))).toMatchObject({
      code,
      retryable,
    });
  });
});

describe('Slack errors: left to the generic mapping', () => {
  it.each([
    ['our own typed error', new InvalidArgsError('bad'), 'invalid_args'],
    ['the deadline', new DeadlineExceededError('late'), 'timeout'],
    ['a bug', new TypeError('x is undefined'), 'internal_error'],
  ])('does not map %s', (_label, err, code) => {
    expect(mapSlackError(err)).toBeUndefined();
    expect(normalize(err).code).toBe(code);
  });
});

describe('slackBlockViolations()', () => {
  it('reads pointers from errors and response_metadata.messages, once each', () => {
    expect(
      slackBlockViolations({
        errors: ['unsupported type [json-pointer:/blocks/2/type]', 'no pointer here'],
        response_metadata: { messages: ['[ERROR] unsupported type [json-pointer:/blocks/2/type]'] },
      }),
    ).toEqual([{ pointer: '/blocks/2/type', message: 'unsupported type' }]);
  });
});
