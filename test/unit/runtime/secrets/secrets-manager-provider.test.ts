import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { SecretNotFoundError } from '../../../../functions/runtime/errors';
import { normalizeError } from '../../../../functions/runtime/normalize-error';
import { EnvSecretProvider } from '../../../../functions/runtime/secrets/providers';
import type { SecretReference } from '../../../../functions/runtime/secrets/reference';
import { SecretResolver } from '../../../../functions/runtime/secrets/resolver';
import {
  SecretsManagerSecretProvider,
  secretRegion,
  secretsManagerClient,
} from '../../../../functions/runtime/secrets/secrets-manager-provider';
import { queryError, secretsManagerNotFound } from '../../../helpers/aws-errors';

const secretsManager = mockClient(SecretsManagerClient);

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:etp/acme/slack-AbCdEf';

const reference: SecretReference = {
  tenant_id: 'acme',
  secret_name: 'slack_default',
  ref_kind: 'secrets_manager',
  ref_value: SECRET_ARN,
};

/** A GetSecretValue response (Secrets Manager API reference, "GetSecretValue"). */
function secretValue(value: { SecretString: string } | { SecretBinary: Uint8Array }) {
  return {
    ARN: SECRET_ARN,
    Name: 'etp/acme/slack',
    VersionId: 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111',
    VersionStages: ['AWSCURRENT'],
    CreatedDate: new Date('2024-05-01T00:00:00Z'),
    ...value,
  };
}

/** A resolver over one Secrets Manager reference, read with the provider's default clients. */
function resolverFor() {
  const store = {
    get: async () => reference,
    list: async () => [reference],
    put: async (row: SecretReference) => row,
    delete: async () => false,
  };
  const resolver = new SecretResolver(store, {
    providers: { env: new EnvSecretProvider({}), secrets_manager: new SecretsManagerSecretProvider() },
  });
  return { resolver };
}

describe('SecretsManagerSecretProvider (Powertools Parameters)', () => {
  beforeEach(() => {
    secretsManager.reset();
  });

  it('reads a JSON SecretString, which the resolver uses as is', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
      .resolves(secretValue({ SecretString: '{"bot_token":"xoxb-fake-test-example"}' })); // fake test example
    const { resolver } = resolverFor();

    // Act
    const value = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual({ bot_token: 'xoxb-fake-test-example' }); // fake test example
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('wraps a plain SecretString as { value }', async () => {
    // Prepare
    secretsManager.on(GetSecretValueCommand).resolves(secretValue({ SecretString: 'plain-fake-test' }));
    const { resolver } = resolverFor();

    // Act
    const value = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual({ value: 'plain-fake-test' });
  });

  it('reads a SecretBinary as UTF-8', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand)
      .resolves(secretValue({ SecretBinary: new TextEncoder().encode('{"webhook_url":"fake-test"}') }));
    const provider = new SecretsManagerSecretProvider();

    // Act
    const raw = await provider.read(reference, 300);

    // Assess
    expect(raw).toBe('{"webhook_url":"fake-test"}');
  });

  it('serves its cache within the TTL and fetches again on forceRefresh', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand)
      .resolvesOnce(secretValue({ SecretString: '{"bot_token":"fake-test-old"}' }))
      .resolves(secretValue({ SecretString: '{"bot_token":"fake-test-rotated"}' }));
    const { resolver } = resolverFor();

    // Act
    const first = await resolver.resolve('acme', 'slack_default');
    const cached = await resolver.resolve('acme', 'slack_default');
    const refreshed = await resolver.resolve('acme', 'slack_default', true);

    // Assess
    expect(first).toEqual({ bot_token: 'fake-test-old' });
    expect(cached).toEqual({ bot_token: 'fake-test-old' });
    expect(refreshed).toEqual({ bot_token: 'fake-test-rotated' });
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('maps ResourceNotFoundException to secret_not_found naming the secret, never its value', async () => {
    // Prepare
    secretsManager.on(GetSecretValueCommand).rejects(secretsManagerNotFound());
    const provider = new SecretsManagerSecretProvider();

    // Act
    const read = provider.read(reference, 300);

    // Assess
    await expect(read).rejects.toBeInstanceOf(SecretNotFoundError);
    await expect(read).rejects.toMatchObject({
      code: 'secret_not_found',
      service: 'secretsmanager',
      message: `Secret "slack_default" of tenant "acme" points at a Secrets Manager secret that does not exist (${SECRET_ARN})`,
    });
  });

  it('lets other AWS errors through unwrapped, so they normalize by their AWS name', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand)
      .rejects(
        queryError('AccessDeniedException', 'not authorized to perform: secretsmanager:GetSecretValue'),
      );
    const provider = new SecretsManagerSecretProvider();

    // Act
    const error = await provider.read(reference, 300).catch((err: unknown) => err);

    // Assess
    expect(normalizeError('slack_post_message', error)).toMatchObject({
      code: 'access_denied',
      retryable: false,
      details: { awsError: 'AccessDeniedException' },
    });
  });

  it("reads each secret in its ARN's region, whatever the function's region, one client per region", async () => {
    // Prepare: the function runs in us-east-1 (AWS_REGION of the test environment).
    const sydney = 'arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:etp/acme/aws-XyZ123';
    const regionsAsked: Record<string, string> = {};
    secretsManager.on(GetSecretValueCommand).callsFake(async (input, getClient) => {
      const client = getClient(); // the client of the latest send: read before awaiting
      regionsAsked[input.SecretId] = await client.config.region();
      return secretValue({ SecretString: '{"value":"fake-test"}' });
    });
    const createClient = jest.fn(secretsManagerClient);
    const provider = new SecretsManagerSecretProvider(createClient);

    // Act
    await provider.read(reference, 0);
    await provider.read({ ...reference, secret_name: 'aws_default', ref_value: sydney }, 0);
    await provider.read(reference, 0);

    // Assess
    expect(process.env.AWS_REGION).toBe('us-east-1');
    expect(regionsAsked).toEqual({ [SECRET_ARN]: 'eu-west-1', [sydney]: 'ap-southeast-2' });
    expect(createClient.mock.calls).toEqual([['eu-west-1'], ['ap-southeast-2']]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(3);
  });
});

describe('secretRegion()', () => {
  it.each([
    [SECRET_ARN, 'eu-west-1'],
    ['arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:etp/x-AbCdEf', 'us-gov-west-1'],
    ['arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:etp/x-AbCdEf', 'cn-north-1'],
    ['etp/acme/slack', undefined],
  ])('reads the region of %s as %s', (secretId, region) => {
    expect(secretRegion(secretId)).toBe(region);
  });
});
