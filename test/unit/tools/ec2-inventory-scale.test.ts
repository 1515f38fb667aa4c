import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { boundResult, jsonByteLength } from '../../../functions/runtime/bound';
import { deadlineIn } from '../../../functions/runtime/deadline';
import type { ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import {
  DEFAULT_RESULT_MAX_BYTES,
  resultMaxBytes,
  STEP_FUNCTIONS_PAYLOAD_BYTES,
} from '../../../functions/runtime/result-limits';
import { ec2InventoryTool, type InventoryInstance } from '../../../functions/tools/aws/ec2-inventory';
import { awsToolServices, EXAMPLE_AWS_SECRET, runAwsTool } from '../../helpers/aws-tool';
import {
  DEFAULT_ENABLED_REGIONS,
  describeInstancesResponder,
  INSTANCE_TYPE_CYCLE,
  pagesIn,
  STATE_CYCLE,
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
  endedInstances: number;
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

/**
 * What the account holds, from its cycles (ordinals run over the regions in
 * order): live instances by region and type, and terminated ones by region,
 * which the inventory counts apart (issue 9, kind 5).
 */
function expectedCounts() {
  const liveByRegion: Record<string, number> = {};
  const terminatedByRegion: Record<string, number> = {};
  const liveByType: Record<string, number> = {};
  let ordinal = 0;
  for (const [region, count] of Object.entries(account.instancesByRegion)) {
    for (let n = 0; n < count; n++, ordinal++) {
      const counts =
        STATE_CYCLE[ordinal % STATE_CYCLE.length] === 'terminated' ? terminatedByRegion : liveByRegion;
      counts[region] = (counts[region] ?? 0) + 1;
      if (counts === liveByRegion) {
        const type = INSTANCE_TYPE_CYCLE[ordinal % INSTANCE_TYPE_CYCLE.length] as string;
        liveByType[type] = (liveByType[type] ?? 0) + 1;
      }
    }
  }
  return { liveByRegion, terminatedByRegion, liveByType };
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
    // 1 in 10 instances is terminated: counted apart, in no total.
    const expected = expectedCounts();
    expect(value.totalInstances).toBe(9_000);
    expect(value.byState).toEqual({ running: 7_000, stopped: 2_000 });
    expect(value.endedInstances).toBe(1_000);
    expect(value.byInstanceType).toEqual(expected.liveByType);
    expect(sum(value.byInstanceType)).toBe(9_000);
    expect(value.regions).toEqual(
      DEFAULT_ENABLED_REGIONS.map((region) => ({
        region,
        instanceCount: expected.liveByRegion[region],
        ...(expected.terminatedByRegion[region]
          ? { endedInstances: expected.terminatedByRegion[region] }
          : {}),
        pages: pagesIn(account, region),
      })),
    );
    expect(value.regions[0]).toEqual({
      region: 'us-east-1',
      instanceCount: 2_624,
      endedInstances: 291,
      pages: 3,
    });
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
    expect([900, 1_800]).toContain(usEast1?.instanceCount); // 1 or 2 pages of 1,000, 1 in 10 terminated
    expect(ec2Mock.commandCalls(DescribeInstancesCommand).length).toBeLessThan(20);
    expect(jsonByteLength(result)).toBeLessThanOrEqual(DEFAULT_RESULT_MAX_BYTES);
  });
});
