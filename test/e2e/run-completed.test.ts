import * as path from 'node:path';
import { executeLocally } from '../../bin/local/local-execution';
import { DISPATCHER_ARN_PLACEHOLDER } from '../../lib/scenarios/asl';
import { RUN_COMPLETED_DETAIL_SCHEMA, RUN_EVENT_BUS_PLACEHOLDER } from '../../lib/scenarios/run-events';
import { flattenIntrinsics, stateMachineId, synthesizePlatform } from '../helpers/cdk';
import { GUARDDUTY_FINDING, transformInput } from '../helpers/entry-point-events';

/**
 * EventBridge end to end, locally: the GuardDuty finding of the documentation
 * goes through the synthesized trigger rule's input transformer, the synthesized
 * incident_response state machine runs on that input (its dispatcher Task
 * answered in process), and its last state puts the `Run Completed` event.
 */
const FIXTURE_SCENARIOS = path.join(__dirname, '../fixtures/scenarios');

function synthesized() {
  const { stack, template } = synthesizePlatform({
    scenariosDir: FIXTURE_SCENARIOS,
    scenarioTriggers: [
      {
        scenario: 'incident_response',
        tenant: 'acme',
        eventPattern: { source: ['aws.guardduty'], detailType: ['GuardDuty Finding'] },
        inputs: { finding_id: '$.detail.id', finding_type: '$.detail.type', severity: '$.detail.severity' },
      },
    ],
  });
  const [rule] = Object.values(template.findResources('AWS::Events::Rule')) as {
    Properties: {
      Targets: { InputTransformer: { InputTemplate: string; InputPathsMap: Record<string, string> } }[];
    };
  }[];
  const transformer = rule?.Properties.Targets[0]?.InputTransformer;
  if (!transformer) throw new Error('the trigger rule has no input transformer');
  const machine = template.toJSON().Resources[stateMachineId(stack, 'incident_response')];
  const definition = JSON.parse(
    flattenIntrinsics(machine.Properties.DefinitionString)
      .replaceAll(DISPATCHER_ARN_PLACEHOLDER, 'arn:aws:lambda:eu-west-1:123456789012:function:etp-dispatcher')
      .replaceAll(RUN_EVENT_BUS_PLACEHOLDER, 'etp-run-events'),
  ) as Record<string, unknown>;
  return { transformer, definition };
}

describe('a GuardDuty finding starts incident_response, which publishes Run Completed', () => {
  it('runs with the mapped inputs and puts the event with tenant, scenario, run id, status, summary and cost', async () => {
    // Prepare
    const { transformer, definition } = synthesized();
    const input = transformInput(
      transformer.InputTemplate,
      transformer.InputPathsMap,
      GUARDDUTY_FINDING,
    ) as Record<string, unknown>;
    const envelopes: Record<string, unknown>[] = [];
    const published: unknown[] = [];

    // Act
    const output = await executeLocally(
      definition,
      input,
      async (envelope) => {
        envelopes.push(envelope as Record<string, unknown>);
        return {
          ok: true,
          tool: 'slack_post_message',
          callId: 'alert/0',
          value: {},
          summary: 'posted',
          durationMs: 1,
        };
      },
      {
        runId: 'c8c4daa7-a20c-2f03-0070-b7393dd542ad',
        onPutEvents: (entries) => published.push(...(entries as unknown[])),
      },
    );

    // Assess: the call the scenario made, from the finding's fields and the trigger's tenant
    expect(envelopes).toEqual([
      expect.objectContaining({
        tenant: 'acme',
        scenario: 'incident_response',
        tool: 'slack_post_message',
        args: {
          channel: '#security',
          text: 'GuardDuty finding 16afba5c5c43e07c9e3e5e2e544e95df (Canary:EC2/Stateless.IntegTest), severity 5',
        },
      }),
    ]);
    // …the event, on the platform bus, matching its published schema's fields
    expect(published).toEqual([
      {
        EventBusName: 'etp-run-events',
        Source: 'external-tools-platform',
        DetailType: 'Run Completed',
        Detail: {
          tenant: 'acme',
          scenario: 'incident_response',
          runId: 'c8c4daa7-a20c-2f03-0070-b7393dd542ad',
          executionArn: expect.stringContaining('c8c4daa7-a20c-2f03-0070-b7393dd542ad'),
          status: 'SUCCEEDED',
          summary: 'incident_response finished: 1 call; the results are in the run output',
          cost: null,
        },
      },
    ]);
    const detail = (published[0] as { Detail: Record<string, unknown> }).Detail;
    expect(Object.keys(detail).sort()).toEqual([...RUN_COMPLETED_DETAIL_SCHEMA.required].sort());
    // …and the run's output is what it was without the event
    expect(Object.keys(output as object).sort()).toEqual(['input', 'results', 'scenario']);
  });
});
