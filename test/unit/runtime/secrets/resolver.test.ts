import { UnsupportedRefKindError } from '../../../../functions/runtime/errors';
import type { SecretReference, SecretReferenceStore } from '../../../../functions/runtime/secrets/reference';
import { DEFAULT_SECRET_TTL_SECONDS, SecretResolver } from '../../../../functions/runtime/secrets/resolver';
import type { SecretValueProvider } from '../../../../functions/runtime/secrets/value-provider';

/** A store over fixed rows that counts reads; rows are not validated (a hand-written row may be wrong). */
class FixedStore implements SecretReferenceStore {
  reads = 0;
  constructor(private readonly rows: SecretReference[]) {}
  async get(tenantId: string, secretName: string) {
    this.reads++;
    return this.rows.find((row) => row.tenant_id === tenantId && row.secret_name === secretName);
  }
  async list() {
    return [...this.rows];
  }
  async put(reference: SecretReference) {
    return reference;
  }
  async delete() {
    return false;
  }
}

/** A provider answering `values` in turn, recording the maxAge of each read. */
class ScriptedProvider implements SecretValueProvider {
  readonly maxAges: number[] = [];
  constructor(private readonly values: string[]) {}
  async read(_reference: SecretReference, maxAgeSeconds: number) {
    this.maxAges.push(maxAgeSeconds);
    return this.values[Math.min(this.maxAges.length, this.values.length) - 1] ?? '';
  }
}

const slackRow: SecretReference = {
  tenant_id: 'acme',
  secret_name: 'slack_default',
  ref_kind: 'env',
  ref_value: 'ACME_SLACK',
};

function setup(rows: SecretReference[] = [slackRow], options: { ttlSeconds?: number } = {}) {
  let now = 1_700_000_000_000;
  const store = new FixedStore(rows);
  const env = new ScriptedProvider(['{"bot_token":"fake-test-1"}', '{"bot_token":"fake-test-2"}']);
  const secretsManager = new ScriptedProvider([]);
  const resolver = new SecretResolver(store, {
    ...options,
    providers: { env, secrets_manager: secretsManager },
    now: () => now,
  });
  return { store, env, resolver, advance: (ms: number) => (now += ms) };
}

describe('SecretResolver', () => {
  const savedTtl = process.env.SECRETS_CACHE_TTL_SECONDS;
  afterEach(() => {
    if (savedTtl === undefined) delete process.env.SECRETS_CACHE_TTL_SECONDS;
    else process.env.SECRETS_CACHE_TTL_SECONDS = savedTtl;
  });

  it('parses the value and serves it from the cache within the TTL', async () => {
    // Prepare
    const { store, env, resolver, advance } = setup();

    // Act
    const first = await resolver.resolve('acme', 'slack_default');
    advance((DEFAULT_SECRET_TTL_SECONDS - 1) * 1000);
    const second = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(DEFAULT_SECRET_TTL_SECONDS).toBe(300);
    expect(first).toEqual({ bot_token: 'fake-test-1' });
    expect(second).toEqual({ bot_token: 'fake-test-1' });
    expect(store.reads).toBe(1);
    expect(env.maxAges).toEqual([300]);
  });

  it('reads again once the TTL has passed', async () => {
    // Prepare
    const { store, env, resolver, advance } = setup();

    // Act
    await resolver.resolve('acme', 'slack_default');
    advance(DEFAULT_SECRET_TTL_SECONDS * 1000);
    const after = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(after).toEqual({ bot_token: 'fake-test-2' });
    expect(store.reads).toBe(2);
    expect(env.maxAges).toEqual([300, 300]);
  });

  it('reads again on forceRefresh, asking the provider for a fresh value (maxAge 0)', async () => {
    // Prepare
    const { env, resolver } = setup();

    // Act
    await resolver.resolve('acme', 'slack_default');
    const refreshed = await resolver.resolve('acme', 'slack_default', true);
    const cached = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(refreshed).toEqual({ bot_token: 'fake-test-2' });
    expect(cached).toEqual({ bot_token: 'fake-test-2' });
    expect(env.maxAges).toEqual([300, 0]);
  });

  it('hands out copies: changing a resolved value leaves the cache as it was', async () => {
    // Prepare
    const { resolver } = setup();
    const first = await resolver.resolve('acme', 'slack_default');

    // Act
    first.bot_token = 'changed';

    // Assess
    expect(await resolver.resolve('acme', 'slack_default')).toEqual({ bot_token: 'fake-test-1' });
  });

  it('does not cache with a TTL of 0', async () => {
    // Prepare
    const { store, resolver } = setup([slackRow], { ttlSeconds: 0 });

    // Act
    await resolver.resolve('acme', 'slack_default');
    await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(store.reads).toBe(2);
  });

  it.each([
    ['60', 60],
    ['', 300],
    ['  ', 300],
    ['not-a-number', 300],
    ['-5', 300],
  ])('takes SECRETS_CACHE_TTL_SECONDS=%p as a TTL of %i s', async (configured, ttl) => {
    // Prepare
    process.env.SECRETS_CACHE_TTL_SECONDS = configured;
    const { store, resolver, advance } = setup();

    // Act
    await resolver.resolve('acme', 'slack_default');
    advance(ttl * 1000 - 1);
    await resolver.resolve('acme', 'slack_default');
    const readsWithinTtl = store.reads;
    advance(1);
    await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(readsWithinTtl).toBe(1);
    expect(store.reads).toBe(2);
  });

  it('fails with secret_not_found when the tenant has no reference', async () => {
    // Prepare
    const { resolver } = setup();

    // Act
    const resolved = resolver.resolve('acme', 'aws_default');

    // Assess
    await expect(resolved).rejects.toMatchObject({
      code: 'secret_not_found',
      message:
        'Tenant "acme" has no secret reference named "aws_default" and environment variable ' +
        'ETP_SECRET_ACME__AWS_DEFAULT is not set',
    });
  });

  it('refuses a conventional variable set but empty as secret_invalid, not as unset', async () => {
    // Prepare
    const resolver = new SecretResolver(new FixedStore([]), {
      env: { ETP_SECRET_ACME__AWS_DEFAULT: '' },
      providers: { env: new ScriptedProvider([]), secrets_manager: new ScriptedProvider([]) },
    });

    // Act
    const resolved = resolver.resolve('acme', 'aws_default');

    // Assess
    await expect(resolved).rejects.toMatchObject({
      code: 'secret_invalid',
      message:
        'Tenant "acme" has no secret reference named "aws_default" and environment variable ' +
        'ETP_SECRET_ACME__AWS_DEFAULT is set but empty',
    });
  });

  it('fails with unsupported_ref_kind for a row no provider handles, listing the supported kinds', async () => {
    // Prepare
    const { env, resolver } = setup([{ ...slackRow, ref_kind: 'vault' }]);

    // Act
    const resolved = resolver.resolve('acme', 'slack_default');

    // Assess
    await expect(resolved).rejects.toBeInstanceOf(UnsupportedRefKindError);
    await expect(resolved).rejects.toMatchObject({
      code: 'unsupported_ref_kind',
      message: 'Unsupported ref_kind "vault". Supported: env, secrets_manager, inline',
    });
    expect(env.maxAges).toEqual([]);
  });

  it('forgets every value on clear()', async () => {
    // Prepare
    const { store, resolver } = setup();
    await resolver.resolve('acme', 'slack_default');

    // Act
    resolver.clear();
    await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(store.reads).toBe(2);
  });
});
