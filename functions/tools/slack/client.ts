/**
 * How the Slack tools reach Slack: the tenant's `slack_default` secret (a bot
 * token for the Web API through `@slack/web-api`, or an incoming webhook), a
 * WebClient whose transport is the platform's HTTP client, and incoming-webhook
 * posts through that same client.
 */
import { LogLevel, type Logger as SlackLogger, WebClient } from '@slack/web-api';
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import type { ToolContext } from '../../runtime/context';
import { SecretInvalidError } from '../../runtime/errors';
import { createHttpClient, type HttpClient } from '../../runtime/http/client';
import { HttpStatusError } from '../../runtime/http/errors';
import { faultyFields, notJsonObjectProblem } from '../../runtime/secrets/secret-shape';
import { assertClearWrite } from '../../runtime/write-answer';
import { isWebApiAnswer, SLACK_AUTH_ERRORS, SlackUnclearAnswerError, slackErrorString } from './errors';

/** The secret every Slack tool reads. */
export const SLACK_SECRET = 'slack_default';

/** Slack's Web API base URL ("Web API basics"). */
const SLACK_DEFAULT_API_URL = 'https://slack.com/api/';

/**
 * The Web API base URL: `SLACK_API_URL` when set (GovSlack, the local Web API
 * server of the tests and the CLI), else slack.com. Read per call: an
 * already-loaded tool can be pointed at a server started later.
 */
export function slackApiUrl(): string {
  return process.env.SLACK_API_URL || SLACK_DEFAULT_API_URL;
}

/**
 * A bot token, leniently: any non-blank string without white space. Slack's
 * forms keep growing (`xoxb-`, `xoxp-`, rotating `xoxe.xoxb-1-…`, refresh
 * `xoxe-1-…`); Slack itself answers `invalid_auth` to a wrong one, so only what
 * is certainly not a token is refused here (a URL, white space).
 */
const botToken = () =>
  z.string().check(
    z.regex(/^\S{8,4096}$/, 'a token without white space (xoxb-…, xoxe.xoxb-…)'),
    z.refine(
      (value) => !/^https?:/i.test(value),
      'a token, not a URL (a webhook URL goes under webhook_url)',
    ),
  );

/** Built on first use, not at module load: a cold start pays for every module-scope zod schema (runtime/built-once.ts). */
const slackSecretSchema = builtOnce(() =>
  z
    .object({
      bot_token: z.optional(botToken()),
      webhook_url: z.optional(
        z.url({ protocol: /^https?$/, error: 'an http(s) URL: the incoming webhook URL Slack gives' }),
      ),
    })
    .check(
      z.refine((s) => s.bot_token !== undefined || s.webhook_url !== undefined, {
        message: 'bot_token or webhook_url is required',
      }),
    ),
);

/** The parsed `slack_default` secret: a bot token, a webhook URL, or both (the bot token wins). */
export type SlackSecret = z.output<ReturnType<typeof slackSecretSchema>>;

const ACCEPTED_SECRET =
  'Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }';

/**
 * Reads and checks the tenant's Slack secret ({@link SLACK_SECRET}).
 *
 * @param fresh - bypass every cache (after an auth failure: the token may have been rotated).
 * @throws SecretInvalidError naming the secret and its faulty fields, never their values.
 */
export async function readSlackSecret(ctx: ToolContext, fresh = false): Promise<SlackSecret> {
  return parseSlackSecret(await ctx.secret(SLACK_SECRET, { fresh }));
}

/**
 * Checks a `slack_*` secret's form: also what `etp secrets seed --ref-kind inline`
 * checks a value against before sealing it.
 *
 * @param name - the secret's name, said in the message as GitHub's and PagerDuty's are
 *   (`Slack secret slack_default is invalid in: bot_tokn (unknown field)…`). @default {@link SLACK_SECRET}
 * @throws SecretInvalidError naming the secret and its faulty fields, never their values.
 */
export function parseSlackSecret(secret: Record<string, unknown>, name: string = SLACK_SECRET): SlackSecret {
  const parsed = slackSecretSchema().safeParse(secret);
  if (parsed.success) return parsed.data;
  const label = `Slack secret ${name}`;
  const shape = notJsonObjectProblem(secret);
  if (shape)
    throw new SecretInvalidError(`${label} is invalid: ${shape}. ${ACCEPTED_SECRET}`, {
      service: 'slack',
    });
  // Other fields are allowed beside the two (a Slack secret often keeps the app's signing secret too),
  // but when neither is there, a misspelt one is the likely cause: it is named.
  const unknownKeys = Object.keys(secret).filter((key) => key !== 'bot_token' && key !== 'webhook_url');
  const lacksBoth = secret.bot_token === undefined && secret.webhook_url === undefined;
  const issues = lacksBoth
    ? [...parsed.error.issues, { code: 'unrecognized_keys', path: [], keys: unknownKeys }]
    : parsed.error.issues;
  const fields = faultyFields(issues, secret);
  throw new SecretInvalidError(`${label} is invalid in: ${fields.join(', ')}. ${ACCEPTED_SECRET}`, {
    service: 'slack',
  });
}

/**
 * The bot token, or a clear `secret_invalid` for a tool that needs the Web API
 * when the tenant only has an incoming webhook (which can only post to its own
 * channel, cannot read, and returns no message ts).
 */
export function requireBotToken(secret: SlackSecret, tool: string, scopes: string): string {
  if (secret.bot_token) return secret.bot_token;
  throw new SecretInvalidError(
    `${tool} needs a bot token: the tenant's ${SLACK_SECRET} has only webhook_url, and an incoming webhook can only post to its own channel. Add { "bot_token": "xoxb-…" } from a Slack app with ${scopes} (docs/slack.md)`,
    { service: 'slack' },
  );
}

/** Web API methods that only read: safe to repeat after a timeout or a 5xx. */
const READ_METHODS: ReadonlySet<string> = new Set([
  'conversations.history',
  'conversations.replies',
  'auth.test',
]);

/**
 * Per-host limit for slack.com: Slack's Web API tiers allow 20-100+ calls a
 * minute per method ("Rate limits"); this only flattens a burst, and Slack's
 * own 429 + `Retry-After` is honored within the deadline.
 */
const SLACK_API_RATE = { burst: 10, perSecond: 5 };

/** Longest attempt of one Web API request, ms. */
const SLACK_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * One attempt's timeout for the time left: a third of it (at least 1 s, at most
 * 10 s), so that after a post whose answer never came there is time left to
 * look for it in the channel instead of sending it again.
 *
 * @example slackAttemptTimeoutMs(21_000) // 7_000
 */
export function slackAttemptTimeoutMs(remainingMs: number): number {
  return Math.min(SLACK_ATTEMPT_TIMEOUT_MS, Math.max(1_000, Math.floor(remainingMs / 3)));
}

/** The platform HTTP client for one Slack call (rate-limit state per tenant). */
export function slackHttp(ctx: ToolContext): HttpClient {
  return createHttpClient({
    deadline: ctx.deadline,
    logger: ctx.logger,
    partition: ctx.tenant,
    service: 'slack',
    rateLimit: SLACK_API_RATE,
    attemptTimeoutMs: slackAttemptTimeoutMs(ctx.deadline.remainingMs()),
    // Every Web API call is a POST; reads may be repeated, writes only when Slack
    // certainly did not act: a refused connection, a DNS failure, a 429 ("Rate limits":
    // a rate-limited call is not processed).
    isIdempotent: (_method, url) => READ_METHODS.has(url.pathname.split('/').pop() ?? ''),
    retryThrottled: true,
  });
}

/**
 * A WebClient for one call. Its own retry and rate-limit handling are off
 * (`retries: 0`, `rejectRateLimitedCalls`): its transport is the platform HTTP
 * client, which retries only what is safe, honors `Retry-After` within the
 * deadline, and is stopped by the deadline's signal. Its logger is quiet: a
 * failure is reported once, in the result.
 */
export function slackWebClient(ctx: ToolContext, token: string): WebClient {
  const http = slackHttp(ctx);
  return new WebClient(token, {
    slackApiUrl: slackApiUrl(),
    fetch: async (input, init) => refuseUnclear200(refuseUnusable429(await http.fetch(input, init), input)),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: sdkLogger(ctx),
    logLevel: LogLevel.ERROR,
  });
}

/**
 * A 429 whose `Retry-After` is missing or not a number of seconds ("Rate limits":
 * Slack sends one; a proxy in front of it may not), after the HTTP client's own
 * retries: `@slack/web-api` would throw a plain `Error` ("Retry header did not
 * contain a valid timeout"), read as `internal_error`. Thrown instead as the
 * answer it is (`HttpStatusError` 429, service `slack`): `mapSlackError` reads it
 * as `throttled`, retryable, nothing posted.
 */
function refuseUnusable429(response: Response, input: string | URL | Request): Response {
  if (
    response.status !== 429 ||
    !Number.isNaN(Number.parseInt(response.headers.get('retry-after') ?? '', 10))
  )
    return response;
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  throw new HttpStatusError(new URL(href).host, 429, '', undefined, 'slack');
}

/**
 * An HTTP 200 that is no Web API answer ({@link isWebApiAnswer}: `{}`, `null`, a word
 * such as `ok`, an HTML page) thrown as `SlackUnclearAnswerError` (upstream_error,
 * effect unknown) before `@slack/web-api` reads it: the SDK makes a non-JSON body the
 * `error` string of an `ok: false` answer (a refusal: nothing posted, so a retry would
 * post again), an object without `ok` one with no `error`, and fails on a JSON `null`.
 */
async function refuseUnclear200(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const body = await response.text();
  if (!isWebApiAnswer(body)) throw new SlackUnclearAnswerError(body);
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * The SDK's log lines (its own "[ERROR] …" for an answer the tool reports anyway)
 * go to the call's logger at debug level, through the redactor, never to the console.
 */
function sdkLogger(ctx: ToolContext): SlackLogger {
  let level = LogLevel.ERROR;
  const debug = (...msg: unknown[]) => ctx.logger.debug('slack sdk', { sdk: msg.map(String).join(' ') });
  return {
    debug,
    info: debug,
    warn: debug,
    error: debug,
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * The Web API for one call, with docs/design.md's auth rule: after `invalid_auth`,
 * `token_expired`, `token_revoked` or `not_authed`, the secret is read again
 * bypassing every cache, once, and the request repeated with a new token (an
 * auth failure means Slack did nothing). The same token again: the error stands.
 */
export class SlackSession {
  #token: string;
  #client: WebClient;
  #refreshed = false;

  constructor(
    private readonly ctx: ToolContext,
    token: string,
  ) {
    this.#token = token;
    this.#client = slackWebClient(ctx, token);
  }

  /** Runs one Web API request. */
  async api<T>(request: (client: WebClient) => Promise<T>): Promise<T> {
    try {
      return await request(this.#client);
    } catch (err) {
      if (this.#refreshed || !SLACK_AUTH_ERRORS.has(slackErrorString(err) ?? '')) throw err;
      this.#refreshed = true;
      const fresh = await readSlackSecret(this.ctx, true);
      if (!fresh.bot_token || fresh.bot_token === this.#token) throw err;
      this.ctx.logger.info('Slack token re-read after an auth failure', {
        slackError: slackErrorString(err),
      });
      this.#token = fresh.bot_token;
      this.#client = slackWebClient(this.ctx, fresh.bot_token);
      return request(this.#client);
    }
  }
}

/**
 * Posts one payload to an incoming webhook ("Sending messages using incoming
 * webhooks"): JSON, answered `ok` or an HTTP error whose plain-text body is the
 * error string; any other answer is an unknown outcome (`upstream_error`,
 * `details.effect: 'unknown'`). Not repeated once sent (a webhook has no way to find a message
 * again); a 429 is (Slack did not post it). The URL never appears in an error
 * or a log: the HTTP client reports the host only.
 *
 * @throws HttpStatusError (service `slack`) mapped by `mapSlackError` (`no_service` → not_found…).
 * @throws HttpRequestError when no answer came (`reached: 'maybe'` after sending).
 */
export async function postToWebhook(
  ctx: ToolContext,
  webhookUrl: string,
  payload: Record<string, unknown>,
): Promise<void> {
  // Incoming webhooks: about 1 message per second ("Rate limits"), short bursts allowed.
  const http = createHttpClient({
    deadline: ctx.deadline,
    logger: ctx.logger,
    partition: ctx.tenant,
    service: 'slack',
    rateLimit: { burst: 3, perSecond: 1 },
    attemptTimeoutMs: slackAttemptTimeoutMs(ctx.deadline.remainingMs()),
  });
  const answer = await http.requestOk({
    method: 'POST',
    url: webhookUrl,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    idempotent: false,
    retryThrottled: true,
  });
  // Only Slack's `ok` says it posted: an empty, HTML or other 2xx body (a proxy, a
  // captive portal) leaves the post unknown, never reported as done.
  assertClearWrite(
    { status: answer.status, contentType: answer.headers['content-type'], body: answer.text },
    {
      service: 'slack',
      write: 'post to the incoming webhook',
      expected: 'the body "ok"',
      acknowledges: (body) => body.trim() === 'ok',
    },
  );
}
