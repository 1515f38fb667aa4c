import { z } from 'zod/mini';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { logger } from '../../../functions/runtime/logger';
import { redact, redactString } from '../../../functions/runtime/redact';
import { oneLineSummary, type ToolResult } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { toolInvocation } from '../../helpers/events';

// Fake secret values no pattern recognizes: only the exact match can mask them.
const DB_PASS = 'Zq8mK2pX9vL4nR7tW1yB'; // fake test value
const API_KEY = 'plain-fake-value-7f3a'; // fake test value
const PIN = 'k4Tz'; // fake test value, 4 characters
const TENANT_B_PASS = 'Other-tenant-fake-Yp3q'; // fake test value

const ENV = { a: 'KNOWN_SECRETS_TEST_A', b: 'KNOWN_SECRETS_TEST_B' };

function services() {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'tenant-a', secret_name: 'db_default', ref_kind: 'env', ref_value: ENV.a },
    { tenant_id: 'tenant-b', secret_name: 'db_default', ref_kind: 'env', ref_value: ENV.b },
  ]);
  return toolHostServices(new SecretResolver(store, { ttlSeconds: 0 }), { logger });
}

type Behavior = 'throw' | 'echo' | 'echo-other' | 'log';

/** A tool that resolves `db_default` and leaks it the way `behavior` says. */
function leakyTool(behavior: Behavior, visibleOutputKeys?: readonly string[]): Tool {
  const spec = defineToolSpec({
    name: 'db_probe',
    description: 'Resolves a database secret and echoes it.',
    inputSchema: z.strictObject({}),
    tags: ['test'],
    requiresSecrets: ['db_default'],
    sideEffects: 'none',
    iam: [],
    visibleOutputKeys,
  });
  return defineTool(spec, async (ctx) => {
    const secret = await ctx.secret('db_default');
    const db = secret.db as { db_pass: string; user: string };
    if (behavior === 'throw') {
      throw new Error(`connect failed with {"db_pass": "${db.db_pass}"}; login ${db.db_pass} refused`);
    }
    if (behavior === 'log') {
      ctx.logger.info(`connecting with ${db.db_pass}`, { attempt: { with: db.db_pass, pin: secret.pin } });
      logger.warn('root logger line', { echoed: `${secret.api_key}` });
      return { value: { ok: true } };
    }
    const echoed = behavior === 'echo-other' ? TENANT_B_PASS : db.db_pass;
    return {
      value: {
        rows: [{ note: `value ${echoed}`, tags: [{ Key: 'pass', Value: `${secret.api_key}-suffix` }] }],
        pin: `pin is ${PIN}`,
        words: 'k4Tzz and xk4Tz stay',
        region: 'eu-west-1',
        SessionId: 'ssm-user-0a1b2c3d4e5f67890', // SSM's session id: the key rule masks it
      },
      summary: `${'x'.repeat(280)} ${db.db_pass}`,
    };
  }) as unknown as Tool;
}

function call(tool: Tool, tenant = 'tenant-a'): Promise<ToolResult> {
  return runTool(tool, toolInvocation({ tenant, args: {} }), deadlineIn(10_000), services());
}

let logLines: string[];

beforeEach(() => {
  process.env[ENV.a] = JSON.stringify({
    db: { user: 'app', db_pass: DB_PASS },
    api_key: API_KEY,
    pin: PIN,
    region: 'eu-west-1',
  });
  process.env[ENV.b] = JSON.stringify({ db: { user: 'app', db_pass: TENANT_B_PASS } });
  logLines = [];
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logLines.push(String(chunk));
      return true;
    });
  }
});

afterEach(() => {
  jest.restoreAllMocks();
  delete process.env[ENV.a];
  delete process.env[ENV.b];
});

describe('exact-match masking of the secrets a call resolved', () => {
  it('masks a nested {"db_pass": …} echoed in a thrown error, in the result and the log line', async () => {
    // Act
    const result = await call(leakyTool('throw'));

    // Assess
    expect(result.ok).toBe(false);
    const text = JSON.stringify(result);
    expect(text).not.toContain(DB_PASS);
    expect(result).toMatchObject({
      error: {
        code: 'internal_error',
        message:
          'Tool db_probe failed: connect failed with {"db_pass": "<redacted>"}; login <redacted> refused',
      },
    });
    expect(logLines.join('')).toContain('tool failed');
    expect(logLines.join('')).not.toContain(DB_PASS);
  });

  it('masks every string leaf of the payload at any depth and under any key, in the value and the summary', async () => {
    // Act
    const result = await call(leakyTool('echo'));

    // Assess
    if (!result.ok) throw new Error(result.summary);
    expect(result.value).toEqual({
      rows: [{ note: 'value <redacted>', tags: [{ Key: 'pass', Value: '<redacted>-suffix' }] }],
      pin: 'pin is <redacted>',
      words: 'k4Tzz and xk4Tz stay', // a 4-character value is masked only as a whole token
      region: 'eu-west-1', // a region code is routing, never recorded
      SessionId: '<redacted>', // no visibleOutputKeys: the key rule masks it
    });
    // Masked before the summary is cut at 300 characters: no prefix of the value survives the cut.
    expect(result.summary).toBe(`${'x'.repeat(280)} <redacted>`);
  });

  it('masks them in log lines of the tool logger and of the root logger during the call', async () => {
    // Act
    await call(leakyTool('log'));

    // Assess
    const output = logLines.join('');
    expect(output).toContain('connecting with <redacted>');
    expect(output).toContain('"attempt":{"with":"<redacted>","pin":"<redacted>"}');
    expect(output).toContain('"echoed":"<redacted>"');
    for (const value of [DB_PASS, API_KEY]) expect(output).not.toContain(value);
  });

  it("keeps one call's values to that call: concurrent calls for two tenants mask only their own", async () => {
    // Act: tenant A's tool echoes tenant B's value, which A never resolved.
    const [a, b] = await Promise.all([call(leakyTool('echo-other')), call(leakyTool('echo'), 'tenant-b')]);

    // Assess
    if (!a.ok || !b.ok) throw new Error('expected two successes');
    expect(a.value).toMatchObject({ rows: [{ note: `value ${TENANT_B_PASS}` }] });
    expect(b.value).toMatchObject({ rows: [{ note: 'value <redacted>' }] });
    // Nothing is remembered after the call.
    expect(redactString(`after the calls: ${DB_PASS} ${TENANT_B_PASS}`)).toBe(
      `after the calls: ${DB_PASS} ${TENANT_B_PASS}`,
    );
  });

  it("keeps the keys the tool's spec declares visible (visibleOutputKeys)", async () => {
    // Act
    const result = await call(leakyTool('echo', ['SessionId']));

    // Assess
    if (!result.ok) throw new Error(result.summary);
    expect(result.value).toMatchObject({ SessionId: 'ssm-user-0a1b2c3d4e5f67890' });
  });

  it('does not mask outside a call without values given', () => {
    expect(redact({ note: `value ${DB_PASS}` })).toEqual({ note: `value ${DB_PASS}` });
  });
});

describe('oneLineSummary', () => {
  it('folds line breaks and white space into one line and cuts it at 300 characters', () => {
    expect(oneLineSummary('XML parse error.\n  Deserialization error: inspect $response')).toBe(
      'XML parse error. Deserialization error: inspect $response',
    );
    const long = oneLineSummary('x'.repeat(500));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });
});
