/**
 * Rotated secrets and expired sessions, handled once for every tool: after an
 * auth failure, the secrets the call resolved are read again bypassing every
 * cache, once, and the call is run again once if something changed
 * (docs/design.md, "Secret references"; docs/tenant-isolation.md, "Rotation").
 */
import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { AwsAccess } from './aws/credentials';
import { type ErrorMapper, normalizeError } from './normalize-error';
import type { ToolErrorInfo } from './result';

/**
 * AWS error names that say the credentials were refused (AWS API references,
 * "Common Errors"): a rotated access key, a revoked or expired session.
 */
export const AWS_AUTH_FAILURES: ReadonlySet<string> = new Set([
  'AuthFailure',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
]);

/** AWS error names of a session that expired before the expiration STS gave: the role is assumed again. */
const AWS_EXPIRED_SESSION: ReadonlySet<string> = new Set(['ExpiredToken', 'ExpiredTokenException']);

/** Slack Web API `error` strings of a refused token (api.slack.com, "Web API error codes"). */
export const SLACK_AUTH_FAILURES: ReadonlySet<string> = new Set([
  'invalid_auth',
  'token_expired',
  'token_revoked',
]);

/** Deepest nesting of `details.regions[].error` searched for a region's auth failure. */
const MAX_DETAIL_DEPTH = 4;

/**
 * The auth failures a normalized error reports: its own AWS error name or Slack
 * error string, and those of each region of a fan-out that failed as a whole
 * (`details.regions[].error`). Only `auth_failed` errors are looked at.
 *
 * @example authFailuresOf({ code: 'auth_failed', message: '…', retryable: false,
 *   details: { awsError: 'InvalidClientTokenId' } }) // ['InvalidClientTokenId']
 */
export function authFailuresOf(error: ToolErrorInfo, depth = 0): string[] {
  if (error.code !== 'auth_failed' || depth > MAX_DETAIL_DEPTH) return [];
  const details = error.details ?? {};
  const own = [details.awsError, details.slackError].filter(
    (name): name is string =>
      typeof name === 'string' && (AWS_AUTH_FAILURES.has(name) || SLACK_AUTH_FAILURES.has(name)),
  );
  const regions = Array.isArray(details.regions) ? details.regions : [];
  const nested = regions.flatMap((region: unknown) => {
    const inner = (region as { error?: ToolErrorInfo } | null)?.error;
    return inner && typeof inner === 'object' ? authFailuresOf(inner, depth + 1) : [];
  });
  return [...new Set([...own, ...nested])];
}

function fingerprint(value: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * What one call resolved that a renewal may change: each secret (as a digest of
 * its value, never the value) and each assumed-role access. The context records
 * into it; {@link runRenewingOnce} renews from it after an auth failure.
 */
export class CallCredentials {
  readonly #secrets = new Map<string, { digest: string; fresh: boolean }>();
  readonly #accesses: AwsAccess[] = [];

  /** Records a secret the call resolved; `fresh` when it was read bypassing the caches. */
  recordSecret(name: string, value: Record<string, unknown>, fresh: boolean): void {
    const known = this.#secrets.get(name);
    this.#secrets.set(name, { digest: fingerprint(value), fresh: fresh || (known?.fresh ?? false) });
  }

  /** Records the AWS access the call built. */
  recordAccess(access: AwsAccess): void {
    this.#accesses.push(access);
  }

  /**
   * Renews what the failure points at, once: each secret the call resolved and has
   * not already read fresh is read again bypassing every cache, and each
   * assumed-role session is dropped when STS said it expired.
   *
   * @param reread - reads a secret bypassing every cache.
   * @returns what changed (`secret:<name>`, `aws_session`); empty when nothing did,
   *   or when a re-read failed (the call's own failure stands).
   */
  async renew(
    failures: readonly string[],
    reread: (name: string) => Promise<Record<string, unknown>>,
  ): Promise<string[]> {
    const changed: string[] = [];
    for (const [name, known] of this.#secrets) {
      if (known.fresh) continue;
      let value: Record<string, unknown>;
      try {
        value = await reread(name);
      } catch {
        continue;
      }
      this.#secrets.set(name, { digest: fingerprint(value), fresh: true });
      if (fingerprint(value) !== known.digest) changed.push(`secret:${name}`);
    }
    if (failures.some((name) => AWS_EXPIRED_SESSION.has(name))) {
      const sessions = this.#accesses.filter((access) => access.invalidate);
      for (const access of sessions) access.invalidate?.();
      if (sessions.length > 0) changed.push('aws_session');
    }
    return changed;
  }
}

/** What {@link runRenewingOnce} runs. */
export interface RenewingRun<T> {
  /** The tool's name, service and own error table, for normalizing its error. */
  readonly tool: { readonly name: string; readonly service?: string; readonly mapError?: ErrorMapper };
  /** Whether the call may run a second time (see `ToolSpec.retryAfterSecretRenewal`). */
  readonly mayRetry: boolean;
  /** Runs the call with a context recording into `credentials`. */
  readonly run: (credentials: CallCredentials) => Promise<T>;
  /** Reads a secret of the call's tenant bypassing every cache. */
  readonly reread: (name: string) => Promise<Record<string, unknown>>;
  readonly logger: Pick<Logger, 'info'>;
}

/**
 * Runs a call; when it fails with an auth failure ({@link authFailuresOf}) and
 * may be retried, renews its credentials once ({@link CallCredentials.renew}) and,
 * when a secret's value changed or an expired session was dropped, runs it once
 * more with a fresh context. Otherwise the first failure stands.
 *
 * @throws the call's error (the second attempt's, after a retry).
 */
export async function runRenewingOnce<T>(call: RenewingRun<T>): Promise<T> {
  const credentials = new CallCredentials();
  try {
    return await call.run(credentials);
  } catch (err) {
    if (!call.mayRetry) throw err;
    const failures = authFailuresOf(
      normalizeError(call.tool.name, err, call.tool.service, call.tool.mapError),
    );
    if (failures.length === 0) throw err;
    const renewed = await credentials.renew(failures, call.reread);
    if (renewed.length === 0) throw err;
    call.logger.info('credentials renewed after an auth failure; running the call once more', {
      tool: call.tool.name,
      failures,
      renewed,
    });
    return call.run(new CallCredentials());
  }
}
