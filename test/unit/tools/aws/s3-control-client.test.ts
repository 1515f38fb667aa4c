/**
 * S3 Control at an emulator's IP-address endpoint: refused before the SDK builds
 * `http://<account id>.<IP>/` (no URL; the SDK printed a stack trace on stderr and
 * failed with a bare TypeError), with a message that says what to set.
 */
import { GetPublicAccessBlockCommand } from '@aws-sdk/client-s3-control';
import { awsClientConfig } from '../../../../functions/runtime/aws/client-config';
import { PlatformError } from '../../../../functions/runtime/errors';
import { s3ControlClient, s3ControlEndpointProblem } from '../../../../functions/tools/aws/s3/control-client';

const CONFIG = awsClientConfig({
  mode: 'static',
  region: 'us-east-1',
  // AWS docs example keys
  credentials: async () => ({
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  }),
});

describe('s3ControlEndpointProblem', () => {
  it.each([
    [{ AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' }, 'AWS_ENDPOINT_URL', '123456789012.127.0.0.1'],
    [{ AWS_ENDPOINT_URL_S3_CONTROL: 'http://[::1]:5000' }, 'AWS_ENDPOINT_URL_S3_CONTROL', '123456789012.::1'],
    [
      { AWS_ENDPOINT_URL: 'http://localhost:5000', AWS_ENDPOINT_URL_S3_CONTROL: 'http://10.0.0.5' },
      'AWS_ENDPOINT_URL_S3_CONTROL',
      '123456789012.10.0.0.5',
    ],
  ])('refuses an IP-address endpoint (%j), naming the variable and what to set', (env, variable, host) => {
    // Act
    const problem = s3ControlEndpointProblem(env);

    // Assess
    expect(problem).toBeInstanceOf(PlatformError);
    expect(problem).toMatchObject({ code: 'internal_error', service: 's3control' });
    expect(problem?.message).toContain(
      `(${variable}): it puts the account id before the endpoint's host (${host})`,
    );
    expect(problem?.message).toContain('Set AWS_ENDPOINT_URL_S3_CONTROL to a host name');
  });

  it.each([
    ['no configured endpoint', {}],
    ['a host name', { AWS_ENDPOINT_URL: 'http://localhost:5000' }],
    [
      'a host name for S3 Control over an IP for the rest',
      { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000', AWS_ENDPOINT_URL_S3_CONTROL: 'http://s3-control.test' },
    ],
    [
      'configured endpoints ignored',
      { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' },
    ],
    ['a malformed URL, left to the SDK', { AWS_ENDPOINT_URL: 'not a url' }],
  ])('finds none with %s', (_case, env) => {
    expect(s3ControlEndpointProblem(env)).toBeUndefined();
  });
});

describe('s3ControlClient', () => {
  it('fails every request with the problem before resolving the endpoint, printing nothing', async () => {
    // Prepare
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const client = s3ControlClient(CONFIG, { AWS_ENDPOINT_URL: 'http://127.0.0.1:9' });

    try {
      // Act
      const sent = client.send(new GetPublicAccessBlockCommand({ AccountId: '123456789012' }));

      // Assess
      await expect(sent).rejects.toMatchObject({
        code: 'internal_error',
        message: expect.stringContaining(
          'S3 Control cannot be called at http://127.0.0.1:9 (AWS_ENDPOINT_URL)',
        ),
      });
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      client.destroy();
      consoleError.mockRestore();
    }
  });

  it('adds no check when the endpoint can take the account id', () => {
    const client = s3ControlClient(CONFIG, {});
    expect(
      client.middlewareStack.identify().some((entry) => entry.startsWith('etpS3ControlEndpointCheck')),
    ).toBe(false);
    client.destroy();
  });
});
