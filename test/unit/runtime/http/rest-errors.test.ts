/**
 * The one error mapping of REST connectors (rest-errors.ts) with GitHub's and
 * PagerDuty's error tables, and the quota header readers.
 */
import type { HttpResponse } from '../../../../functions/runtime/http/client';
import { quotaHeaders } from '../../../../functions/runtime/http/rate-limit-headers';
import { mapRestError, parseJsonBody } from '../../../../functions/runtime/http/rest-errors';
import { githubErrors } from '../../../../functions/tools/github/connector';
import { pagerdutyErrors } from '../../../../functions/tools/pagerduty/connector';

const NOW = 1_700_000_000_000;
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
  const response: HttpResponse = { status, headers, text: body === undefined ? '' : JSON.stringify(body) };
  return { response, body: parseJsonBody(response.text) };
};

describe('mapRestError with GitHub', () => {
  it('a fine-grained token without a permission: access_denied naming it', () => {
    const error = mapRestError(
      answer(
        403,
        { message: 'Resource not accessible by personal access token' },
        { 'x-accepted-github-permissions': 'issues=write' },
      ),
      'github',
      'GitHub',
      githubErrors,
      NOW,
    );
    expect(error).toMatchObject({
      code: 'access_denied',
      details: { missingScope: 'the permission issues=write (fine-grained token or app)' },
    });
  });

  it('a classic token that has an accepted scope is not told it lacks one', () => {
    const error = mapRestError(
      answer(
        403,
        { message: 'Must have admin rights to Repository.' },
        { 'x-accepted-oauth-scopes': 'repo', 'x-oauth-scopes': 'repo, read:org' },
      ),
      'github',
      'GitHub',
      githubErrors,
      NOW,
    );
    expect(error.code).toBe('access_denied');
    expect(error.details?.missingScope).toBeUndefined();
    expect(error.message).toContain('Must have admin rights to Repository.');
  });

  it('the primary limit spent (403, x-ratelimit-remaining 0): throttled until x-ratelimit-reset', () => {
    const error = mapRestError(
      answer(
        403,
        { message: 'API rate limit exceeded for user ID 1.' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 120) },
      ),
      'github',
      'GitHub',
      githubErrors,
      NOW,
    );
    expect(error).toMatchObject({
      code: 'throttled',
      retryable: true,
      details: { retryAfterMs: 120_000, retryAfterSeconds: 120 },
    });
  });

  it('a secondary limit without Retry-After waits a minute, as GitHub advises', () => {
    const error = mapRestError(
      answer(403, { message: 'You have exceeded a secondary rate limit' }),
      'github',
      'GitHub',
      githubErrors,
      NOW,
    );
    expect(error).toMatchObject({ code: 'throttled', details: { retryAfterMs: 60_000 } });
  });

  it('a 422 lists field messages and codes', () => {
    const error = mapRestError(
      answer(422, {
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }, 'labels is too long'],
      }),
      'github',
      'GitHub',
      githubErrors,
      NOW,
    );
    expect(error).toMatchObject({
      code: 'invalid_args',
      details: { fields: ['title: missing_field', 'labels is too long'] },
    });
  });

  it('an HTML error page (a proxy) keeps no body in the message', () => {
    const response: HttpResponse = {
      status: 502,
      headers: {},
      text: '<html><body>Bad gateway</body></html>',
    };
    const error = mapRestError({ response, body: undefined }, 'github', 'GitHub', githubErrors, NOW);
    expect(error).toMatchObject({
      code: 'upstream_error',
      retryable: true,
      message: 'GitHub failed (HTTP 502)',
    });
  });
});

describe('mapRestError with PagerDuty', () => {
  it('reads { error: { code, message, errors } }', () => {
    const error = mapRestError(
      answer(400, {
        error: { code: 2001, message: 'Invalid Input Provided', errors: ['Incident Id is invalid'] },
      }),
      'pagerduty',
      'PagerDuty',
      pagerdutyErrors,
      NOW,
    );
    expect(error).toMatchObject({
      code: 'invalid_args',
      message:
        'PagerDuty refused the request (HTTP 400): Invalid Input Provided (code 2001) — Incident Id is invalid',
      details: { fields: ['Incident Id is invalid'] },
    });
  });

  it('a 403 names the scope the request declared', () => {
    const error = mapRestError(
      answer(403, { error: { code: 2010, message: 'Access Denied' } }),
      'pagerduty',
      'PagerDuty',
      pagerdutyErrors,
      NOW,
      'incidents.write',
    );
    expect(error).toMatchObject({
      code: 'access_denied',
      details: { missingScope: 'the incidents.write scope (this request needs it)' },
    });
  });
});

describe('quotaHeaders', () => {
  it('reads epoch seconds and deltas; absent or malformed headers read as none', () => {
    const epoch = quotaHeaders({
      remaining: 'x-ratelimit-remaining',
      reset: 'x-ratelimit-reset',
      resetUnit: 'epoch_seconds',
    });
    const delta = quotaHeaders({
      remaining: 'ratelimit-remaining',
      reset: 'ratelimit-reset',
      resetUnit: 'delta_seconds',
    });
    const response = (headers: Record<string, string>): HttpResponse => ({ status: 200, headers, text: '' });
    expect(
      epoch(response({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '1700000060' }), NOW),
    ).toEqual({ remaining: 12, resetAtMs: 1_700_000_060_000 });
    expect(delta(response({ 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }), NOW)).toEqual({
      remaining: 0,
      resetAtMs: NOW + 30_000,
    });
    expect(
      epoch(response({ 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '1' }), NOW),
    ).toBeUndefined();
    expect(epoch(response({}), NOW)).toBeUndefined();
  });
});
