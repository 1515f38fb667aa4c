import { z } from 'zod/mini';
import { createToolContext } from '../../../functions/runtime/context';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { redact, redactString } from '../../../functions/runtime/redact';
import {
  currentSecretValues,
  REDACTED,
  SecretValues,
  withSecretValues,
} from '../../../functions/runtime/secret-values';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { toolInvocation } from '../../helpers/events';

const R = REDACTED;

describe('SecretValues', () => {
  it('records every string leaf of at least 4 characters, at any depth, except region codes', () => {
    // Prepare
    const values = new SecretValues();

    // Act
    values.add({
      region: 'eu-west-1',
      flags: { enabled: true, retries: 3 },
      nested: [{ deep: { db_pass: 'fake-deep-pass' } }, 'fake-in-array'],
      short: 'abc',
      value: 'fk4z',
    });

    // Assess
    expect(values.mask('fake-deep-pass / fake-in-array / abc / fk4z / eu-west-1 / true / 3')).toBe(
      `${R} / ${R} / abc / ${R} / eu-west-1 / true / 3`,
    );
  });

  it('records role ARNs and role names like any value: an IAM path or name can hold a pasted key', () => {
    // Prepare
    const values = new SecretValues();

    // Act
    values.add({
      management_role_arn: 'arn:aws:iam::123456789012:role/wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // AWS docs example key
      member_role_name: 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12',
    });

    // Assess
    expect(
      values.mask(
        'not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; ' +
          'role/wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12',
      ),
    ).toBe(`not authorized to perform: sts:AssumeRole on resource: ${R}; role/${R}`);
  });

  it('records no JSON literal name: a secret of text null leaves the word readable', () => {
    const values = new SecretValues();
    values.add({ value: 'null' });
    values.add(['true', 'false']);

    expect(values.size).toBe(0);
    expect(values.mask('it is JSON but null, not an object; true; false')).toBe(
      'it is JSON but null, not an object; true; false',
    );
  });

  it('masks the longest value first, so one that contains another goes whole', () => {
    const values = new SecretValues();
    values.add(['fake-pass', 'fake-pass-and-more']);

    expect(values.mask('x fake-pass-and-more y fake-pass z')).toBe(`x ${R} y ${R} z`);
  });

  it('masks a value shorter than 8 characters only as a whole token, a longer one anywhere', () => {
    const values = new SecretValues();
    values.add({ short: 'prod', long: 'fakeLongValue1' });

    expect(values.mask('prod, production, reprod, (prod) xfakeLongValue1x')).toBe(
      `${R}, production, reprod, (${R}) x${R}x`,
    );
  });

  it('masks the JSON-escaped, URL-encoded and base64 forms of a value', () => {
    const secret = 'fake"pa ss/wörd'; // fake test value
    const values = new SecretValues();
    values.add({ secret });

    expect(values.mask(JSON.stringify({ echoed: secret }))).toBe(`{"echoed":"${R}"}`);
    expect(values.mask(`https://x.test/cb?p=${encodeURIComponent(secret)}&n=1`)).toBe(
      `https://x.test/cb?p=${R}&n=1`,
    );
    expect(values.mask(`blob ${Buffer.from(secret).toString('base64')}`)).toBe(`blob ${R}`);
  });

  it('treats regex metacharacters in a value literally', () => {
    const values = new SecretValues();
    values.add({ v: 'a.b*c(d)[e]|f+?^$\\' });

    expect(values.mask('a.b*c(d)[e]|f+?^$\\ and axbxcd')).toBe(`${R} and axbxcd`);
  });

  it('masks values added after a first mask (the matcher is rebuilt)', () => {
    const values = new SecretValues();
    values.add({ a: 'fake-first' });
    expect(values.mask('fake-first fake-second')).toBe(`${R} fake-second`);

    values.add({ b: 'fake-second' });

    expect(values.mask('fake-first fake-second')).toBe(`${R} ${R}`);
  });

  it('masks exactly among 2,000 values', () => {
    const values = new SecretValues();
    const many = Array.from({ length: 2_000 }, (_, i) => `fake-value-${String(i).padStart(5, '0')}`);
    values.add(many);

    expect(values.mask(`${many[1_234]} and fake-value-x`)).toBe(`${R} and fake-value-x`);
    expect(values.size).toBeGreaterThanOrEqual(2_000);
  });
});

describe('withSecretValues()', () => {
  it('scopes the values to the async work it runs, awaited continuations included', async () => {
    // Prepare
    const values = new SecretValues();
    values.add({ v: 'fake-scoped-value' });

    // Act
    const inside = await withSecretValues(values, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return redactString('saw fake-scoped-value');
    });
    const outside = redactString('saw fake-scoped-value');

    // Assess
    expect(inside).toBe(`saw ${R}`);
    expect(outside).toBe('saw fake-scoped-value');
    expect(currentSecretValues()).toBeUndefined();
  });

  it('lets an explicit option win over the scope', () => {
    const scoped = new SecretValues();
    scoped.add({ v: 'fake-scoped' });
    const given = new SecretValues();
    given.add({ v: 'fake-given' });

    const out = withSecretValues(scoped, () =>
      redact({ a: 'fake-scoped fake-given' }, { secretValues: given }),
    );

    expect(out).toEqual({ a: `fake-scoped ${R}` });
  });
});

describe('ToolContext.secret()', () => {
  it('records what it resolved into the call’s values', async () => {
    // Prepare
    const spec = defineToolSpec({
      name: 'probe',
      description: 'Reads a secret.',
      inputSchema: z.strictObject({}),
      tags: [],
      requiresSecrets: ['db_default'],
      sideEffects: 'none',
      iam: [],
    });
    process.env.SECRET_VALUES_TEST = JSON.stringify({ db: { db_pass: 'fake-recorded-pass' } });
    const store = new InMemorySecretReferenceStore([
      { tenant_id: 'default', secret_name: 'db_default', ref_kind: 'env', ref_value: 'SECRET_VALUES_TEST' },
    ]);
    const values = new SecretValues();
    const deadline = deadlineIn(1_000);
    const ctx = createToolContext(
      spec,
      toolInvocation(),
      deadline,
      toolHostServices(new SecretResolver(store)),
      { signal: deadline.signal, secretValues: values },
    );

    // Act
    await ctx.secret('db_default');

    // Assess
    expect(values.mask('echo fake-recorded-pass')).toBe(`echo ${R}`);
    delete process.env.SECRET_VALUES_TEST;
  });
});
