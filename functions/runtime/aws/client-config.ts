import type { AwsAccess } from './credentials';
import { type AwsRequestHandlerOptions, awsRequestHandler } from './http-timeouts';
import { CallBoundRequestHandler } from './request-handler';

/**
 * Attempts per AWS call, first try included. The SDK's `standard` retry mode
 * backs off on throttling and 5xx with jitter (AWS SDK docs, "Retry behavior");
 * configured here once for every tool.
 */
export const AWS_MAX_ATTEMPTS = 4;

/** Configuration every AWS SDK v3 client of a tool is created with. */
export interface AwsClientConfig {
  readonly region: string;
  readonly credentials: AwsAccess['credentials'];
  readonly maxAttempts: number;
  readonly retryMode: 'standard';
  /**
   * The HTTP timeouts of {@link awsRequestHandler}; with the call's hard stop when
   * the access carries one ({@link CallBoundRequestHandler}).
   */
  readonly requestHandler: AwsRequestHandlerOptions | CallBoundRequestHandler;
}

/**
 * Client configuration for one region. Tools create their clients per call with
 * this: the credentials belong to the tenant of the call, so a module-scope client
 * could serve the wrong tenant; and every request of such a client is aborted at
 * the call's hard stop (`access.signal`), so none runs on after the call returned.
 *
 * @example
 * const ec2 = new EC2Client(awsClientConfig(access, 'eu-west-1'));
 */
export function awsClientConfig(access: AwsAccess, region: string = access.region): AwsClientConfig {
  return {
    region,
    credentials: access.credentials,
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: access.signal ? new CallBoundRequestHandler(access.signal) : awsRequestHandler(),
  };
}
