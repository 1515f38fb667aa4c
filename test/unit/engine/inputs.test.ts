import type { ScenarioDefinition } from '../../../functions/engine/definition';
import { MAX_INPUT_BYTES, MAX_LISTED_ORG_IDS, resolveInput } from '../../../functions/engine/inputs';

const scenario: ScenarioDefinition = {
  name: 'typed',
  description: 'Every input type.',
  inputs: {
    tenant: { type: 'string', description: 'Tenant.', default: 'default' },
    regions: { type: 'regions', description: 'Regions.', default: 'all' },
    days: { type: 'integer', description: 'Days.', default: 14 },
    ratio: { type: 'number', description: 'Ratio.', default: 0.5 },
    dryRun: { type: 'boolean', description: 'Dry run.', default: false },
    tags: { type: 'string_list', description: 'Tags.', default: [] },
    mode: { type: 'string', description: 'Mode.', enum: ['fast', 'deep'], default: 'fast' },
    ticket: { type: 'string', description: 'The ticket it is about.' },
  },
  levels: [],
};

describe('resolveInput', () => {
  it('merges the input over the defaults', () => {
    // Act
    const input = resolveInput(scenario, { ticket: 'INC-1', regions: ['eu-west-1'], days: 3 });

    // Assess
    expect(input).toEqual({
      tenant: 'default',
      regions: ['eu-west-1'],
      days: 3,
      ratio: 0.5,
      dryRun: false,
      tags: [],
      mode: 'fast',
      ticket: 'INC-1',
    });
  });

  it('reports every problem at once, each saying what is accepted', () => {
    // Act
    const resolve = () =>
      resolveInput(scenario, {
        regions: 5,
        days: 1.5,
        ratio: '1',
        dryRun: 'no',
        tags: [1],
        mode: 'slow',
        tenant: 'a b',
        extra: true,
      });

    // Assess
    expect(resolve).toThrow(
      'Invalid input for typed: extra: not declared by typed. Declared inputs: tenant, budget_usd, regions, days, ratio, dryRun, tags, mode, ticket; ' +
        'tenant "a b" is not a tenant id: 1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1); ' +
        'regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got number 5; ' +
        'days: expected a whole number, got number 1.5; ' +
        'ratio: expected a number, got string "1"; ' +
        'dryRun: expected true or false, got string "no"; ' +
        'tags: expected a list of strings, got a faulty entry in a list of 1: [0] 1; ' +
        'mode: expected one of "fast", "deep", got string "slow"; ' +
        'ticket: required: a string (The ticket it is about.)',
    );
  });

  it('names the faulty entries of an accounts or exclude list with their index, and says roots are accepted', () => {
    // Prepare: a long list with two faulty ids, and an exclude list with one
    const org: ScenarioDefinition = {
      name: 'org',
      description: 'Accounts.',
      inputs: {
        accounts: { type: 'accounts', description: 'Accounts.', default: 'all' },
        exclude: { type: 'account_ids', description: 'Left out.', default: [] },
      },
      levels: [],
    };
    const accounts = Array.from({ length: 12 }, (_, n) => String(100000000000 + n));
    accounts[3] = '1234';
    accounts[9] = 'ou-x';

    // Act
    const resolve = () => resolveInput(org, { tenant: 'acme', accounts, exclude: ['r-ab12', 'root'] });

    // Assess
    const most = MAX_LISTED_ORG_IDS;
    expect(resolve).toThrow(
      `Invalid input for org: accounts: expected "all" or a list of 1-${most} 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012", "ou-ab12-cd34ef56"] (${most} account ids fill the 8192-byte input: name OU ids for more), got 2 faulty entries in a list of 12: [3] "1234", [9] "ou-x"; ` +
        `exclude: expected a list of at most ${most} 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012"] (${most} account ids fill the 8192-byte input: name OU ids for more), got a faulty entry in a list of 2: [1] "root"`,
    );
  });

  it.each([
    ['null: no input', null, { tenant: 'default', ticket: 'x' }],
    ['a string', 'a string', 'Invalid input for typed: expected a JSON object, got string "a string"'],
    [
      'an input over 8 KiB',
      { ticket: 'x'.repeat(MAX_INPUT_BYTES) },
      "Invalid input for typed: the input is 8,205 bytes of JSON, over the 8,192 bytes a run's input may hold " +
        '(largest: ticket: 8,194 bytes): shorten its largest values',
    ],
  ])('checks the shape first: %s', (_what, raw, expected) => {
    // Prepare
    const small: ScenarioDefinition = {
      ...scenario,
      inputs: {
        tenant: { type: 'string', description: 'T.', default: 'default' },
        ticket: { type: 'string', description: 'T.', default: 'x' },
      },
    };

    // Act
    const resolve = () => resolveInput(small, raw);

    // Assess
    if (typeof expected === 'string') expect(resolve).toThrow(expected);
    else expect(resolve()).toEqual(expected);
  });

  describe('the input size: one check of the input the run keeps', () => {
    const org: ScenarioDefinition = {
      name: 'org',
      description: 'Accounts.',
      inputs: {
        tenant: { type: 'string', description: 'Tenant.', default: 'default' },
        accounts: { type: 'accounts', description: 'Accounts.', default: 'all' },
        exclude: { type: 'account_ids', description: 'Left out.', default: [] },
        regions: { type: 'regions', description: 'Regions.', default: 'all' },
      },
      levels: [],
    };
    const ids = (n: number) => Array.from({ length: n }, (_, i) => String(100000000000 + i));

    it('refuses before the run an input that fits as given but not with the defaults and tenant filled in', () => {
      // Prepare: 8,171 bytes as given; the tenant and regions defaults add 35
      const given = { accounts: ids(542), exclude: ids(1) };

      // Act
      const resolve = () => resolveInput(org, given);

      // Assess: sized as the run's Start state would size it, with the fix
      expect(JSON.stringify(given).length).toBeLessThanOrEqual(MAX_INPUT_BYTES);
      expect(resolve).toThrow(
        "Invalid input for org: the input is 8,206 bytes of JSON with the scenario's defaults and the tenant filled in, " +
          "over the 8,192 bytes a run's input may hold (largest: accounts: 8,131 bytes, exclude: 16 bytes, tenant: 9 bytes; accounts holds 542 ids, 541 account ids fit beside the other inputs): " +
          'name OU ids (ou-…) or root ids (r-…) in accounts and exclude instead of long lists of account ids, or "all"',
      );
    });

    it('accepts at Start every input it accepted before the run (the merged input checked again)', () => {
      // Prepare: the largest accounts list that fits with the defaults filled in: 8,192 bytes
      const before = resolveInput(org, { accounts: ids(542) });

      // Act
      const atStart = resolveInput(org, before, { stage: 'start' });

      // Assess
      expect(JSON.stringify(before).length).toBe(MAX_INPUT_BYTES);
      expect(atStart).toEqual(before);
    });

    it.each([
      ['beside the defaults', {}, 543],
      ['beside a long tenant and exclude list', { tenant: `tenant-${'x'.repeat(40)}`, exclude: ids(3) }, 537],
    ])('says how many account ids fit %s, and exactly that many do', (_label, others, count) => {
      // Prepare: a list that fits as given, not with the defaults filled in
      const refusal = () => resolveInput(org, { ...others, accounts: ids(count) });

      // Act
      expect(refusal).toThrow(`accounts holds ${count} ids, `);
      const said = (() => {
        try {
          refusal();
        } catch (err) {
          return Number(/(\d+) account ids fit/.exec((err as Error).message)?.[1]);
        }
        return Number.NaN;
      })();

      // Assess: the count said is the largest that is accepted
      expect(resolveInput(org, { ...others, accounts: ids(said) }).accounts).toHaveLength(said);
      expect(() => resolveInput(org, { ...others, accounts: ids(said + 1) })).toThrow(/over the 8,192 bytes/);
    });

    it('says one limit for a list past MAX_LISTED_ORG_IDS: the ids that fit, not also the list bound', () => {
      // Act
      const refusal = () => resolveInput(org, { accounts: ids(MAX_LISTED_ORG_IDS + 1) });

      // Assess: the size's count only; the list bound (544 ids) is not said beside it
      expect(refusal).toThrow(
        `accounts holds ${MAX_LISTED_ORG_IDS + 1} ids, 542 account ids fit beside the other inputs`,
      );
      expect(refusal).not.toThrow(String(MAX_LISTED_ORG_IDS));
    });

    it('caps an id list at the most account ids that fit the input beside the shortest tenant', () => {
      // Assess: that many account ids fill the input; one more does not fit
      const inputOf = (count: number) => JSON.stringify({ tenant: 'a', accounts: ids(count) });
      expect(inputOf(MAX_LISTED_ORG_IDS).length).toBeLessThanOrEqual(MAX_INPUT_BYTES);
      expect(inputOf(MAX_LISTED_ORG_IDS + 1).length).toBeGreaterThan(MAX_INPUT_BYTES);
    });
  });

  it.each([
    [
      'regions',
      { regions: ['eu-west-1', 'mars-north-1'] },
      'regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got a faulty entry in a list of 2: [1] "mars-north-1"',
    ],
    [
      'string_list',
      { tags: ['a', 2, null] },
      'tags: expected a list of strings, got 2 faulty entries in a list of 3: [1] 2, [2] null',
    ],
    [
      'too long a regions',
      { regions: Array.from({ length: 41 }, () => 'eu-west-1') },
      'regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got an array of 41 entries ["eu-west-1",',
    ],
    [
      // 59 code units would end inside the 29th emoji: the cut keeps 28 whole ones, never half of one.
      'regions given as a long string of emoji',
      { regions: `x${'😀'.repeat(40)}` },
      `regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got string "x${'😀'.repeat(28)}…`,
    ],
  ])(
    'names the faulty entries of a %s list with their index, and what is accepted',
    (_what, given, expected) => {
      // Act
      const resolve = () => resolveInput(scenario, { ticket: 'x', ...given });

      // Assess
      expect(resolve).toThrow(`Invalid input for typed: ${expected}`);
    },
  );
});
