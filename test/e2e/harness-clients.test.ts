import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { PlanLevelRecord } from '../../functions/engine/records';
import { logger } from '../../functions/runtime/logger';
import { describeInstancesResponder } from '../helpers/ec2-pages';
import { type ScenarioHarness, startScenarioHarness } from '../helpers/scenario-harness';

/**
 * A tool's test mocks the SDK client classes of its own calls, process-wide
 * (aws-sdk-client-mock stubs the class's `send`). The harness's own calls — the
 * dispatcher invoking a tool's function, the run records in DynamoDB — go
 * through client classes of their own (test/helpers/platform-sdk.ts), so a new
 * tool that reads Lambda or DynamoDB cannot break an unrelated end-to-end run.
 */

// What a new aws_lambda_inventory tool's test or API-call case does: mock the Lambda and DynamoDB clients.
const lambda = mockClient(LambdaClient);
const dynamodb = mockClient(DynamoDBClient);
const ec2 = mockClient(EC2Client);

const SMALL_PLAN = `
name: harness_clients
description: One inventory call, for the harness's client isolation.
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
levels:
  - name: collect
    intra_tools: [aws_ec2_inventory]
    calls:
      - tool: aws_ec2_inventory
        args: { regions: [eu-west-1] }
`;

let harness: ScenarioHarness;

jest.setTimeout(60_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  harness = await startScenarioHarness({ files: { 'harness_clients.yaml': SMALL_PLAN } });
}, 120_000);

afterAll(async () => {
  await harness.stop();
  lambda.restore();
  dynamodb.restore();
  ec2.restore();
});

describe('the scenario harness, beside a test that mocks the Lambda and DynamoDB clients', () => {
  it('still invokes the tool function and records the run through its own clients', async () => {
    // Prepare: the tool's mocks answer nothing, as a fresh mockClient does
    lambda.on(InvokeCommand).resolves({});
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 2 }, pageSize: 1000 }));

    // Act
    const run = await harness.run('harness_clients', { runId: 'harness-clients-1' });

    // Assess: the call reached the real tool handler, and no platform call went to the tests' mocks
    const collect = run.output.levels.collect as PlanLevelRecord;
    expect(collect.calls.map((c) => [c.tool, c.ok])).toEqual([['aws_ec2_inventory', true]]);
    expect(collect.calls[0]?.summary).toMatch(/^2 EC2 instances in 1 region/);
    expect(run.output.summary.outcome).toBe('succeeded');
    expect(lambda.calls()).toHaveLength(0);
    expect(dynamodb.calls()).toHaveLength(0);
  });
});
