import { DescribeInstancesCommand, DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { z } from 'zod/mini';
import { clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import { authFailuresOf } from '../../../functions/runtime/credential-renewal';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import type { ToolErrorInfo } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { EnvSecretProvider } from '../../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import type { SecretValueProvider } from '../../../functions/runtime/secrets/value-provider';
import { defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { ec2InventoryTool } from '../../../functions/tools/aws/ec2-inventory';
import { defineSlackTool } from '../../../functions/tools/slack/define';
import { ec2Error } from '../../helpers/aws-errors';
import { toolInvocation } from '../../helpers/events';

const ec2 = mockClient(EC2Client);
const sts = mockClient(STSClient);

/** Static keys before and after a rotation (fake test values in the shape of AWS's documented example). */
const OLD_KEYS = {
  access_key_id: 'AKIAOLDFAKETESTKEY01',
  secret_access_key: 'old/FAKE/test/secret/access/key/000000000',
  region: 'eu-west-1',
};
const NEW_KEYS = {
  access_key_id: 'AKIANEWFAKETESTKEY02',
  secret_access_key: 'new/FAKE/test/secret/access/key/111111111',
  region: 'eu-west-1',
};

/**
 * Tool-host services whose tenant `default` reads `aws_default` and
 * `slack_default` from `env` (an object the test changes to rotate a secret),
 * with the resolver's 300 s cache on.
 */
function rotatingServices(env: Record<string, string>) {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'TEST_AWS' },
    { tenant_id: 'default', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'TEST_SLACK' },
  ]);
  const provider = new EnvSecretProvider(env);
  const reads: string[] = [];
  const counted: SecretValueProvider = {
    read: async (reference, maxAgeSeconds) => {
      reads.push(`${reference.secret_name}@${maxAgeSeconds}`);
      return provider.read(reference);
    },
  };
  const resolver = new SecretResolver(store, {
    providers: { env: counted, secrets_manager: counted },
    ttlSeconds: 300,
  });
  return { services: toolHostServices(resolver), reads };
}

/** The access key id the EC2 client of a mocked call signs with. */
async function signingKey(getClient: () => unknown): Promise<string> {
  const { credentials } = (getClient() as { config: { credentials: () => Promise<{ accessKeyId: string }> } })
    .config;
  return (await credentials()).accessKeyId;
}

/** A Slack Web API error as `@slack/web-api` throws it (`slack_webapi_platform_error`). */
function slackPlatformError(error: string): Error {
  return Object.assign(new Error(`An API error occurred: ${error}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error },
  });
}

/** A tool reading `slack_default` whose Slack call fails with invalid_auth for `badToken`. */
function slackProbe(
  badToken: string,
  sideEffects: 'none' | 'write',
  retryAfterSecretRenewal?: boolean,
): Tool {
  const spec = defineToolSpec({
    name: 'slack_probe',
    description: 'Reads the Slack secret and calls Slack.',
    inputSchema: () => z.strictObject({}),
    tags: ['slack'],
    service: 'slack',
    requiresSecrets: ['slack_default'],
    sideEffects,
    iam: [],
    ...(retryAfterSecretRenewal === undefined ? {} : { retryAfterSecretRenewal }),
  });
  // The Slack connector's tools map Slack's errors with its own table (functions/tools/slack/errors.ts).
  return defineSlackTool(spec, async (ctx) => {
    const { bot_token } = await ctx.secret('slack_default');
    if (bot_token === badToken) throw slackPlatformError('invalid_auth');
    return { value: { posted: true }, summary: 'posted' };
  }) as unknown as Tool;
}

const invocation = toolInvocation({ tool: 'aws_ec2_inventory', args: { regions: ['eu-west-1'] } });

beforeEach(() => {
  ec2.reset();
  sts.reset();
  clearAssumedRoleCache();
  // Refused keys are refused by every EC2 action: the region explainer's DescribeRegions too,
  // so a region's auth failure stays auth_failed (regions-not-callable.test.ts covers the rest).
  ec2
    .on(DescribeRegionsCommand)
    .rejects(ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials'));
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('authFailuresOf()', () => {
  const failure = (details: Record<string, unknown>, code: ToolErrorInfo['code'] = 'auth_failed') => ({
    code,
    message: 'x',
    retryable: false,
    details,
  });

  it.each([
    'AuthFailure',
    'InvalidClientTokenId',
    'SignatureDoesNotMatch',
    'UnrecognizedClientException',
    'ExpiredToken',
    'ExpiredTokenException',
  ])('names the AWS auth failure %s', (name) => {
    expect(authFailuresOf(failure({ awsError: name }))).toEqual([name]);
  });

  it.each(['invalid_auth', 'token_expired', 'token_revoked'])('names the Slack auth failure %s', (name) => {
    expect(authFailuresOf(failure({ slackError: name }))).toEqual([name]);
  });

  it('finds the regions’ failures of a fan-out that failed as a whole', () => {
    // Prepare
    const error = failure({
      regions: [
        { region: 'eu-west-1', error: failure({ awsError: 'AuthFailure' }) },
        { region: 'us-east-1', error: failure({ awsError: 'AuthFailure' }) },
      ],
    });

    // Act / Assess
    expect(authFailuresOf(error)).toEqual(['AuthFailure']);
  });

  it.each([
    ['another auth_failed cause', failure({ awsError: 'MissingAuthenticationToken' })],
    ['a Slack not_authed (no token sent)', failure({ slackError: 'not_authed' })],
    ['an access_denied error', failure({ awsError: 'AuthFailure' }, 'access_denied')],
  ])('names nothing for %s', (_kind, error) => {
    expect(authFailuresOf(error)).toEqual([]);
  });
});

describe('renewal after an auth failure, in the harness (every tool)', () => {
  it('re-reads a rotated AWS secret bypassing the caches and runs the call once more', async () => {
    // Prepare: the cached key was rotated; AWS refuses it with AuthFailure (EC2 API reference, "Error codes").
    const env = { TEST_AWS: JSON.stringify(OLD_KEYS) };
    const { services, reads } = rotatingServices(env);
    ec2.on(DescribeInstancesCommand).callsFake(async (_input, getClient) => {
      if ((await signingKey(getClient)) === OLD_KEYS.access_key_id) {
        throw ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials');
      }
      return { Reservations: [] };
    });
    await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services); // caches the old key
    env.TEST_AWS = JSON.stringify(NEW_KEYS);
    reads.length = 0;

    // Act
    const result = await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services);

    // Assess: one read from the cache (old key), one fresh read (maxAge 0), then the retry from the cache.
    expect(result).toMatchObject({ ok: true, value: { totalInstances: 0 } });
    expect(reads).toEqual(['aws_default@0']);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(2 + 1);
  });

  it('keeps the failure, without a second run, when the re-read secret did not change', async () => {
    // Prepare
    const { services, reads } = rotatingServices({ TEST_AWS: JSON.stringify(OLD_KEYS) });
    ec2
      .on(DescribeInstancesCommand)
      .rejects(ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials'));

    // Act
    const result = await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services);

    // Assess: read once (cache miss), once fresh; EC2 called once.
    expect(result).toMatchObject({ ok: false, error: { code: 'auth_failed' } });
    expect(reads).toEqual(['aws_default@300', 'aws_default@0']);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
  });

  it('renews once: a second auth failure after the retry is the result', async () => {
    // Prepare: the secret changes on every read, and every key is refused.
    let rotation = 0;
    const env = {
      get TEST_AWS() {
        rotation++;
        return JSON.stringify({
          ...OLD_KEYS,
          access_key_id: `AKIAROTATINGFAKE${String(rotation).padStart(4, '0')}`,
        });
      },
    } as unknown as Record<string, string>;
    const { services, reads } = rotatingServices(env);
    ec2.on(DescribeInstancesCommand).rejects(ec2Error('AuthFailure', 'refused'));

    // Act
    const result = await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services);

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'auth_failed' } });
    expect(reads).toEqual(['aws_default@300', 'aws_default@0']);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(2);
  });

  it('does not re-read anything after a failure that is not an auth failure', async () => {
    // Prepare
    const { services, reads } = rotatingServices({ TEST_AWS: JSON.stringify(OLD_KEYS) });
    ec2.on(DescribeInstancesCommand).rejects(ec2Error('UnauthorizedOperation', 'not authorized'));

    // Act
    const result = await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services);

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'access_denied' } });
    expect(reads).toEqual(['aws_default@300']);
  });

  it('re-assumes the customer role once when STS says the session expired (ExpiredToken)', async () => {
    // Prepare: the first session is refused as expired before the expiration STS gave.
    const { services } = rotatingServices({
      TEST_AWS: JSON.stringify({ role_arn: 'arn:aws:iam::210987654321:role/ExternalToolsPlatformAudit' }),
    });
    const session = (key: string) => ({
      Credentials: {
        AccessKeyId: key,
        SecretAccessKey: `fake/test/secret/${key}`,
        SessionToken: `fake-test-token-${key}`,
        Expiration: new Date(Date.now() + 3_600_000),
      },
    });
    sts
      .on(AssumeRoleCommand)
      .resolvesOnce(session('ASIAFIRSTFAKETEST001'))
      .resolves(session('ASIASECONDFAKETEST02'));
    ec2.on(DescribeInstancesCommand).callsFake(async (_input, getClient) => {
      if ((await signingKey(getClient)) === 'ASIAFIRSTFAKETEST001') {
        throw ec2Error('ExpiredToken', 'The security token included in the request is expired');
      }
      return { Reservations: [] };
    });

    // Act
    const result = await runTool(ec2InventoryTool, invocation, deadlineIn(30_000), services);

    // Assess
    expect(result).toMatchObject({ ok: true });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it('runs a Slack read tool once more after invalid_auth with a rotated token', async () => {
    // Prepare
    const env = { TEST_SLACK: '{"bot_token":"xoxb-old-fake-test"}' };
    const { services } = rotatingServices(env);
    const tool = slackProbe('xoxb-old-fake-test', 'none');
    await runTool(tool, toolInvocation({ tool: 'slack_probe', args: {} }), deadlineIn(5_000), services);
    env.TEST_SLACK = '{"bot_token":"xoxb-new-fake-test"}';

    // Act
    const result = await runTool(
      tool,
      toolInvocation({ tool: 'slack_probe', args: {} }),
      deadlineIn(5_000),
      services,
    );

    // Assess
    expect(result).toMatchObject({ ok: true, value: { posted: true } });
  });

  it('never runs a write tool twice unless it declares the retry safe', async () => {
    // Prepare
    const env = { TEST_SLACK: '{"bot_token":"xoxb-old-fake-test"}' };
    const { services } = rotatingServices(env);
    const blind = slackProbe('xoxb-old-fake-test', 'write');
    const declared = slackProbe('xoxb-old-fake-test', 'write', true);
    const call = toolInvocation({ tool: 'slack_probe', args: {} });
    await runTool(blind, call, deadlineIn(5_000), services);
    env.TEST_SLACK = '{"bot_token":"xoxb-new-fake-test"}';

    // Act
    const writeResult = await runTool(blind, call, deadlineIn(5_000), services);
    const declaredResult = await runTool(declared, call, deadlineIn(5_000), services);

    // Assess: the cache still held the old token for the write tool; the declared one renewed.
    expect(writeResult).toMatchObject({ ok: false, error: { code: 'auth_failed' } });
    expect(declaredResult).toMatchObject({ ok: true });
  });
});
