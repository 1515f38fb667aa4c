import * as z from 'zod/mini';
import { PlatformError, UnknownToolError } from '../../../functions/runtime/errors';
import { ToolRegistry } from '../../../functions/runtime/registry';
import { defineToolSpec, type ToolSpec } from '../../../functions/runtime/spec';

function spec(name: string): ToolSpec {
  return defineToolSpec({
    name,
    description: `${name} for tests`,
    inputSchema: z.strictObject({ limit: z.optional(z.int()) }),
    tags: ['test'],
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  });
}

/** Error thrown by `act`, for assertions on its fields. */
function thrownBy(act: () => unknown): unknown {
  try {
    act();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('ToolRegistry', () => {
  it('lists tools sorted by name', () => {
    // Act
    const registry = new ToolRegistry([spec('slack_post_message'), spec('aws_ec2_inventory')]);

    // Assess
    expect(registry.names()).toEqual(['aws_ec2_inventory', 'slack_post_message']);
    expect(registry.get('aws_ec2_inventory').description).toBe('aws_ec2_inventory for tests');
    expect(registry.has('slack_post_message')).toBe(true);
    expect(registry.has('nope')).toBe(false);
  });

  it('refuses a duplicate name', () => {
    // Act
    const err = thrownBy(() => new ToolRegistry([spec('aws_ec2_inventory'), spec('aws_ec2_inventory')]));

    // Assess
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({
      code: 'internal_error',
      message: 'Tool "aws_ec2_inventory" is already registered',
    });
  });

  it.each(['awsEc2Inventory', 'aws-ec2', 'Aws_ec2', '_aws', 'aws__ec2', 'aws_', '1aws', ''])(
    'refuses the non-snake_case name %p',
    (name) => {
      expect(() => new ToolRegistry([spec(name)])).toThrow(`Tool name "${name}" is not snake_case`);
    },
  );

  it.each([
    ['z.object (strips unknown keys)', z.object({ limit: z.number() })],
    ['z.looseObject (passes unknown keys)', z.looseObject({ limit: z.number() })],
  ])('refuses a non-strict schema: %s', (_kind, schema) => {
    // Prepare
    const loose = { ...spec('loose_tool'), inputSchema: schema } as unknown as ToolSpec;

    // Act
    const err = thrownBy(() => new ToolRegistry([loose]));

    // Assess
    expect(err).toMatchObject({
      code: 'internal_error',
      message: 'Tool "loose_tool" must use a strict object schema',
    });
  });

  it('names every registered tool when a name is unknown', () => {
    // Prepare
    const registry = new ToolRegistry([spec('b_tool'), spec('a_tool'), spec('c_tool')]);

    // Act
    const err = thrownBy(() => registry.get('d_tool'));

    // Assess
    expect(err).toBeInstanceOf(UnknownToolError);
    expect(err).toMatchObject({
      code: 'unknown_tool',
      message: 'Unknown tool "d_tool". Registered tools: a_tool, b_tool, c_tool',
      details: { registered: ['a_tool', 'b_tool', 'c_tool'] },
    });
  });

  it('returns a defensive copy from list() and names()', () => {
    // Prepare
    const registry = new ToolRegistry([spec('a_tool'), spec('b_tool')]);

    // Act
    const list = registry.list();
    list.pop();
    list.push(spec('intruder'));
    registry.names().push('intruder');

    // Assess
    expect(registry.list().map((tool) => tool.name)).toEqual(['a_tool', 'b_tool']);
    expect(registry.names()).toEqual(['a_tool', 'b_tool']);
    expect(registry.has('intruder')).toBe(false);
  });

  it('builds a subset for a whitelist', () => {
    // Prepare
    const registry = new ToolRegistry([spec('a_tool'), spec('b_tool'), spec('c_tool')]);

    // Act
    const subset = registry.subset(['c_tool', 'a_tool', 'a_tool']);

    // Assess
    expect(subset.names()).toEqual(['a_tool', 'c_tool']);
    expect(subset.get('a_tool')).toBe(registry.get('a_tool'));
    expect(registry.names()).toEqual(['a_tool', 'b_tool', 'c_tool']);
  });

  it('fails a subset with an unknown name, listing the registered ones', () => {
    // Prepare
    const registry = new ToolRegistry([spec('a_tool'), spec('b_tool')]);

    // Act
    const err = thrownBy(() => registry.subset(['a_tool', 'typo_tool']));

    // Assess
    expect(err).toMatchObject({
      code: 'unknown_tool',
      message: 'Unknown tool "typo_tool". Registered tools: a_tool, b_tool',
    });
  });
});
