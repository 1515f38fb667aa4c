import * as z from 'zod/mini';
import { ToolRegistry } from '../../../functions/runtime/registry';
import { defineTool, defineToolSpec, publicSpec } from '../../../functions/runtime/spec';

function lazySpec(build: () => z.ZodMiniObject<z.core.$ZodShape, z.core.$strict>) {
  return defineToolSpec({
    name: 'lazy_tool',
    description: 'Builds its schema on first use.',
    inputSchema: build,
    tags: [],
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  });
}

describe('defineToolSpec with a schema factory', () => {
  it('builds the schema on first use only, once, through registry and defineTool', () => {
    // Prepare
    const build = jest.fn(() => z.strictObject({ limit: z.optional(z.int()) }));
    const spec = lazySpec(build);
    const tool = defineTool(spec, async () => ({ value: null }));
    const registry = new ToolRegistry([spec]);

    // Assess: nothing built by declaring, registering or attaching a handler
    expect(build).not.toHaveBeenCalled();

    // Act
    const first = registry.get('lazy_tool').inputSchema;
    const again = tool.inputSchema;

    // Assess
    expect(build).toHaveBeenCalledTimes(1);
    expect(again).toBe(first);
    expect(publicSpec(spec).inputSchema).toMatchObject({ additionalProperties: false });
  });

  it('refuses a schema that is not a strict object when it is built', () => {
    // Prepare
    const spec = lazySpec(() => z.object({ limit: z.number() }) as never);

    // Act / Assess
    expect(() => spec.inputSchema).toThrow('Tool "lazy_tool" must use a strict object schema');
  });
});
