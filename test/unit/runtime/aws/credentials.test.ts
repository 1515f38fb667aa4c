import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ASSUME_ROLE_DURATION_SECONDS,
  awsAccessFromSecret,
  CREDENTIAL_REFRESH_MARGIN_MS,
  cachedCustomerSessions,
  clearAssumedRoleCache,
  MAX_CACHED_CUSTOMER_SESSIONS,
  roleSessionName,
} from '../../../../functions/runtime/aws/credentials';
import { clampSessionDuration, sourceIdentityOf } from '../../../../functions/runtime/aws/trust';
import { SecretInvalidError } from '../../../../functions/runtime/errors';
import { normalizeError } from '../../../../functions/runtime/normalize-error';
import { credentialsProviderError, queryError } from '../../../helpers/aws-errors';

const sts = mockClient(STSClient);

const ROLE_ARN = 'arn:aws:iam::123456789012:role/etp-audit';
const request = { tenant: 'acme', runId: 'aws_pulse-2024-05-01T06-00', callId: 'collect/0' };
const T0 = Date.parse('2024-05-01T06:00:00.000Z');

/** An AssumeRole response (STS API reference, "AssumeRole"); every value is fake. */
function assumed(keySuffix: string, expiration: Date) {
  return {
    Credentials: {
      AccessKeyId: `ASIAFAKETESTEXAMPL${keySuffix}`, // fake test example
      SecretAccessKey: `fake/test/example/secret/${keySuffix}`, // fake test example
      SessionToken: `FwoGZXIvYXdzEfakeTESTexample${keySuffix}`, // fake test example
      Expiration: expiration,
    },
    AssumedRoleUser: {
      AssumedRoleId: 'AROAFAKETESTEXAMPLE00:etp',
      Arn: 'arn:aws:sts::123456789012:assumed-role/etp-audit/etp',
    },
  };
}

/** The SecretInvalidError thrown for `secret`. */
function invalid(secret: Record<string, unknown>): SecretInvalidError {
  try {
    awsAccessFromSecret(secret, request);
  } catch (err) {
    if (err instanceof SecretInvalidError) return err;
    throw err;
  }
  throw new Error('expected SecretInvalidError');
}

describe('awsAccessFromSecret()', () => {
  const savedRegion = process.env.AWS_REGION;
  let now = T0;

  beforeEach(() => {
    sts.reset();
    clearAssumedRoleCache();
    now = T0;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    process.env.AWS_REGION = 'eu-central-1';
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (savedRegion === undefined) delete process.env.AWS_REGION;
    else process.env.AWS_REGION = savedRegion;
  });

  describe('payload shapes', () => {
    it('uses the own role (default chain) for {} in the AWS_REGION', async () => {
      // Act
      const access = awsAccessFromSecret({}, request);

      // Assess: the default chain finds the fake keys of test/helpers/fake-aws-environment.ts
      expect(access).toMatchObject({ mode: 'own_role', region: 'eu-central-1' });
      expect(await access.credentials()).toMatchObject({ accessKeyId: 'test-fake-access-key-id' });
    });

    it('uses the own role for { region }, one default chain shared by every call', () => {
      // Act
      const first = awsAccessFromSecret({ region: 'eu-west-1' }, request);
      const second = awsAccessFromSecret({}, request);

      // Assess
      expect(first).toMatchObject({ mode: 'own_role', region: 'eu-west-1' });
      expect(first.credentials).toBe(second.credentials);
    });

    it('uses static keys', async () => {
      // Prepare
      const secret = {
        access_key_id: 'AKIAIOSFODNN7EXAMPLE', // AWS docs example
        secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // AWS docs example
        region: 'us-west-2',
      };

      // Act
      const access = awsAccessFromSecret(secret, request);

      // Assess
      expect(access.mode).toBe('static');
      expect(access.region).toBe('us-west-2');
      expect(await access.credentials?.()).toEqual({
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE', // AWS docs example
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // AWS docs example
        sessionToken: undefined,
      });
      expect(sts.calls()).toHaveLength(0);
    });

    it('assumes a role, lazily', () => {
      // Act
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN, external_id: 'etp-acme-fake' }, request);

      // Assess
      expect(access).toMatchObject({ mode: 'assume_role', region: 'eu-central-1', roleArn: ROLE_ARN });
      expect(typeof access.credentials).toBe('function');
      expect(sts.calls()).toHaveLength(0);
    });
  });

  describe('secret_invalid', () => {
    it('names the wrong field, never its value', () => {
      // Act
      const err = invalid({ role_arn: 'fake-secret-value-test', region: 'Europe' });

      // Assess
      expect(err.code).toBe('secret_invalid');
      expect(err.message).toBe(
        'AWS secret is invalid in: role_arn (an IAM role ARN), region (an AWS region such as eu-west-1). Accepted fields: role_arn, external_id?, region?',
      );
      expect(err.message).not.toContain('fake-secret-value-test');
    });

    it('counts unknown fields that all read <redacted>, rather than saying one', () => {
      // Act: three credential-shaped keys (AWS docs example key ids, a Slack-shaped token).
      const err = invalid({
        AKIAIOSFODNN7EXAMPLE: 'x',
        AKIAI44QH8DHBEXAMPLE: 'x',
        'xoxb-000000000001-000000000002-FAKEtestEXAMPLE': 'x',
        password: 'x',
      });

      // Assess
      expect(err.message).toMatch(
        /^AWS secret is invalid in: <redacted> \(unknown field\) ×3, password \(unknown field\)\. /,
      );
    });

    it('cuts a very long unknown field name, so the reasons and accepted fields still show', () => {
      // Act
      const err = invalid({ ['k'.repeat(20_000)]: 'x' });

      // Assess
      expect(err.message).toBe(
        `AWS secret is invalid in: ${'k'.repeat(63)}… (unknown field). Accepted fields: region? (the function's own role); ` +
          'to assume a role: role_arn, external_id?, region?; ' +
          'for static keys: access_key_id, secret_access_key, session_token?, region?',
      );
    });

    it('says a field of the wrong JSON type is one, and what type it takes', () => {
      // Act
      const err = invalid({ role_arn: 5 });

      // Assess
      expect(err.message).toBe(
        'AWS secret is invalid in: role_arn (expected a string). Accepted fields: role_arn, external_id?, region?',
      );
    });

    it('names a short secret_access_key without showing it', () => {
      // Act
      const err = invalid({ access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'shortFAKE' }); // fake example

      // Assess
      expect(err.message).toBe(
        'AWS secret is invalid in: secret_access_key. Accepted fields: access_key_id, secret_access_key, session_token?, region?',
      );
      expect(err.message).not.toContain('shortFAKE');
      expect(err.message).not.toContain('AKIAIOSFODNN7EXAMPLE');
    });

    it.each([
      ['a typo (role_arm)', { role_arm: ROLE_ARN }, ' in: role_arm (unknown field)'],
      [
        'a JSON array read as { value }',
        { value: '["fake-test-plain-secret"]' },
        ': it is JSON but an array, not an object',
      ],
      ['a JSON number read as { value }', { value: '42' }, ': it is JSON but a number, not an object'],
      ['JSON null read as { value }', { value: 'null' }, ': it is JSON but null, not an object'],
      [
        'a plain string read as { value }',
        { value: 'fake-test-plain-secret' },
        ': it is not a JSON object but plain text',
      ],
      [
        'a truncated JSON object read as { value }',
        { value: '{"access_key_id":"AKIAIOSFODNN7EXAMPLE","secret_access_key":"fake-test-plain-secret"' },
        ': it is not a JSON object: it starts with { but does not parse as JSON',
      ],
    ])('refuses %s instead of silently using the own role', (_kind, secret, problem) => {
      // Act
      const err = invalid(secret);

      // Assess
      expect(err.message).toBe(
        `AWS secret is invalid${problem}. Accepted fields: region? (the function's own role); ` +
          'to assume a role: role_arn, external_id?, region?; ' +
          'for static keys: access_key_id, secret_access_key, session_token?, region?',
      );
      expect(err.message).not.toContain('fake-test-plain-secret');
    });
  });

  describe('assume role through STS', () => {
    it('calls AssumeRole with the session name, ExternalId and duration', async () => {
      // Prepare
      sts.on(AssumeRoleCommand).resolves(assumed('A1', new Date(T0 + 3_600_000)));
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN, external_id: 'etp-acme-fake' }, request);

      // Act
      const credentials = await access.credentials?.();

      // Assess
      expect(sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input)).toEqual([
        {
          RoleArn: ROLE_ARN,
          RoleSessionName: 'etp-aws_pulse-2024-05-01T06-00',
          ExternalId: 'etp-acme-fake',
          DurationSeconds: ASSUME_ROLE_DURATION_SECONDS,
          SourceIdentity: 'etp.acme',
          Tags: [
            { Key: 'etp-tenant', Value: 'acme' },
            { Key: 'etp-scenario', Value: 'none' },
            { Key: 'etp-run', Value: 'aws_pulse-2024-05-01T06-00' },
          ],
        },
      ]);
      expect(ASSUME_ROLE_DURATION_SECONDS).toBe(3600);
      expect(credentials).toEqual({
        accessKeyId: 'ASIAFAKETESTEXAMPLA1', // fake test example
        secretAccessKey: 'fake/test/example/secret/A1', // fake test example
        sessionToken: 'FwoGZXIvYXdzEfakeTESTexampleA1', // fake test example
        expiration: new Date(T0 + 3_600_000),
      });
    });

    it('reuses cached credentials until 5 minutes before expiry, then refreshes', async () => {
      // Prepare
      const expiry = T0 + 3_600_000;
      sts
        .on(AssumeRoleCommand)
        .resolvesOnce(assumed('A1', new Date(expiry)))
        .resolves(assumed('B2', new Date(expiry + 3_600_000)));
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);

      // Act
      const first = await access.credentials?.();
      now = expiry - CREDENTIAL_REFRESH_MARGIN_MS - 1;
      const second = await awsAccessFromSecret({ role_arn: ROLE_ARN }, request).credentials?.();
      now = expiry - CREDENTIAL_REFRESH_MARGIN_MS;
      const third = await access.credentials?.();

      // Assess
      expect(CREDENTIAL_REFRESH_MARGIN_MS).toBe(300_000);
      expect(first?.accessKeyId).toBe('ASIAFAKETESTEXAMPLA1'); // fake test example
      expect(second).toBe(first);
      expect(third?.accessKeyId).toBe('ASIAFAKETESTEXAMPLB2'); // fake test example
      expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
    });

    it('shares one AssumeRole between concurrent callers (a region fan-out)', async () => {
      // Prepare
      sts.on(AssumeRoleCommand).resolves(assumed('A1', new Date(T0 + 3_600_000)));
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);

      // Act
      const all = await Promise.all(Array.from({ length: 6 }, () => access.credentials?.()));

      // Assess
      expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(1);
      expect(new Set(all.map((c) => c?.accessKeyId))).toEqual(new Set(['ASIAFAKETESTEXAMPLA1'])); // fake test
    });

    it('assumes the role again for another run, so CloudTrail attributes each call to its run', async () => {
      // Prepare
      sts.on(AssumeRoleCommand).resolves(assumed('A1', new Date(T0 + 3_600_000)));

      // Act
      await awsAccessFromSecret({ role_arn: ROLE_ARN }, request).credentials?.();
      await awsAccessFromSecret({ role_arn: ROLE_ARN }, { ...request, callId: 'collect/1' }).credentials?.();
      await awsAccessFromSecret({ role_arn: ROLE_ARN }, { ...request, runId: 'next-run' }).credentials?.();

      // Assess
      expect(sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input.RoleSessionName)).toEqual([
        'etp-aws_pulse-2024-05-01T06-00',
        'etp-next-run',
      ]);
    });

    it(`keeps at most ${MAX_CACHED_CUSTOMER_SESSIONS} sessions, one per run, and none once expired`, async () => {
      // Prepare: a warm container serving many runs.
      sts.on(AssumeRoleCommand).callsFake(async () => assumed('A1', new Date(now + 3_600_000)));

      // Act
      for (let run = 0; run < MAX_CACHED_CUSTOMER_SESSIONS + 44; run++) {
        await awsAccessFromSecret({ role_arn: ROLE_ARN }, { ...request, runId: `run-${run}` }).credentials();
      }
      const held = cachedCustomerSessions();
      now += 3_600_000;
      const afterExpiry = cachedCustomerSessions();

      // Assess
      expect(held).toBe(MAX_CACHED_CUSTOMER_SESSIONS);
      expect(afterExpiry).toBe(0);
    });

    it('assumes again once after invalidate() (STS said ExpiredToken), sharing nothing with other tenants', async () => {
      // Prepare
      sts
        .on(AssumeRoleCommand)
        .resolvesOnce(assumed('A1', new Date(T0 + 3_600_000)))
        .resolves(assumed('B2', new Date(T0 + 3_600_000)));
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);
      const first = await access.credentials();

      // Act
      access.invalidate?.();
      const second = await access.credentials();
      const otherTenant = await awsAccessFromSecret(
        { role_arn: ROLE_ARN },
        { ...request, tenant: 'globex' },
      ).credentials();

      // Assess
      expect([first.accessKeyId, second.accessKeyId]).toEqual([
        'ASIAFAKETESTEXAMPLA1',
        'ASIAFAKETESTEXAMPLB2',
      ]); // fake test
      expect(otherTenant.accessKeyId).toBe('ASIAFAKETESTEXAMPLB2'); // fake test: a new AssumeRole, not acme's session
      expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input.SourceIdentity)).toEqual([
        'etp.acme',
        'etp.acme',
        'etp.globex',
      ]);
    });

    it('fails with secret_invalid when STS returns no credentials', async () => {
      // Prepare
      sts.on(AssumeRoleCommand).resolves({});
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);

      // Act
      const resolved = access.credentials?.();

      // Assess
      await expect(resolved).rejects.toMatchObject({
        code: 'secret_invalid',
        message: `STS returned no credentials for ${ROLE_ARN}`,
      });
    });

    it('says a role was to be assumed when there are no credentials to call STS with, naming the field', async () => {
      // Prepare
      sts.on(AssumeRoleCommand).rejects(credentialsProviderError());
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);

      // Act
      const resolved = access.credentials?.();

      // Assess
      await expect(resolved).rejects.toMatchObject({
        code: 'auth_failed',
        service: 'sts',
        message:
          "No AWS credentials were found to call STS with, so the role of the AWS secret's role_arn could not be assumed: " +
          'set AWS_PROFILE (a profile of ~/.aws/config) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ' +
          '(and AWS_SESSION_TOKEN for temporary keys) to credentials allowed to assume it',
      });
    });

    it('lets an STS error through: it normalizes to access_denied, and nothing is cached', async () => {
      // Prepare
      sts
        .on(AssumeRoleCommand)
        .rejectsOnce(
          queryError('AccessDenied', `User is not authorized to perform: sts:AssumeRole on ${ROLE_ARN}`),
        )
        .resolves(assumed('A1', new Date(T0 + 3_600_000)));
      const access = awsAccessFromSecret({ role_arn: ROLE_ARN }, request);

      // Act
      const error = await access.credentials?.().catch((err: unknown) => err);
      const retried = await access.credentials?.();

      // Assess
      expect(normalizeError('aws_ec2_inventory', error, 'sts')).toMatchObject({
        code: 'access_denied',
        retryable: false,
      });
      expect(retried?.accessKeyId).toBe('ASIAFAKETESTEXAMPLA1'); // fake test example
    });
  });
});

describe('session identity', () => {
  it.each([
    [43_200, 3600],
    [3600, 3600],
    [1800, 1800],
    [60, 900],
    [Number.NaN, 3600],
  ])('clamps a session of %p s to %p s (role chaining caps it at 1 hour)', (requested, clamped) => {
    expect(clampSessionDuration(requested)).toBe(clamped);
  });

  it('names the tenant in SourceIdentity, within 64 characters of [\\w+=,.@-], long ids kept distinct', () => {
    // Prepare
    const long = 'a'.repeat(100);

    // Act
    const identities = [sourceIdentityOf('acme'), sourceIdentityOf(`${long}1`), sourceIdentityOf(`${long}2`)];

    // Assess
    expect(identities[0]).toBe('etp.acme');
    for (const identity of identities) expect(identity).toMatch(/^[\w+=,.@-]{2,64}$/);
    expect(new Set(identities).size).toBe(3);
  });
});

describe('roleSessionName()', () => {
  it.each([
    ['run:2024/05 #1', 'etp-run-2024-05--1'],
    ['exec_1+a=b,c.d@e-f', 'etp-exec_1+a=b,c.d@e-f'],
    ['', 'etp-'],
  ])('sanitizes %p to %p', (runId, expected) => {
    expect(roleSessionName(runId)).toBe(expected);
  });

  it('cuts long run ids to 64 characters of [\\w+=,.@-]', () => {
    // Prepare: Step Functions execution names go up to 80 characters.
    const runId = `${'x'.repeat(70)}:tail`;

    // Act
    const name = roleSessionName(runId);

    // Assess
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^[\w+=,.@-]{2,64}$/);
    expect(name.startsWith('etp-xxxx')).toBe(true);
  });
});

describe('awsAccessFromSecret() strict forms', () => {
  const request = { tenant: 'default', runId: 'run-1', callId: 'collect/0' };

  it.each([
    [
      {
        access_key_id: 'AKIAIOSFODNN7EXAMPLE',
        secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        regoin: 'eu-west-1',
      },
      'regoin (unknown field)',
    ], // AWS docs example keys
    [
      {
        role_arn: 'arn:aws:iam::123456789012:role/etp-audit',
        access_key_id: 'AKIAIOSFODNN7EXAMPLE',
        secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      'access_key_id (unknown field), secret_access_key (unknown field)',
    ], // AWS docs example keys
  ])('refuses an unknown or mixed field, naming it (%#)', (secret, named) => {
    // Act / Assess
    expect(() => awsAccessFromSecret(secret, request)).toThrow(`AWS secret is invalid in: ${named}.`);
  });
});
