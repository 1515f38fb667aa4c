import type { ScenarioDefinition } from '../../../functions/engine/definition';
import { MAX_INPUT_BYTES, resolveInput } from '../../../functions/engine/inputs';

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
        'tags: expected a list of strings, got an array [1]; ' +
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
    expect(resolve).toThrow(
      'Invalid input for org: accounts: expected "all" or a list of 1-1000 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012", "ou-ab12-cd34ef56"], got 2 faulty entries in a list of 12: [3] "1234", [9] "ou-x"; ' +
        'exclude: expected a list of at most 1000 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012"], got a faulty entry in a list of 2: [1] "root"',
    );
  });

  it.each([
    ['null: no input', null, { tenant: 'default', ticket: 'x' }],
    ['a string', 'a string', 'Invalid input for typed: expected a JSON object, got string "a string"'],
    [
      'an input over 8 KiB',
      { ticket: 'x'.repeat(MAX_INPUT_BYTES) },
      `Invalid input for typed: the input is over ${MAX_INPUT_BYTES} bytes of JSON`,
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
});
