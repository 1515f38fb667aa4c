import * as z from 'zod/mini';
import { parseToolArgs } from '../../../functions/runtime/args';
import { InvalidArgsError } from '../../../functions/runtime/errors';
import { defineToolSpec } from '../../../functions/runtime/spec';

const noArgsSpec = defineToolSpec({
  name: 'no_args_tool',
  description: 'Takes no arguments.',
  inputSchema: z.strictObject({}),
  tags: [],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});

const inventorySpec = defineToolSpec({
  name: 'inventory_tool',
  description: 'An EC2-inventory-like schema.',
  inputSchema: z.strictObject({
    regions: z.optional(
      z.array(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1'))),
    ),
    topN: z._default(z.int().check(z.minimum(1), z.maximum(500)), 20),
    filters: z.optional(z.strictObject({ state: z.optional(z.enum(['running', 'stopped'])) })),
  }),
  tags: [],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});

/** The InvalidArgsError thrown by parsing `raw` with `spec`. */
function invalid(spec: Parameters<typeof parseToolArgs>[0], raw: unknown): InvalidArgsError {
  try {
    parseToolArgs(spec, raw);
  } catch (err) {
    if (err instanceof InvalidArgsError) return err;
    throw err;
  }
  throw new Error('expected InvalidArgsError');
}

describe('parseToolArgs()', () => {
  it.each([
    ['an empty string', ''],
    ['whitespace', '  \n\t '],
    ['null', null],
    ['undefined', undefined],
    ['the JSON text null', 'null'],
    ['an empty object', {}],
    ['the JSON text {}', '{}'],
  ])('reads %s as no arguments', (_name, raw) => {
    expect(parseToolArgs(noArgsSpec, raw)).toEqual({});
  });

  it('parses a JSON string and applies defaults', () => {
    // Act
    const args = parseToolArgs(inventorySpec, '{"regions":["eu-west-1","us-east-1"]}');

    // Assess
    expect(args).toEqual({ regions: ['eu-west-1', 'us-east-1'], topN: 20 });
  });

  it('refuses a string that is not JSON, saying so', () => {
    // Act
    const err = invalid(inventorySpec, '{regions: eu-west-1}');

    // Assess
    expect(err.code).toBe('invalid_args');
    expect(err.message).toMatch(/^args is a string but not JSON \(.+\); send a JSON object$/);
  });

  it.each([
    ['an array', ['eu-west-1'], 'Arguments for inventory_tool must be a JSON object, got an array'],
    ['a JSON array', '["eu-west-1"]', 'Arguments for inventory_tool must be a JSON object, got an array'],
    ['a number', 50, 'Arguments for inventory_tool must be a JSON object, got number'],
    ['a JSON number', '50', 'Arguments for inventory_tool must be a JSON object, got number'],
    ['a boolean', true, 'Arguments for inventory_tool must be a JSON object, got boolean'],
  ])('refuses %s', (_name, raw, message) => {
    expect(invalid(inventorySpec, raw).message).toBe(message);
  });

  it('reports every violation with its path', () => {
    // Act
    const err = invalid(inventorySpec, {
      regions: ['eu-west-1', 'Europe', 3],
      topN: 0,
      filters: { state: 'gone' },
      extra: true,
    });

    // Assess
    const violations = (err.details?.violations ?? []) as { path: string; message: string }[];
    expect(violations.map((v) => v.path).sort()).toEqual(
      ['(root)', 'filters.state', 'regions[1]', 'regions[2]', 'topN'].sort(),
    );
    expect(violations.find((v) => v.path === 'regions[1]')?.message).toBe('an AWS region such as eu-west-1');
    expect(violations.find((v) => v.path === '(root)')?.message).toMatch(/extra/);
    for (const v of violations) expect(err.message).toContain(`${v.path}: ${v.message}`);
    expect(err.message.startsWith('Invalid arguments for inventory_tool: ')).toBe(true);
  });

  it('never coerces: "50" is not a number', () => {
    // Act
    const err = invalid(inventorySpec, { topN: '50' });

    // Assess
    expect(err.details?.violations).toEqual([
      { path: 'topN', message: expect.stringMatching(/expected number, received string/) },
    ]);
  });

  it('never turns null into 0 or into the default', () => {
    // Act
    const err = invalid(inventorySpec, '{"topN":null}');

    // Assess
    expect(err.details?.violations).toEqual([
      { path: 'topN', message: expect.stringMatching(/expected number, received null/) },
    ]);
  });

  it('does not mutate the input object when it applies defaults', () => {
    // Prepare
    const raw = { regions: ['eu-west-1'], filters: {} };
    const before = structuredClone(raw);

    // Act
    const args = parseToolArgs(inventorySpec, raw);

    // Assess
    expect(args).toEqual({ regions: ['eu-west-1'], topN: 20, filters: {} });
    expect(raw).toEqual(before);
    expect(args).not.toBe(raw);
  });

  it('refuses __proto__ smuggled through JSON as an unknown key', () => {
    // Act
    const err = invalid(noArgsSpec, '{"__proto__":{"polluted":true}}');

    // Assess
    expect(err.code).toBe('invalid_args');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
