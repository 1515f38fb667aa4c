import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { jsonByteLength, STEP_FUNCTIONS_PAYLOAD_BYTES } from '../../../functions/runtime/bound';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { boundResult, DEFAULT_RESULT_MAX_BYTES, resultMaxBytes } from '../../../functions/runtime/harness';
import type { ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { ec2InventoryTool, type InventoryInstance } from '../../../functions/tools/aws/ec2-inventory';
import { awsToolServices, EXAMPLE_AWS_SECRET, runAwsTool } from '../../helpers/aws-tool';
import {
  DEFAULT_ENABLED_REGIONS,
  describeInstancesResponder,
  pagesIn,
  unevenAccount,
} from '../../helpers/ec2-pages';

const ec2Mock = mockClient(EC2Client);

/** 10,000 instances over the 17 default regions, 2,915 of them in us-east-1 (3 pages). */
const account = unevenAccount(10_000, DEFAULT_ENABLED_REGIONS);

// aws_default holds the AWS docs' example keys: no credential chain, and the mocked client never signs.
const services = awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' });

/** The inventory's value (functions/tools/aws/ec2-inventory.ts). */
interface InventoryValue {
  totalInstances: number;
  byState: Record<string, number>;
  byInstanceType: Record<string, number>;
  instances: InventoryInstance[];
  regions: { region: string; instanceCount: number; pages: number; stoppedBy?: string }[];
  skippedRegions: string[];
}

/** One call as the dispatcher returns it: the tool's harness, then the dispatcher's bound (64 KiB by default). */
async function inventoryThroughDispatcherBound(budgetMs: number): Promise<ToolResult> {
  const result = await runAwsTool(
    ec2InventoryTool,
    { regions: DEFAULT_ENABLED_REGIONS },
    { services, deadline: deadlineIn(budgetMs) },
  );
  return boundResult(result, resultMaxBytes({}));
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((total, n) => total + n, 0);
}

describe('aws_ec2_inventory over 10,000 instances in 17 regions', () => {
  beforeEach(() => {
    ec2Mock.reset();
  });

  it('stays within the Step Functions limit and the result bound with exact counts', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).callsFake(describeInstancesResponder(account));

    // Act
    const result = await inventoryThroughDispatcherBound(60_000);

    // Assess
    expect(result).toMatchObject({ ok: true, truncated: false });
    expect(jsonByteLength(result)).toBeLessThanOrEqual(DEFAULT_RESULT_MAX_BYTES);
    expect(jsonByteLength(result)).toBeLessThanOrEqual(STEP_FUNCTIONS_PAYLOAD_BYTES);
    const value = (result as ToolSuccess<InventoryValue>).value;
    expect(value.totalInstances).toBe(10_000);
    expect(value.byState).toEqual({ running: 7_000, stopped: 2_000, terminated: 1_000 });
    expect(value.byInstanceType).toEqual({
      't3.micro': 3_750,
      't3.large': 2_500,
      'm5.xlarge': 1_250,
      'c5.2xlarge': 1_250,
      'r6g.large': 1_250,
    });
    expect(value.regions).toEqual(
      DEFAULT_ENABLED_REGIONS.map((region) => ({
        region,
        instanceCount: account.instancesByRegion[region],
        pages: pagesIn(account, region),
      })),
    );
    expect(value.regions[0]).toEqual({ region: 'us-east-1', instanceCount: 2_915, pages: 3 });
    expect(value.skippedRegions).toEqual([]);
    expect(ec2Mock.commandCalls(DescribeInstancesCommand)).toHaveLength(20);
    expect(value.instances).toHaveLength(20);
    expect(value.instances.every((i) => i.state === 'running')).toBe(true);
    expect(value.instances[0]).toEqual({
      instanceId: 'i-00000000000000000',
      region: 'us-east-1',
      name: 'app-0',
      instanceType: 't3.micro',
      state: 'running',
      launchTime: '2024-01-01T00:00:00.000Z',
      privateIpAddress: '10.0.0.0',
      publicIpAddress: '203.0.0.0',
      platform: 'Linux/UNIX',
    });
  });

  it('returns partial counts marked truncated when the deadline passes between pages', async () => {
    // Prepare: 20 ms a page, 30 ms budget: us-east-1's third page (from 40 ms on) is never read.
    ec2Mock.on(DescribeInstancesCommand).callsFake(describeInstancesResponder(account, { latencyMs: 20 }));

    // Act
    const result = await inventoryThroughDispatcherBound(30);

    // Assess
    expect(result).toMatchObject({ ok: true, truncated: true });
    const value = (result as ToolSuccess<InventoryValue>).value;
    expect(value.totalInstances).toBeGreaterThan(0);
    expect(value.totalInstances).toBeLessThan(10_000);
    expect(sum(value.byState)).toBe(value.totalInstances);
    expect(sum(value.byInstanceType)).toBe(value.totalInstances);
    const counted = value.regions.reduce((total, r) => total + r.instanceCount, 0);
    expect(counted).toBe(value.totalInstances);
    const usEast1 = value.regions.find((r) => r.region === 'us-east-1');
    expect(usEast1?.stoppedBy).toBe('deadline');
    expect([1_000, 2_000]).toContain(usEast1?.instanceCount);
    expect(ec2Mock.commandCalls(DescribeInstancesCommand).length).toBeLessThan(20);
    expect(jsonByteLength(result)).toBeLessThanOrEqual(DEFAULT_RESULT_MAX_BYTES);
  });
});
