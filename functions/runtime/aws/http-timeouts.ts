/**
 * The one HTTP timeout policy of the platform's AWS SDK clients, in a module of
 * its own: the tools' client configuration (client-config.ts) and the platform's
 * own clients (STS, DynamoDB, Secrets Manager) both use it.
 */

/** How long one HTTP attempt of an AWS SDK client may wait, in ms. */
export interface AwsHttpTimeouts {
  /** To establish the TCP (and TLS) connection. */
  readonly connectionTimeoutMs: number;
  /** From sending the request to the response's headers; also the longest silence while its body streams. */
  readonly requestTimeoutMs: number;
}

/**
 * The one HTTP timeout policy of every AWS SDK client the platform creates (the
 * tools' clients, STS AssumeRole, the secret-reference table, Secrets Manager).
 * The SDK's own defaults wait minutes (no request timeout; a service "socket
 * timeout" of 5 to 15 minutes), longer than a tool's whole Lambda timeout.
 *
 * - `connectionTimeoutMs` 3 s: a regional endpoint connects in well under 100 ms;
 *   3 s still survives two lost SYNs (Linux retransmits after 1 s, then 2 s), and
 *   a black-holed network then fails an attempt in 3 s, not after minutes.
 * - `requestTimeoutMs` 15 s: AWS read APIs answer in under a few seconds, even
 *   for a page of 1,000 EC2 instances or a grouped Cost Explorer query; 15 s keeps
 *   a wide margin for them, while the {@link AWS_MAX_ATTEMPTS} attempts on an
 *   endpoint that never answers (4 × 15 s plus under 1 s of backoff, about 61 s)
 *   fail the region inside a 120 s tool and leave the other regions their time.
 *   Tools with 60 s are cut by their deadline instead (`runTool` returns
 *   `timeout` when the deadline passes first).
 *
 * Not for the dispatcher's Lambda client: an Invoke legitimately waits for as
 * long as the tool runs, and is bounded by the call's deadline (`abortSignal`).
 */
export const AWS_HTTP_TIMEOUTS: AwsHttpTimeouts = { connectionTimeoutMs: 3_000, requestTimeoutMs: 15_000 };

/**
 * `@smithy/node-http-handler` options (`NodeHttpHandlerOptions`), which SDK v3
 * clients accept as their `requestHandler`.
 */
export interface AwsRequestHandlerOptions {
  readonly connectionTimeout: number;
  readonly requestTimeout: number;
  /** Without it the handler only logs a warning when `requestTimeout` passes (node-http-handler 4.x). */
  readonly throwOnRequestTimeout: true;
  /** Idle time allowed on the socket once the response has started; replaces the service default of minutes. */
  readonly socketTimeout: number;
}

/**
 * The `requestHandler` option that applies `timeouts` to an SDK client: an
 * attempt past either timeout fails with a `TimeoutError` (normalized as
 * `timeout`), which the SDK's retry strategy retries like other transient errors.
 *
 * @param timeouts - @default {@link AWS_HTTP_TIMEOUTS}; tests pass smaller ones.
 * @example
 * const dynamodb = new DynamoDBClient({ requestHandler: awsRequestHandler() });
 */
export function awsRequestHandler(timeouts: AwsHttpTimeouts = AWS_HTTP_TIMEOUTS): AwsRequestHandlerOptions {
  return {
    connectionTimeout: timeouts.connectionTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    throwOnRequestTimeout: true,
    socketTimeout: timeouts.requestTimeoutMs,
  };
}
