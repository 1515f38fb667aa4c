import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios } from '../../lib/scenarios/loader';
import {
  logicalIdOf,
  roleOf,
  rolePermissions,
  stateMachineId,
  synthesizePlatform,
  TRACE_WRITES,
  toolFunctionId,
} from '../helpers/cdk';

const functionToolNames = toolCatalog.functionTools().map((entry) => entry.spec.name);

/** The ARNs `grantInvoke` writes for a function: the function and its qualified (version, alias) ARNs. */
function invokeArns(functionId: string): string[] {
  return [`<${functionId}.Arn>`, `<${functionId}.Arn>:*`];
}

// One synthesis for the file: every case reads the same default stack, none changes it.
const platform = synthesizePlatform();

describe('who may invoke what', () => {
  it('lets the dispatcher invoke exactly the tool functions, and do nothing else but write its logs and traces, and vend tenant sessions (run data included)', () => {
    // Prepare
    const { stack, template } = platform;
    const toolFunctionIds = functionToolNames.map((name) => toolFunctionId(stack, name));
    const logGroup = `<${logicalIdOf(stack.platform.dispatcher.logGroup)}.Arn>`;

    // Act
    const permissions = rolePermissions(
      template,
      roleOf(template, logicalIdOf(stack.platform.dispatcher.lambdaFunction)),
    );

    // Assess
    expect(permissions.filter((p) => p.action === 'lambda:InvokeFunction').map((p) => p.resource)).toEqual(
      toolFunctionIds.flatMap(invokeArns).sort(),
    );
    // The token vending machine: sts on the reader and records roles (test/infra/tool-functions.test.ts).
    // Plan calls ending in the dispatcher are answered by it: SendTask* on the state machines (tool-functions.test.ts).
    expect(
      permissions.filter(
        (p) =>
          p.action !== 'lambda:InvokeFunction' &&
          !p.action.startsWith('sts:') &&
          !(p.action.startsWith('states:SendTask') && p.resource.includes(':stateMachine:')),
      ),
    ).toEqual([
      { action: 'logs:CreateLogStream', resource: logGroup },
      { action: 'logs:PutLogEvents', resource: logGroup },
      // No right of its own on the run workspaces: it reaches them through a tenant-tagged
      // run-data session (test/infra/tenant-isolation.test.ts).
      ...TRACE_WRITES,
    ]);
  });

  it('gives no role but the dispatcher’s any Lambda right on a tool function', () => {
    // Prepare
    const { stack, template } = platform;
    const dispatcherRole = roleOf(template, logicalIdOf(stack.platform.dispatcher.lambdaFunction));
    const toolFunctionIds = functionToolNames.map((name) => toolFunctionId(stack, name));

    // Act
    const grantsOnTools = Object.keys(template.findResources('AWS::IAM::Role'))
      .filter((roleId) => roleId !== dispatcherRole)
      .flatMap((roleId) => rolePermissions(template, roleId).map((permission) => ({ roleId, ...permission })))
      .filter(
        ({ action, resource }) =>
          action.startsWith('lambda:') && toolFunctionIds.some((id) => resource.includes(`<${id}.`)),
      );

    // Assess
    expect(toolFunctionIds).toHaveLength(functionToolNames.length);
    expect(grantsOnTools).toEqual([]);
  });

  it('adds no resource policy (AWS::Lambda::Permission) to any function', () => {
    // Prepare
    const { template } = platform;

    // Act
    const permissions = template.findResources('AWS::Lambda::Permission');

    // Assess
    expect(permissions).toEqual({});
  });

  it.each(loadScenarios(toolCatalog).map((scenario) => scenario.name))(
    'lets the %s state machine invoke the dispatcher and the engine, and no other function',
    (scenario) => {
      // Prepare
      const { stack, template } = platform;
      const stateMachineRole = roleOf(template, stateMachineId(stack, scenario));

      // Act
      const lambdaRights = rolePermissions(template, stateMachineRole).filter((p) =>
        p.action.startsWith('lambda:'),
      );

      // Assess
      expect(lambdaRights).toEqual(
        [
          ...invokeArns(logicalIdOf(stack.platform.dispatcher.lambdaFunction)),
          ...invokeArns(logicalIdOf(stack.platform.engine.lambdaFunction)),
        ].map((resource) => ({ action: 'lambda:InvokeFunction', resource })),
      );
    },
  );
});
