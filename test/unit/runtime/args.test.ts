import * as z from 'zod/mini';
import { parseToolArgs } from '../../../functions/runtime/args';
import { InvalidArgsError } from '../../../functions/runtime/errors';
import { MAX_ARGS_DEPTH, tooDeepAt } from '../../../functions/runtime/schema-violations';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { ec2InventorySpec } from '../../../functions/tools/aws/ec2-inventory.meta';
import { finishSpec } from '../../../functions/tools/files/finish.meta';
import { readFileSpec } from '../../../functions/tools/files/read-file.meta';
import { githubMergedPullsSpec } from '../../../functions/tools/github/merged-pulls.meta';
import { slackPostMessageSpec } from '../../../functions/tools/slack/post-message.meta';

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
    expect(violations.find((v) => v.path === 'regions[1]')?.message).toBe(
      'an AWS region such as eu-west-1 (got "Europe")',
    );
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

  it('reads an optional property sent as null as left out (its default applies), never as 0', () => {
    // Act
    const args = parseToolArgs(inventorySpec, '{"topN":null,"regions":null,"filters":null}');

    // Assess
    expect(args).toEqual({ topN: 20 });
  });

  it('keeps null where the property accepts it, and refuses a required property sent as null', () => {
    // Prepare
    const spec = defineToolSpec({
      name: 'nullable_tool',
      description: 'A required name and an optional nullable note.',
      inputSchema: z.strictObject({ name: z.string(), note: z.optional(z.nullable(z.string())) }),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'none',
      iam: [],
    });

    // Act
    const kept = parseToolArgs(spec, { name: 'a', note: null });
    const err = invalid(spec, { name: null, note: null });

    // Assess
    expect(kept).toEqual({ name: 'a', note: null });
    expect(err.details?.violations).toEqual([
      { path: 'name', message: expect.stringMatching(/expected string, received null/) },
    ]);
  });

  it('leaves nested nulls to the schema: only top-level arguments are read as left out', () => {
    // Act
    const err = invalid(inventorySpec, { filters: { state: null } });

    // Assess
    expect(err.details?.violations).toEqual([{ path: 'filters.state', message: expect.any(String) }]);
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

  it.each([
    ['a single region name', '{"regions":"eu-west-1"}', '"eu-west-1"'],
    ['a number', '{"regions":5}', '5'],
  ])('says what regions accepts when it is %s', (_label, raw, got) => {
    // Act
    const err = invalid(ec2InventorySpec, raw);

    // Assess
    expect(err.details?.violations).toEqual([
      {
        path: 'regions',
        message: `Expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"] (got ${got})`,
      },
    ]);
  });

  it('keeps the message of the region name that is wrong inside a list', () => {
    // Act
    const err = invalid(ec2InventorySpec, { regions: ['eu-west-1', 'Europe'] });

    // Assess
    expect(err.details?.violations).toEqual([
      { path: 'regions[1]', message: 'an AWS region name, in lower case, such as eu-west-1 (got "Europe")' },
    ]);
  });

  it.each([
    [
      { regions: [] },
      'regions',
      'an empty list: name at least one region, or "all" (got an array of 0 entries)',
    ],
    [
      { regions: ['EU-WEST-1'] },
      'regions[0]',
      'an AWS region name, in lower case, such as eu-west-1 (got "EU-WEST-1")',
    ],
    [
      { regions: 'x' },
      'regions',
      'Expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"] (got "x")',
    ],
    [
      { regions: Array.from({ length: 41 }, () => 'eu-west-1') },
      'regions',
      'Expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"] (got an array of 41 entries)',
    ],
    [{ topN: 0 }, 'topN', 'Too small: expected number to be >=1 (got 0)'],
    [{ topN: '5' }, 'topN', 'Invalid input: expected number, received string (got "5")'],
    [
      { topN: 'x'.repeat(100) },
      'topN',
      `Invalid input: expected number, received string (got "${'x'.repeat(58)}…)`,
    ],
    [
      // 59 code units would end inside the 29th emoji: the cut keeps 28 whole ones.
      { topN: `x${'😀'.repeat(40)}` },
      'topN',
      `Invalid input: expected number, received string (got "x${'😀'.repeat(28)}…)`,
    ],
  ])('says what was received beside what is wrong: %j', (args, path, message) => {
    // Act
    const err = invalid(ec2InventorySpec, args);

    // Assess: the value refused, in the message a model reads, before what is accepted
    const violations = (err.details?.violations ?? []) as { path: string; message: string }[];
    expect(violations.map((v) => ({ path: v.path, message: v.message.split('. Accepted: ')[0] }))).toEqual([
      { path, message },
    ]);
  });

  it.each([
    // The token starts late: cut first, 28 of its 36 characters would be shown, a prefix no pattern recognizes.
    [`${'a'.repeat(25)} ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2`, 'ghp_a1B2'],
    // Longer than the cut: a fine-grained token of 93 characters.
    [`github_pat_11ABCDEFG0123456789abcd_${'aB3'.repeat(20)}`, 'github_pat_11'],
  ])('redacts a credential in a refused value before cutting it: %#', (value, prefix) => {
    // Act
    const err = invalid(githubMergedPullsSpec, { repo: value, lookback_hours: 6 });

    // Assess
    expect(err.message).toContain('<redacted>');
    expect(err.message).not.toContain(prefix);
  });

  it("does not repeat a value a refinement's own message quotes already", () => {
    // Act
    const err = invalid(readFileSpec, { path: '../../etc/passwd' });

    // Assess
    expect(err.message.match(/\.\.\/\.\.\/etc\/passwd/g)).toHaveLength(1);
  });

  it('lists the accepted keys with an unknown one, at the root and in a nested object', () => {
    // Act
    const root = invalid(ec2InventorySpec, { region: 'eu-west-1', top: 5 });
    const nested = invalid(inventorySpec, { filters: { zone: 'a' } });
    const none = invalid(noArgsSpec, { verbose: true });

    // Assess
    expect(root.message).toBe(
      'Invalid arguments for aws_ec2_inventory: (root): Unrecognized keys: "region", "top"; accepted keys: regions, topN',
    );
    expect(nested.details?.violations).toEqual([
      { path: 'filters', message: 'Unrecognized key: "zone"; accepted keys: state' },
    ]);
    expect(none.details?.violations).toEqual([
      { path: '(root)', message: 'Unrecognized key: "verbose"; accepted keys: none' },
    ]);
  });

  it('says a missing required field is required', () => {
    // Act
    const err = invalid(slackPostMessageSpec, {});

    // Assess
    expect(err.details?.violations).toEqual([
      // …and what the field accepts, from its own description.
      {
        path: 'channel',
        message:
          'Required: expected string. Accepted: Channel ID (C0123ABCD) or #channel-name. Ignored through an incoming webhook (it posts to its own channel)',
      },
      // A union (a string or segments) says its choices in its own message.
      { path: 'text', message: 'Required: expected a string or a list of text segments' },
    ]);
  });

  it('says what a field of the wrong type accepts, from its description: a repo is owner/name', () => {
    // Act
    const err = invalid(githubMergedPullsSpec, { repo: 7, lookback_hours: 6 });

    // Assess
    expect(err.message).toBe(
      'Invalid arguments for github_merged_pulls: repo: Invalid input: expected string, received number (got 7). ' +
        'Accepted: Repository as owner/name (octocat/Hello-World)',
    );
  });

  it('still says what was received for a field that is there but wrong', () => {
    // Act
    const err = invalid(slackPostMessageSpec, { channel: null, text: 'hi' });

    // Assess
    expect(err.details?.violations).toEqual([
      {
        path: 'channel',
        message:
          'Invalid input: expected string, received null. Accepted: Channel ID (C0123ABCD) or #channel-name. Ignored through an incoming webhook (it posts to its own channel)',
      },
    ]);
  });

  it.each([
    [
      1e308,
      'Too big: expected number to be <=100 (got 1e+308). Accepted: How many items to list in full (1-100, default 20)',
    ],
    [
      -1e308,
      'Too small: expected number to be >=1 (got -1e+308). Accepted: How many items to list in full (1-100, default 20)',
    ],
  ])('gives one bound message for topN %p, the tightest', (topN, message) => {
    // Act
    const err = invalid(ec2InventorySpec, { topN });

    // Assess
    expect(err.details?.violations).toEqual([{ path: 'topN', message }]);
  });

  it(`accepts args nested ${MAX_ARGS_DEPTH} levels deep`, () => {
    // Prepare: the args object is level 1, data level 2, then 30 more.
    let data: unknown = 'leaf';
    for (let level = 0; level < MAX_ARGS_DEPTH - 1; level += 1) data = { a: data };

    // Act
    const args = parseToolArgs(finishSpec, { summary: 'done', data });

    // Assess
    expect(args).toMatchObject({ summary: 'done', data });
  });

  it.each([
    ['one level too deep', MAX_ARGS_DEPTH],
    ['3,000 levels deep (a stack overflow before the limit)', 3_000],
  ])('refuses args %s before zod sees them', (_label, levels) => {
    // Prepare
    let data: unknown = 'leaf';
    for (let level = 0; level < levels; level += 1) data = { a: data };
    const safeParse = jest.spyOn(finishSpec.inputSchema, 'safeParse');

    try {
      // Act
      const err = invalid(finishSpec, JSON.stringify({ summary: 'done', data }));

      // Assess
      expect(err.details?.violations).toEqual([
        { path: 'data', message: 'Too deeply nested: objects and arrays may nest at most 32 levels deep' },
      ]);
      expect(safeParse).not.toHaveBeenCalled();
    } finally {
      safeParse.mockRestore();
    }
  });
});

describe('tooDeepAt()', () => {
  it('names the top-level key under which the value is too deep, walking without recursion', () => {
    // Prepare: 100,000 nested arrays would overflow any recursive walk.
    let deep: unknown = 0;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];

    // Act
    const shallow = tooDeepAt({ a: [1, { b: 2 }], c: 'x' }, 3);
    const found = tooDeepAt({ fine: { x: 1 }, deep }, MAX_ARGS_DEPTH);

    // Assess
    expect(shallow).toBeUndefined();
    expect(tooDeepAt({ a: [1, { b: 2 }] }, 2)).toBe('a');
    expect(found).toBe('deep');
  });
});
