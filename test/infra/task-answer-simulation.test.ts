import { planCallTools } from '../../lib/callback-grants';
import { logicalIdOf, roleOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
} from '../helpers/iam-simulation';

/**
 * Who may answer a plan call's task token, on the synthesized policies and an IAM
 * policy simulator (@cloud-copilot/iam-simulate). The Service Authorization
 * Reference lists no resource type for `states:SendTaskSuccess`, `SendTaskFailure`
 * and `SendTaskHeartbeat`, so the simulator evaluates them against `"*"` only: it
 * cannot show that the grant on a scenario's state machine ARN allows an answer
 * (the service checks that against the token's state machine: docs/architecture.md,
 * "Who may answer a task token"; the exact resources are asserted by
 * test/infra/tool-functions.test.ts). What it does prove: no role that answers
 * tokens holds them on `"*"` (so none answers another state machine's tokens
 * through a wildcard), and none may start, stop or redrive an execution.
 */
const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const ANSWERS = ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'];

let platform: ResolvedTemplate;
let answerers: { name: string; roleId: string }[];
let machineArn: string;

beforeAll(() => {
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: ACCOUNT, region: REGION });
  const planTools = new Set(stack.platform.scenarios.flatMap((scenario) => [...planCallTools(scenario)]));
  answerers = [
    { name: 'dispatcher', roleId: logicalIdOf(stack.platform.dispatcher.role) },
    ...Object.keys(stack.platform.toolFunctions)
      .filter((tool) => planTools.has(tool))
      .map((tool) => ({ name: tool, roleId: roleOf(template, toolFunctionId(stack, tool)) })),
  ];
  const [scenario] = stack.platform.scenarios;
  machineArn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${stack.platform.dispatcherConfig.toolFunctionNamePrefix}${scenario?.name}`;
});

function request(roleId: string, action: string, resource: string, extra: NamedPolicy[] = []) {
  return decide({
    principal: sessionOf(arnIn(platform, roleId), 'etp.acme'),
    identityPolicies: [...identityPoliciesOf(platform, roleId), ...extra],
    action,
    resource,
    resourceAccount: ACCOUNT,
  });
}

describe('the roles that answer plan calls’ task tokens', () => {
  it('are the dispatcher and the tools of plan levels', () => {
    expect(answerers.map((answerer) => answerer.name)).toContain('dispatcher');
    expect(answerers.length).toBeGreaterThan(1);
  });

  it('hold no task answer on "*": the simulator would allow one under a "*" grant, and refuses theirs', async () => {
    const wildcard: NamedPolicy = {
      name: 'WildcardAnswers',
      policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ANSWERS, Resource: '*' }] },
    };
    for (const { roleId } of answerers) {
      for (const action of ANSWERS) {
        // The control: a "*" grant is what the simulator needs to allow it.
        expect(await request(roleId, action, '*', [wildcard])).toBe('Allowed');
        expect(await request(roleId, action, '*')).toBe('ImplicitlyDenied');
      }
    }
  });

  it('may not start, stop or redrive an execution of any state machine', async () => {
    const execution = `${machineArn.replace(':stateMachine:', ':execution:')}:run-1`;
    for (const { roleId } of answerers) {
      expect(await request(roleId, 'states:StartExecution', machineArn)).toBe('ImplicitlyDenied');
      expect(await request(roleId, 'states:StopExecution', execution)).toBe('ImplicitlyDenied');
      expect(await request(roleId, 'states:RedriveExecution', execution)).toBe('ImplicitlyDenied');
    }
  });
});
