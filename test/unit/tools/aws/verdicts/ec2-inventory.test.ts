/**
 * Issue 9 for aws_ec2_inventory: kind 5 (terminated and shutting-down instances
 * counted as live), kind 8 (a partial region leaking into the totals), kind 1
 * (state names in any spelling) and kind 9 (duplicates); on the instance shape
 * the AWS CLI reference documents too.
 */
import { DescribeInstancesCommand, EC2Client, EC2ServiceException, type Instance } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { ec2InventoryTool, type InventoryInstance } from '../../../../../functions/tools/aws/ec2-inventory';
import { DOCUMENTED_INSTANCES } from '../../../../helpers/aws-documented-examples';
import { expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../../helpers/ec2-pages';

const ec2Mock = mockClient(EC2Client);

interface InventoryValue {
  totalInstances: number;
  byState: Record<string, number>;
  byInstanceType: Record<string, number>;
  endedInstances: number;
  endedByState: Record<string, number>;
  duplicatesSkipped: number;
  unrecognizedValues: Record<string, number>;
  instances: InventoryInstance[];
  regions: Record<string, unknown>[];
}

async function inventory(args: Record<string, unknown>) {
  return expectSuccess<InventoryValue>(await runAwsTool(ec2InventoryTool, args));
}

/** An instance as DescribeInstances returns it (EC2 API reference, "Instance", "InstanceState"). */
function instance(id: string, state: string, launched: string, type = 't3.micro'): Instance {
  const codes: Record<string, number> = {
    pending: 0,
    running: 16,
    'shutting-down': 32,
    terminated: 48,
    stopping: 64,
    stopped: 80,
  };
  return {
    InstanceId: id,
    InstanceType: type as Instance['InstanceType'],
    State: { Code: codes[state.toLowerCase()] ?? 16, Name: state as never },
    LaunchTime: new Date(launched),
  };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

beforeEach(() => {
  ec2Mock.reset();
});

describe('aws_ec2_inventory counts ended instances apart (issue 9, kind 5)', () => {
  it('keeps terminated and shutting-down instances out of the totals and out of the top N', async () => {
    // Prepare: older terminated instances would have pushed the stopped one out of a top 2.
    ec2Mock.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            instance('i-0000000000000run', 'running', '2024-05-01T00:00:00Z'),
            instance('i-000000000000stop', 'stopped', '2023-05-01T00:00:00Z'),
            instance('i-00000000000term1', 'terminated', '2019-01-01T00:00:00Z'),
            instance('i-00000000000term2', 'terminated', '2018-01-01T00:00:00Z'),
            instance('i-00000000000shut1', 'shutting-down', '2017-01-01T00:00:00Z'),
          ],
        },
      ],
    });

    // Act
    const { value, summary } = await inventory({ regions: ['eu-west-1'], topN: 2 });

    // Assess
    expect(value.totalInstances).toBe(2);
    expect(value.byState).toEqual({ running: 1, stopped: 1 });
    expect(value.endedInstances).toBe(3);
    expect(value.endedByState).toEqual({ terminated: 2, 'shutting-down': 1 });
    expect(value.instances.map((i) => i.instanceId)).toEqual(['i-0000000000000run', 'i-000000000000stop']);
    expect(summary).toBe(
      '2 EC2 instances in 1 region (1 running; 3 terminated or shutting down, not counted)',
    );
  });
});

describe('aws_ec2_inventory merges a region only when its read completes (issue 9, kind 8)', () => {
  it('adds nothing of a region that answers page 1 and fails on page 2; totals add up', async () => {
    // Prepare: the case: eu-west-1 has 4 instances; us-east-1 answers 2, then fails.
    ec2Mock.on(DescribeInstancesCommand).callsFake(async (input: { NextToken?: string }, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'eu-west-1') {
        return {
          Reservations: [
            {
              Instances: [1, 2, 3, 4].map((n) =>
                instance(`i-00000000000eu00${n}`, n === 4 ? 'stopped' : 'running', '2024-01-01'),
              ),
            },
          ],
        };
      }
      if (!input.NextToken) {
        return {
          Reservations: [
            {
              Instances: [
                instance('i-00000000000us001', 'running', '2020-01-01'),
                instance('i-00000000000us002', 'running', '2020-01-02'),
              ],
            },
          ],
          NextToken: 'page-2',
        };
      }
      throw new EC2ServiceException({
        name: 'InternalError',
        message: 'An internal error has occurred',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      });
    });

    // Act
    const { value, summary } = await inventory({ regions: ['eu-west-1', 'us-east-1'] });

    // Assess
    expect(value.totalInstances).toBe(4);
    expect(sum(value.byState)).toBe(4);
    expect(sum(value.byInstanceType)).toBe(4);
    expect(value.instances.map((i) => i.region)).not.toContain('us-east-1');
    expect(value.regions).toEqual([
      { region: 'eu-west-1', instanceCount: 4, pages: 1 },
      { region: 'us-east-1', error: expect.objectContaining({ code: 'upstream_error' }) },
    ]);
    expect(summary).toBe('4 EC2 instances in 2 regions (3 running); 1 region failed');
  });

  it('marks a region cut by the page cap as partial and still adds up', async () => {
    // Prepare: every page points at one more.
    ec2Mock.on(DescribeInstancesCommand).callsFake(async (input: { NextToken?: string }) => {
      const page = Number(input.NextToken ?? '0');
      return {
        Reservations: [
          { Instances: [instance(`i-${String(page).padStart(17, '0')}`, 'running', '2024-01-01')] },
        ],
        NextToken: String(page + 1),
      };
    });

    // Act
    const result = await inventory({ regions: ['eu-west-1'] });

    // Assess
    expect(result.truncated).toBe(true);
    expect(result.value.regions).toEqual([
      { region: 'eu-west-1', instanceCount: 100, pages: 100, stoppedBy: 'page_cap', nextToken: '100' },
    ]);
    expect(result.value.totalInstances).toBe(sum(result.value.byState));
  });
});

describe('aws_ec2_inventory reads states in any spelling and counts instances once (issue 9, kinds 1 and 9)', () => {
  it('counts RUNNING as running and reports a state it does not know', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            instance('i-0000000000000001', 'RUNNING', '2024-01-01'),
            instance('i-0000000000000002', 'SHUTTING_DOWN', '2024-01-01'),
            instance('i-0000000000000003', 'hibernating', '2024-01-01'),
            instance('i-0000000000000001', 'running', '2024-01-01'),
          ],
        },
      ],
    });

    // Act
    const { value, summary } = await inventory({ regions: ['eu-west-1'] });

    // Assess
    expect(value.byState).toEqual({ running: 1, hibernating: 1 });
    expect(value.endedByState).toEqual({ 'shutting-down': 1 });
    expect(value.unrecognizedValues).toEqual({ 'State.Name:hibernating': 1 });
    expect(value.duplicatesSkipped).toBe(1);
    expect(value.totalInstances).toBe(2);
    expect(summary).toMatch(/; unrecognized values: State\.Name:hibernating \(1\)$/);
  });

  it('holds on the instances the AWS CLI reference documents (no State in the answer): live, state unknown', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: DOCUMENTED_INSTANCES }] });

    // Act
    const { value } = await inventory({ regions: ['us-east-1'] });

    // Assess
    expect(value.totalInstances).toBe(2);
    expect(value.byState).toEqual({ unknown: 2 });
    expect(value.byInstanceType).toEqual({ 'r4.large': 2 });
    expect(value.unrecognizedValues).toEqual({}); // absent is not unrecognized
    expect(value.instances.map((i) => [i.instanceId, i.state])).toEqual([
      ['i-0123a456700123456', 'unknown'],
      ['i-9876a543210987654', 'unknown'],
    ]);
  });
});
