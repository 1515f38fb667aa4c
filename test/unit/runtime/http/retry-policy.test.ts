import { HttpRequestError } from '../../../../functions/runtime/http/errors';
import { retryDecision } from '../../../../functions/runtime/http/retry-policy';

const context = (overrides = {}) => ({
  attempt: 1,
  maxRetries: 2,
  idempotent: false,
  retryThrottled: false,
  remainingMs: 10_000,
  random: () => 0.5,
  ...overrides,
});

describe('retryDecision()', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])(
    'retries a POST that failed with %s: it never reached the server',
    (code) => {
      expect(retryDecision({ code }, context())).toEqual({ retry: true, waitMs: 150 });
    },
  );

  // Node.js "X509 certificate error codes", the whole list: each is a handshake refused before any HTTP byte.
  it.each([
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_CRL',
    'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
    'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
    'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
    'CERT_SIGNATURE_FAILURE',
    'CRL_SIGNATURE_FAILURE',
    'CERT_NOT_YET_VALID',
    'CERT_HAS_EXPIRED',
    'CRL_NOT_YET_VALID',
    'CRL_HAS_EXPIRED',
    'ERROR_IN_CERT_NOT_BEFORE_FIELD',
    'ERROR_IN_CERT_NOT_AFTER_FIELD',
    'ERROR_IN_CRL_LAST_UPDATE_FIELD',
    'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
    'OUT_OF_MEM',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'CERT_CHAIN_TOO_LONG',
    'CERT_REVOKED',
    'INVALID_CA',
    'PATH_LENGTH_EXCEEDED',
    'INVALID_PURPOSE',
    'CERT_UNTRUSTED',
    'CERT_REJECTED',
    'HOSTNAME_MISMATCH',
  ])('retries a POST whose certificate was refused (%s): the handshake sent no HTTP byte', (code) => {
    expect(retryDecision({ code }, context())).toEqual({ retry: true, waitMs: 150 });
    expect(new HttpRequestError('hooks.example.com', 'POST', { code }).reached).toBe('no');
  });

  it.each(['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT'])(
    'does not retry a POST that failed with %s after it may have been sent, but retries a GET',
    (code) => {
      expect(retryDecision({ code }, context())).toMatchObject({ retry: false });
      expect(retryDecision({ code }, context({ idempotent: true }))).toMatchObject({ retry: true });
    },
  );

  it('retries 5xx only for idempotent requests, with doubling backoff', () => {
    expect(retryDecision({ status: 503 }, context())).toEqual({
      retry: false,
      reason: 'a non-idempotent request is not retried on HTTP 503',
    });
    expect(retryDecision({ status: 503 }, context({ idempotent: true, attempt: 2 }))).toEqual({
      retry: true,
      waitMs: 300,
    });
  });

  it('waits Retry-After on a 429 when the server did not act on the request', () => {
    expect(retryDecision({ status: 429, retryAfterSeconds: 3 }, context({ retryThrottled: true }))).toEqual({
      retry: true,
      waitMs: 3_000,
    });
    expect(retryDecision({ status: 429, retryAfterSeconds: 3 }, context())).toMatchObject({ retry: false });
  });

  it('never waits past the time left', () => {
    expect(retryDecision({ status: 429, retryAfterSeconds: 30 }, context({ retryThrottled: true }))).toEqual({
      retry: false,
      reason: 'a wait of 30000 ms does not fit the 10000 ms left',
    });
  });

  it('stops after maxRetries', () => {
    expect(retryDecision({ code: 'ECONNREFUSED' }, context({ attempt: 3 }))).toEqual({
      retry: false,
      reason: 'retries exhausted',
    });
  });

  it.each([400, 401, 404])('does not retry HTTP %i', (status) => {
    expect(retryDecision({ status }, context({ idempotent: true }))).toMatchObject({ retry: false });
  });
});
