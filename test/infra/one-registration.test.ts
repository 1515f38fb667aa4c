import * as z from 'zod/mini';
import { fileTool, functionTool, type ToolCatalog } from '../../functions/runtime/catalog';
import { defineTool, defineToolSpec } from '../../functions/runtime/spec';
import { logicalIdOf, roleOf, rolePermissions } from '../helpers/cdk';

/**
 * There is one place to register a tool: `functions/tools/catalog.ts`. The test
 * adds one function tool and one file tool to that list — and nothing else — and
 * checks that every consumer sees them: the CDK functions and their IAM, the
 * dispatcher's registry and file tools, the scenario loader, `docs/tools.md`'s
 * generator, `etp tools list`, and the lists the infra tests derive.
 */
const probeSpec = defineToolSpec({
  name: 'registration_probe',
  description: 'A tool registered by the test only.',
  inputSchema: () => z.strictObject({ text: z.string() }),
  tags: ['test'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [{ actions: ['ec2:DescribeAvailabilityZones'] }],
});
const probeFileTool = defineTool(
  defineToolSpec({
    name: 'registration_probe_file',
    description: 'A file tool registered by the test only.',
    inputSchema: () => z.strictObject({}),
    tags: ['workspace'],
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  }),
  async () => ({ value: { probed: true } }),
);

/** The consumers of the catalog, loaded against a catalog with the two probes added. */
interface ProbedModules {
  readonly toolCatalog: ToolCatalog;
  readonly synthesizePlatform: typeof import('../helpers/cdk').synthesizePlatform;
  readonly createDispatcher: typeof import('../../functions/dispatcher/dispatch').createDispatcher;
  readonly loadScenarios: typeof import('../../lib/scenarios/loader').loadScenarios;
  readonly toolCatalogMarkdown: typeof import('../../bin/cli/tool-docs').toolCatalogMarkdown;
  readonly etp: typeof import('../unit/cli/run-etp').etp;
}

function withProbesRegistered(): ProbedModules {
  const loaded: { modules?: ProbedModules } = {};
  jest.isolateModules(() => {
    const real = jest.requireActual<typeof import('../../functions/tools/catalog')>(
      '../../functions/tools/catalog',
    );
    const { ToolCatalog } = jest.requireActual<typeof import('../../functions/runtime/catalog')>(
      '../../functions/runtime/catalog',
    );
    const toolCatalog = new ToolCatalog([
      ...real.toolCatalog.functionTools(),
      ...real.toolCatalog.fileTools().map(fileTool),
      // Any existing implementation module: bundling is skipped, the entry file must only exist.
      functionTool(probeSpec, 'aws/ec2-inventory'),
      fileTool(probeFileTool),
    ]);
    jest.doMock('../../functions/tools/catalog', () => ({ toolCatalog }));
    loaded.modules = {
      toolCatalog,
      synthesizePlatform: require('../helpers/cdk').synthesizePlatform,
      createDispatcher: require('../../functions/dispatcher/dispatch').createDispatcher,
      loadScenarios: require('../../lib/scenarios/loader').loadScenarios,
      toolCatalogMarkdown: require('../../bin/cli/tool-docs').toolCatalogMarkdown,
      etp: require('../unit/cli/run-etp').etp,
    };
  });
  if (!loaded.modules) throw new Error('modules not loaded');
  return loaded.modules;
}

describe('one place to register a tool', () => {
  const probed = withProbesRegistered();

  it('gives the function tool its own function, named for it, with exactly its IAM, invocable by the dispatcher', () => {
    // Act
    const { stack, template } = probed.synthesizePlatform();

    // Assess
    const probe = stack.platform.toolFunctions.registration_probe;
    if (!probe) throw new Error('no function for registration_probe');
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'ExternalToolsPlatform-registration_probe',
      Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'registration_probe' } },
    });
    const permissions = rolePermissions(template, roleOf(template, logicalIdOf(probe.lambdaFunction)));
    expect(permissions).toContainEqual({ action: 'ec2:DescribeAvailabilityZones', resource: '*' });
    const dispatcherRole = roleOf(template, logicalIdOf(stack.platform.dispatcher.lambdaFunction));
    expect(rolePermissions(template, dispatcherRole)).toContainEqual({
      action: 'lambda:InvokeFunction',
      resource: `<${logicalIdOf(probe.lambdaFunction)}.Arn>`,
    });
    expect(Object.keys(stack.platform.toolFunctions).sort()).toEqual(
      probed.toolCatalog
        .functionTools()
        .map((entry) => entry.spec.name)
        .sort(),
    );
    // The file tool runs in the dispatcher: no function of its own.
    expect(stack.platform.toolFunctions.registration_probe_file).toBeUndefined();
  });

  it('lets the dispatcher run the file tool at any level and validate the function tool', async () => {
    // Prepare
    const { logger } = jest.requireActual<typeof import('../../functions/runtime/logger')>(
      '../../functions/runtime/logger',
    );
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const dispatch = probed.createDispatcher({
      catalog: probed.toolCatalog,
      whitelists: { demo: { only: ['aws_ec2_inventory'] } },
      invoker: { invoke: async () => Promise.reject(new Error('not invoked in this test')) },
      services: { logger },
      logger,
      maxResultBytes: 64 * 1024,
      requireLevel: true,
    });
    const envelope = { tenant: 'default', scenario: 'demo', level: 'only', runId: 'r1', callId: 'only/0' };

    // Act
    const file = await dispatch({ ...envelope, tool: 'registration_probe_file' }, deadline());
    const notAllowed = await dispatch({ ...envelope, tool: 'registration_probe', args: {} }, deadline());

    // Assess
    expect(file).toMatchObject({ ok: true, value: { probed: true } });
    expect(notAllowed).toMatchObject({ ok: false, error: { code: 'tool_not_allowed' } });
    jest.restoreAllMocks();
  });

  it('lists both in the docs generator and in etp tools list', async () => {
    // Act
    const markdown = probed.toolCatalogMarkdown(probed.toolCatalog.list());
    const listed = await probed.etp(['tools', 'list']);

    // Assess
    expect(markdown).toContain('## registration_probe\n');
    expect(markdown).toContain('## registration_probe_file\n');
    expect(listed.out).toMatch(/^registration_probe\s/m);
    expect(listed.out).toMatch(/^registration_probe_file\s/m);
  });

  it('lets a scenario level name it', () => {
    // Act
    const scenarios = probed.loadScenarios(probed.toolCatalog);

    // Assess: the shipped scenarios still load against the larger catalog
    expect(scenarios.length).toBeGreaterThan(0);
    expect(probed.toolCatalog.fileToolNames()).toContain('registration_probe_file');
  });
});

function deadline() {
  const { deadlineIn } = jest.requireActual<typeof import('../../functions/runtime/deadline')>(
    '../../functions/runtime/deadline',
  );
  return deadlineIn(10_000);
}
