/**
 * Issue 9 for aws_ebs_inventory and aws_eips_audit: kind 11 (prices per region,
 * "estimate unavailable" outside the table), kind 5 (deleting volumes), kind 1
 * (type and state spellings), kind 9 (duplicates), on the volumes and addresses
 * AWS documents.
 */
import {
  DescribeAddressesCommand,
  DescribeSnapshotsCommand,
  DescribeVolumesCommand,
  EC2Client,
  type Volume,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { type EbsInventoryValue, ebsInventoryTool } from '../../../../../functions/tools/aws/ebs-inventory';
import { type EipsAuditValue, eipsAuditTool } from '../../../../../functions/tools/aws/eips-audit';
import { DOCUMENTED_ADDRESSES, DOCUMENTED_VOLUMES } from '../../../../helpers/aws-documented-examples';
import { expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const ec2Mock = mockClient(EC2Client);

async function volumes(regions: string[]) {
  return expectSuccess<EbsInventoryValue>(await runAwsTool(ebsInventoryTool, { regions }));
}

async function addresses(regions: string[]) {
  return expectSuccess<EipsAuditValue>(await runAwsTool(eipsAuditTool, { regions }));
}

/** An encrypted volume as DescribeVolumes returns it (EC2 API reference, "Volume"). */
function volume(
  id: string,
  type: string,
  sizeGiB: number,
  state: string,
  extra: Partial<Volume> = {},
): Volume {
  return {
    VolumeId: id,
    VolumeType: type as Volume['VolumeType'],
    Size: sizeGiB,
    State: state as Volume['State'],
    Encrypted: true,
    CreateTime: new Date('2025-01-01T00:00:00Z'),
    ...extra,
  };
}

beforeEach(() => {
  ec2Mock.reset();
  ec2Mock.on(DescribeSnapshotsCommand).resolves({ Snapshots: [] });
});

describe('aws_ebs_inventory prices each region by its own price (issue 9, kind 11)', () => {
  it('prices São Paulo at its rate, not at us-east-1’s', async () => {
    // Prepare: a 100 GiB unattached gp2 volume.
    ec2Mock
      .on(DescribeVolumesCommand)
      .resolves({ Volumes: [volume('vol-0000000000000sa1', 'gp2', 100, 'available')] });

    // Act
    const { value } = await volumes(['sa-east-1']);

    // Assess
    expect(value.unattachedMonthlyUsd).toBe(19); // 100 × $0.19, where us-east-1's $0.10 would say 10
    expect(value.findings.top[0]?.monthlyCost).toEqual({
      usd: 19,
      priceSource: 'Amazon EBS pricing, sa-east-1 (price table 2026-11)',
    });
  });

  it('says "estimate unavailable" for a volume type or a region the table has no price for', async () => {
    // Prepare: st1 is not in eu-west-1's table; ap-east-1 is not in the table at all.
    ec2Mock.on(DescribeVolumesCommand).resolves({
      Volumes: [
        volume('vol-00000000000000st1', 'st1', 500, 'available'),
        volume('vol-0000000000000gp2', 'gp2', 200, 'in-use'),
      ],
    });

    // Act
    const { value, summary } = await volumes(['eu-west-1', 'ap-east-1']);

    // Assess
    expect(
      value.regions.map((r) => ('volumesWithoutPrice' in r ? [r.region, r.volumesWithoutPrice] : [])),
    ).toEqual([
      ['eu-west-1', 1],
      ['ap-east-1', 2],
    ]);
    expect(value.estimatedMonthlyUsd).toBe(22); // only eu-west-1's gp2: 200 × $0.11
    const unpriced = value.findings.top.filter((f) => f.details?.estimate === 'unavailable');
    expect(unpriced.map((f) => [f.region, f.check])).toEqual(
      expect.arrayContaining([
        ['eu-west-1', 'ebs_unattached_volume'],
        ['ap-east-1', 'ebs_unattached_volume'],
        ['ap-east-1', 'ebs_gp2_to_gp3'],
      ]),
    );
    expect(unpriced.every((f) => f.monthlyCost === undefined)).toBe(true);
    expect(
      value.findings.top.find((f) => f.region === 'ap-east-1' && f.check === 'ebs_gp2_to_gp3')?.title,
    ).toBe(
      'EBS volume vol-0000000000000gp2 (200 GiB gp2) could move to gp3 (monthly saving: estimate unavailable in ap-east-1)',
    );
    expect(summary).toContain('price unavailable for 3');
  });
});

describe('aws_ebs_inventory counts deleting volumes apart, reads spellings, counts once (issue 9, kinds 5, 1, 9)', () => {
  it('keeps deleting and deleted volumes out of totals and costs; reads GP2/IN_USE; skips a repeat', async () => {
    // Prepare
    ec2Mock.on(DescribeVolumesCommand).resolves({
      Volumes: [
        volume('vol-000000000000live', 'GP2', 100, 'IN_USE'),
        volume('vol-00000000000going', 'gp3', 1000, 'deleting'),
        volume('vol-000000000000gone', 'gp3', 1000, 'deleted'),
        volume('vol-000000000000live', 'gp2', 100, 'in-use'),
        volume('vol-0000000000000new', 'gp4', 10, 'available'),
      ],
    });

    // Act
    const { value } = await volumes(['us-east-1']);

    // Assess
    expect(value).toMatchObject({
      volumes: 2,
      byType: { gp2: 1, gp4: 1 },
      byState: { 'in-use': 1, available: 1 },
      endedVolumes: 2,
      endedByState: { deleting: 1, deleted: 1 },
      duplicatesSkipped: 1,
      estimatedMonthlyUsd: 10,
      volumesWithoutPrice: 1,
      unrecognizedValues: { 'VolumeType:gp4': 1 },
    });
    expect(value.findings.byCheck).toEqual({ ebs_gp2_to_gp3: 1, ebs_unattached_volume: 1 });
  });

  it('holds on the volume AWS documents (standard, 8 GiB, in use; no Encrypted field: not judged)', async () => {
    // Prepare
    ec2Mock.on(DescribeVolumesCommand).resolves({ Volumes: DOCUMENTED_VOLUMES, NextToken: '' });

    // Act
    const { value } = await volumes(['us-east-1']);

    // Assess
    expect(value).toMatchObject({
      volumes: 1,
      byType: { standard: 1 },
      estimatedMonthlyUsd: 0.4,
      unencryptedVolumes: 0,
    });
    expect(value.findings.total).toBe(0);
  });
});

describe('aws_eips_audit prices by region and counts once (issue 9, kinds 11 and 9)', () => {
  it('says "estimate unavailable" for an address in a region outside the table, and skips a repeat', async () => {
    // Prepare
    ec2Mock.on(DescribeAddressesCommand).resolves({
      Addresses: [
        {
          AllocationId: 'eipalloc-0000000000000001',
          PublicIp: '203.0.113.7',
          Domain: 'vpc',
          PublicIpv4Pool: 'amazon',
        },
        {
          AllocationId: 'eipalloc-0000000000000001',
          PublicIp: '203.0.113.7',
          Domain: 'vpc',
          PublicIpv4Pool: 'amazon',
        },
      ],
    });

    // Act
    const { value, summary } = await addresses(['us-east-1', 'il-central-1']);

    // Assess
    expect(value).toMatchObject({
      addresses: 2,
      unassociated: 2,
      duplicatesSkipped: 2, // each region answers the address twice
      addressesWithoutPrice: 1,
      monthlyUsd: 3.65,
      unassociatedMonthlyUsd: 3.65,
    });
    const unpriced = value.findings.top.find((f) => f.region === 'il-central-1');
    expect(unpriced?.monthlyCost).toBeUndefined();
    expect(unpriced?.details).toMatchObject({ estimate: 'unavailable' });
    expect(summary).toContain('price unavailable for 1');
  });

  it('holds on the addresses AWS documents: an EC2-Classic and a VPC address, both associated', async () => {
    // Prepare
    ec2Mock.on(DescribeAddressesCommand).resolves({ Addresses: DOCUMENTED_ADDRESSES });

    // Act
    const { value } = await addresses(['us-east-1']);

    // Assess
    expect(value).toMatchObject({ addresses: 2, associated: 2, unassociated: 0, monthlyUsd: 7.3 });
    expect(value.findings.total).toBe(0);
  });
});
