import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { SCENARIOS_DIR } from '../../lib/scenarios/loader';
import { flattenIntrinsics, logicalIdOf, stateMachineId, synthesizePlatform } from '../helpers/cdk';

const ORG_SCENARIO = `
name: org_audit
description: Per-account audit.
inputs:
  accounts: { type: accounts, description: Accounts, default: all }
levels:
  - name: collect
    kind: plan
    concurrency: 2
    for_each_account: { accounts_per_child: 2 }
    intra_tools: [aws_ebs_inventory, aws_eips_audit]
    calls:
      - tool: aws_ebs_inventory
      - tool: aws_eips_audit
`;

describe('a scenario with a per-account level', () => {
  let dir: string;
  let synthesized: ReturnType<typeof synthesizePlatform>;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'etp-org-infra-'));
    cpSync(SCENARIOS_DIR, dir, { recursive: true });
    writeFileSync(path.join(dir, 'org_audit.yaml'), ORG_SCENARIO);
    synthesized = synthesizePlatform({ scenariosDir: dir, lambdaConcurrency: 400 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes MaxConcurrency from lambdaConcurrency and substitutes the workspace bucket', () => {
    const { stack, template } = synthesized;
    const machine = template.findResources('AWS::StepFunctions::StateMachine')[
      stateMachineId(stack, 'org_audit')
    ];
    const properties = machine?.Properties as { DefinitionString: unknown; DefinitionSubstitutions: unknown };
    const definition = JSON.parse(flattenIntrinsics(properties.DefinitionString));
    // 400 / (2 calls in flight × 1 function) / 2 accounts per child
    expect(definition.States.collect_accounts.MaxConcurrency).toBe(100);
    expect(properties.DefinitionSubstitutions).toMatchObject({
      WorkspaceBucket: { Ref: logicalIdOf(stack.platform.runWorkspace.bucket) },
    });
  });

  it("lets the role start only its own children and touch only the level's files", () => {
    const { stack, template } = synthesized;
    const machine = stack.platform.stateMachines.org_audit;
    const roleId = logicalIdOf(machine?.role as never);
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: roleId }] },
    });
    const statements = Object.values(policies).flatMap(
      (policy) =>
        (policy.Properties as { PolicyDocument: { Statement: Record<string, unknown>[] } }).PolicyDocument
          .Statement,
    );
    const text = (value: unknown) => flattenIntrinsics(value);
    const of = (action: string) =>
      statements.filter((s) => [s.Action].flat().includes(action)).map((s) => text(s.Resource));
    const name = `${stack.platform.dispatcherConfig.toolFunctionNamePrefix}org_audit`;
    expect(of('states:StartExecution')).toEqual([
      expect.stringMatching(new RegExp(`:stateMachine:${name}"?$`)),
    ]);
    expect(of('states:StopExecution')).toEqual([
      expect.stringMatching(new RegExp(`:execution:${name}/\\*"?$`)),
    ]);
    expect(of('states:RedriveExecution')).toEqual([
      expect.stringMatching(new RegExp(`:execution:${name}/collect:\\*"?$`)),
    ]);
    expect(of('s3:PutObject')).toEqual([
      expect.stringMatching(/\/runs\/\*\/org_audit\/\*\/levels\/collect\/map\/\*"?$/),
    ]);
    expect(of('s3:GetObject').sort()).toEqual(
      [
        expect.stringMatching(/\/runs\/\*\/org_audit\/\*\/levels\/collect\/accounts\.json"?$/),
        expect.stringMatching(/\/runs\/\*\/org_audit\/\*\/levels\/collect\/map\/\*"?$/),
      ].sort(),
    );
    expect(
      statements.some((s) =>
        [s.Action]
          .flat()
          .some(
            (a) =>
              String(a).startsWith('s3:') &&
              a !== 's3:GetObject' &&
              a !== 's3:PutObject' &&
              a !== 's3:ListMultipartUploadParts' &&
              a !== 's3:AbortMultipartUpload',
          ),
      ),
    ).toBe(false);
  });

  it('gives scenarios without one no such right', () => {
    const { stack, template } = synthesized;
    const roleId = logicalIdOf(stack.platform.stateMachines.aws_pulse?.role as never);
    template.resourcePropertiesCountIs(
      'AWS::IAM::Policy',
      {
        Roles: [{ Ref: roleId }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Action: 'states:StartExecution' })]),
        },
      },
      0,
    );
  });
});
