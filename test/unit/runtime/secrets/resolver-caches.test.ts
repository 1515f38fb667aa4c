import { conventionalSecretVariable } from '../../../../functions/runtime/secrets/providers';
import type { SecretReference, SecretReferenceStore } from '../../../../functions/runtime/secrets/reference';
import { MAX_CACHED_SECRETS, SecretResolver } from '../../../../functions/runtime/secrets/resolver';
import type { SecretValueProvider } from '../../../../functions/runtime/secrets/value-provider';

/** A store over rows the test may change, counting reads. */
class CountingStore implements SecretReferenceStore {
  reads = 0;
  constructor(readonly rows: SecretReference[]) {}
  async get(tenantId: string, secretName: string) {
    this.reads++;
    return this.rows.find((row) => row.tenant_id === tenantId && row.secret_name === secretName);
  }
  async list() {
    return [...this.rows];
  }
  async put(row: SecretReference) {
    return row;
  }
  async delete() {
    return false;
  }
}

/** A provider answering `values[ref_value]`, recording each read's variable and maxAge. */
class TableProvider implements SecretValueProvider {
  readonly reads: string[] = [];
  constructor(readonly values: Record<string, string>) {}
  async read(reference: SecretReference, maxAgeSeconds: number) {
    this.reads.push(`${reference.ref_value}@${maxAgeSeconds}`);
    const value = this.values[reference.ref_value];
    if (value === undefined) throw new Error(`no ${reference.ref_value}`);
    return value;
  }
}

function row(tenant: string, name: string, variable: string): SecretReference {
  return { tenant_id: tenant, secret_name: name, ref_kind: 'env', ref_value: variable };
}

function setup(rows: SecretReference[], values: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  let now = 1_700_000_000_000;
  const store = new CountingStore(rows);
  const provider = new TableProvider(values);
  const resolver = new SecretResolver(store, {
    providers: { env: provider, secrets_manager: provider },
    ttlSeconds: 300,
    env,
    now: () => now,
  });
  return { store, provider, resolver, advance: (ms: number) => (now += ms) };
}

describe('SecretResolver caches', () => {
  it('caches reference rows as values are: one row read per tenant-secret per TTL window', async () => {
    // Prepare
    const { store, provider, resolver, advance } = setup([row('acme', 'slack_default', 'ACME')], {
      ACME: '{"bot_token":"xoxb-fake-test-1"}',
    });

    // Act: 10 calls in the window, then one after it.
    for (let i = 0; i < 10; i++) await resolver.resolve('acme', 'slack_default');
    advance(300_000);
    await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(store.reads).toBe(2);
    expect(provider.reads).toEqual(['ACME@300', 'ACME@300']);
  });

  it('reads the row and the value again with { fresh: true }: a moved reference is followed', async () => {
    // Prepare
    const rows = [row('acme', 'slack_default', 'ACME_OLD')];
    const { store, provider, resolver } = setup(rows, {
      ACME_OLD: '{"bot_token":"xoxb-old-fake"}',
      ACME_NEW: '{"bot_token":"xoxb-new-fake"}',
    });
    await resolver.resolve('acme', 'slack_default');
    rows[0] = row('acme', 'slack_default', 'ACME_NEW');

    // Act
    const cached = await resolver.resolve('acme', 'slack_default');
    const fresh = await resolver.resolve('acme', 'slack_default', { fresh: true });
    const after = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(cached).toEqual({ bot_token: 'xoxb-old-fake' });
    expect(fresh).toEqual({ bot_token: 'xoxb-new-fake' });
    expect(after).toEqual({ bot_token: 'xoxb-new-fake' });
    expect(store.reads).toBe(2);
    expect(provider.reads).toEqual(['ACME_OLD@300', 'ACME_NEW@0']);
  });

  it('keeps tenants apart: the same secret name resolves to each tenant’s own value', async () => {
    // Prepare
    const { resolver } = setup(
      [row('acme', 'slack_default', 'ACME'), row('globex', 'slack_default', 'GLOBEX')],
      {
        ACME: '{"bot_token":"xoxb-acme-fake"}',
        GLOBEX: '{"bot_token":"xoxb-globex-fake"}',
      },
    );

    // Act
    const acme = await resolver.resolve('acme', 'slack_default');
    const globex = await resolver.resolve('globex', 'slack_default');

    // Assess
    expect(acme).toEqual({ bot_token: 'xoxb-acme-fake' });
    expect(globex).toEqual({ bot_token: 'xoxb-globex-fake' });
  });

  it(`is bounded: at most ${MAX_CACHED_SECRETS} values stay cached, the least recently used go first`, async () => {
    // Prepare: one more tenant than the cache holds.
    const tenants = Array.from({ length: MAX_CACHED_SECRETS + 1 }, (_, i) => `t${i}`);
    const { store, resolver } = setup(
      tenants.map((tenant) => row(tenant, 'slack_default', 'SHARED')),
      { SHARED: '{"bot_token":"xoxb-fake"}' },
    );
    for (const tenant of tenants) await resolver.resolve(tenant, 'slack_default');
    const readsAfterFill = store.reads;

    // Act: the newest is still cached, the oldest was evicted.
    await resolver.resolve(tenants[tenants.length - 1] as string, 'slack_default');
    const readsForNewest = store.reads - readsAfterFill;
    await resolver.resolve('t0', 'slack_default');

    // Assess
    expect(readsForNewest).toBe(0);
    expect(store.reads - readsAfterFill).toBe(1);
  });
});

describe('the environment-variable convention (no reference row)', () => {
  it('reads ETP_SECRET_<TENANT>__<NAME> when the tenant has no row', async () => {
    // Prepare
    const env = { ETP_SECRET_ACME__SLACK_DEFAULT: '{"bot_token":"xoxb-conventional-fake"}' };
    const { provider, resolver } = setup([], env, env);

    // Act
    const value = await resolver.resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual({ bot_token: 'xoxb-conventional-fake' });
    expect(provider.reads).toEqual(['ETP_SECRET_ACME__SLACK_DEFAULT@300']);
  });

  it('prefers the row over the convention', async () => {
    // Prepare
    const env = { ETP_SECRET_ACME__SLACK_DEFAULT: '{"bot_token":"xoxb-conventional-fake"}' };
    const { resolver } = setup(
      [row('acme', 'slack_default', 'ACME')],
      { ...env, ACME: '{"bot_token":"xoxb-row"}' },
      env,
    );

    // Act / Assess
    expect(await resolver.resolve('acme', 'slack_default')).toEqual({ bot_token: 'xoxb-row' });
  });

  it('says which variable it looked for, or why there is none', async () => {
    // Prepare
    const { resolver } = setup([], {}, {});

    // Act
    const unset = resolver.resolve('acme', 'aws_default');
    const unconventional = resolver.resolve('Team-1', 'aws_default');

    // Assess
    await expect(unset).rejects.toMatchObject({
      code: 'secret_not_found',
      message:
        'Tenant "acme" has no secret reference named "aws_default" and environment variable ' +
        'ETP_SECRET_ACME__AWS_DEFAULT is not set',
    });
    await expect(unconventional).rejects.toMatchObject({
      code: 'secret_not_found',
      message: expect.stringContaining('no conventional environment variable: ETP_SECRET_<TENANT>__<NAME>'),
    });
  });

  it('is off when told (deployed functions): no row is no secret', async () => {
    // Prepare
    const env = { ETP_SECRET_ACME__SLACK_DEFAULT: '{"bot_token":"xoxb-conventional-fake"}' };
    const resolver = new SecretResolver(new CountingStore([]), {
      providers: { env: new TableProvider(env), secrets_manager: new TableProvider({}) },
      conventionFallback: false,
      env,
    });

    // Act / Assess
    await expect(resolver.resolve('acme', 'slack_default')).rejects.toMatchObject({
      message: 'Tenant "acme" has no secret reference named "slack_default"',
    });
  });

  it.each([
    ['default', 'aws_default', 'ETP_SECRET_DEFAULT__AWS_DEFAULT'],
    ['acme2', 'slack_default', 'ETP_SECRET_ACME2__SLACK_DEFAULT'],
    ['team_1', 'pager', 'ETP_SECRET_TEAM_1__PAGER'],
  ])('names %s/%s %s', (tenant, name, variable) => {
    expect(conventionalSecretVariable(tenant, name)).toBe(variable);
  });

  it.each([
    ['Acme', 'aws_default'],
    ['team-1', 'aws_default'],
    ['a.b', 'aws_default'],
    ['a__b', 'c'],
    ['_a', 'c'],
    ['a', 'b_'],
  ])('gives %s/%s no variable: it could collide with another pair', (tenant, name) => {
    expect(conventionalSecretVariable(tenant, name)).toBeUndefined();
  });

  it('never gives two (tenant, name) pairs the same variable', () => {
    // Prepare: every id of up to 4 characters over a, 1, _ that fits the convention, as tenant and as name.
    const alphabet = ['a', '1', '_'];
    let ids = [''];
    const all: string[] = [];
    for (let length = 1; length <= 4; length++) {
      ids = ids.flatMap((prefix) => alphabet.map((c) => prefix + c));
      all.push(...ids);
    }

    // Act
    const owners = new Map<string, string>();
    let collisions = 0;
    let named = 0;
    for (const tenant of all) {
      for (const name of all) {
        const variable = conventionalSecretVariable(tenant, name);
        if (!variable) continue;
        named++;
        const pair = `${tenant}/${name}`;
        if (owners.has(variable) && owners.get(variable) !== pair) collisions++;
        owners.set(variable, pair);
      }
    }

    // Assess
    expect(named).toBeGreaterThan(1000);
    expect(collisions).toBe(0);
  });
});
