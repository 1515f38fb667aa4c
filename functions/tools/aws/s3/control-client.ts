/**
 * The S3 Control client of `aws_s3_inventory`, refusing up front an endpoint it
 * cannot reach. S3 Control's endpoint rules put the account id before the
 * endpoint's host (`https://123456789012.s3-control.eu-west-1.amazonaws.com`,
 * and `http://123456789012.<host>` for a configured endpoint): with an IP address
 * as the host (`AWS_ENDPOINT_URL=http://127.0.0.1:5000`, an emulator) that is no
 * URL, and the SDK prints a stack trace on stderr (`Failed to construct URL with …`)
 * before failing with a bare `TypeError: Invalid URL`.
 */
import { isIP } from 'node:net';
import { S3ControlClient } from '@aws-sdk/client-s3-control';
import type { AwsClientConfig } from '../../../runtime/aws/client-config';
import { PlatformError } from '../../../runtime/errors';

/**
 * The endpoint the SDK would use for S3 Control from the environment, with the
 * variable that set it: `AWS_ENDPOINT_URL_S3_CONTROL`, else `AWS_ENDPOINT_URL`,
 * none when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true` (AWS SDKs and Tools
 * Reference Guide, "Service-specific endpoints"). A profile's `endpoint_url` is not read here.
 */
function configuredEndpoint(env: NodeJS.ProcessEnv): { variable: string; url: string } | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true') return undefined;
  for (const variable of ['AWS_ENDPOINT_URL_S3_CONTROL', 'AWS_ENDPOINT_URL']) {
    const url = env[variable];
    if (url) return { variable, url };
  }
  return undefined;
}

/**
 * Why S3 Control cannot be called at the configured endpoint, or undefined when it can.
 *
 * @example s3ControlEndpointProblem({ AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' }) // PlatformError (internal_error)
 */
export function s3ControlEndpointProblem(env: NodeJS.ProcessEnv): PlatformError | undefined {
  const configured = configuredEndpoint(env);
  if (!configured) return undefined;
  let host: string;
  try {
    host = new URL(configured.url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined; // The SDK refuses a malformed URL itself, naming the variable.
  }
  if (isIP(host) === 0) return undefined;
  return new PlatformError(
    'internal_error',
    `S3 Control cannot be called at ${configured.url} (${configured.variable}): it puts the account id ` +
      `before the endpoint's host (123456789012.${host}), which an IP address cannot take. ` +
      'Set AWS_ENDPOINT_URL_S3_CONTROL to a host name whose subdomains resolve to the emulator; ' +
      "until then the account's Block Public Access and its access points are unknown",
    { service: 's3control' },
  );
}

/**
 * An S3 Control client with `config`; when {@link s3ControlEndpointProblem}
 * finds one, every request it sends fails with that error before the endpoint
 * is resolved (an `initialize` middleware), so the callers' own error handling
 * reports it as for any failed request.
 */
export function s3ControlClient(
  config: AwsClientConfig,
  env: NodeJS.ProcessEnv = process.env,
): S3ControlClient {
  const client = new S3ControlClient(config);
  const problem = s3ControlEndpointProblem(env);
  if (problem) {
    client.middlewareStack.add(
      () => async () => {
        throw problem;
      },
      { step: 'initialize', name: 'etpS3ControlEndpointCheck' },
    );
  }
  return client;
}
