import {
  DescribeSnapshotsCommand,
  DescribeVolumesCommand,
  type DescribeVolumesCommandOutput,
  EC2Client,
  type Volume,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { redact } from '../../../../functions/runtime/redact';
import type { ToolSuccess } from '../../../../functions/runtime/result';
import { type EbsInventoryValue, ebsInventoryTool } from '../../../../functions/tools/aws/ebs-inventory';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';
import { ec2Error } from '../../../helpers/aws-errors';
import { expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * `aws_ebs_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** EC2 "Volume": one attached gp2, one unattached gp3, one unencrypted gp2 per home region. */
function volumes(region: string) {
  const volume = (
    n: number,
    type: 'gp2' | 'gp3',
    sizeGiB: number,
    encrypted: boolean,
    attached: boolean,
  ) => ({
    VolumeId: `vol-0${region.replaceAll('-', '')}${n}`,
    Size: sizeGiB,
    VolumeType: type,
    State: attached ? ('in-use' as const) : ('available' as const),
    Encrypted: encrypted,
    AvailabilityZone: `${region}a`,
    CreateTime: CREATED,
    Iops: type === 'gp3' ? 3000 : sizeGiB * 3,
    ...(type === 'gp3' ? { Throughput: 125 } : {}),
    Attachments: attached
      ? [
          {
            VolumeId: `vol-0${region.replaceAll('-', '')}${n}`,
            InstanceId: `i-0${region.replaceAll('-', '')}${n}`,
            Device: '/dev/xvda',
            State: 'attached' as const,
            AttachTime: CREATED,
            DeleteOnTermination: true,
          },
        ]
      : [],
  });
  return {
    Volumes: [
      volume(1, 'gp2', 100, true, true),
      volume(2, 'gp3', 500, true, false),
      volume(3, 'gp2', 50, false, true),
    ],
  };
}

/** The cases of `aws_ebs_inventory`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_ebs_inventory',
    clients: [EC2Client],
    account: '3 volumes in each of 2 regions, 1 public snapshot, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeVolumesCommand)
        .callsFake(byRegion(volumes, { Volumes: [] }))
        .on(DescribeSnapshotsCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Snapshots:
                region === 'us-east-1'
                  ? [
                      {
                        SnapshotId: 'snap-0123456789abcdef0',
                        VolumeId: 'vol-0useast11',
                        VolumeSize: 100,
                        State: 'completed' as const,
                        StartTime: CREATED,
                        Encrypted: false,
                        OwnerId: ACCOUNT_ID,
                        Description: 'golden image',
                      },
                    ]
                  : [],
            }),
            { Snapshots: [] },
          ),
        );
    },
  },
];

const ec2Mock = mockClient(EC2Client);

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<EbsInventoryValue>(await runAwsTool(ebsInventoryTool, args));
}

/** A DescribeVolumes item as the EC2 API reference shows it ("Volume"). */
function volume(
  id: string,
  type: Volume['VolumeType'],
  sizeGiB: number,
  state: Volume['State'],
  extra: Partial<Volume> = {},
): Volume {
  return {
    VolumeId: id,
    VolumeType: type,
    Size: sizeGiB,
    State: state,
    AvailabilityZone: 'eu-west-1a',
    CreateTime: new Date('2024-03-01T10:00:00.000Z'),
    Encrypted: true,
    KmsKeyId: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    MultiAttachEnabled: false,
    SnapshotId: '',
    Attachments:
      state === 'in-use'
        ? [
            {
              AttachTime: new Date('2024-03-01T10:01:00.000Z'),
              Device: '/dev/xvda',
              InstanceId: 'i-0123456789abcdef0',
              State: 'attached',
              VolumeId: id,
              DeleteOnTermination: true,
            },
          ]
        : [],
    ...extra,
  };
}

const PAGE_1: DescribeVolumesCommandOutput = {
  $metadata: { httpStatusCode: 200, requestId: 'req-vol-1' },
  Volumes: [
    volume('vol-0aaaaaaaaaaaaaaa1', 'gp2', 100, 'in-use', {
      Iops: 300,
      Tags: [{ Key: 'Name', Value: 'web' }],
    }),
    volume('vol-0aaaaaaaaaaaaaaa2', 'gp3', 500, 'available', {
      Iops: 3000,
      Throughput: 125,
      Encrypted: false,
    }),
    volume('vol-0aaaaaaaaaaaaaaa3', 'io1', 200, 'available', { Iops: 1000 }),
  ],
  NextToken: 'eyJ2IjoiMiJ9',
};
const PAGE_2: DescribeVolumesCommandOutput = {
  $metadata: { httpStatusCode: 200, requestId: 'req-vol-2' },
  Volumes: [
    volume('vol-0aaaaaaaaaaaaaaa4', 'gp2', 2000, 'in-use', { Iops: 6000 }),
    volume('vol-0aaaaaaaaaaaaaaa5', 'st1', 500, 'in-use', { Encrypted: false, Throughput: 40 }),
  ],
};

function accessDenied() {
  return ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
    httpStatusCode: 403,
    requestId: 'req-denied',
  });
}

beforeEach(() => {
  ec2Mock.reset();
  ec2Mock.on(DescribeVolumesCommand).resolves({ Volumes: [] });
  ec2Mock.on(DescribeSnapshotsCommand).resolves({ Snapshots: [] });
});

describe('aws_ebs_inventory', () => {
  it('counts volumes by type and state and prices unattached, gp2 and unencrypted volumes (us-east-1 prices)', async () => {
    // Prepare
    ec2Mock
      .on(DescribeVolumesCommand)
      .resolvesOnce(PAGE_1)
      .on(DescribeVolumesCommand, { NextToken: 'eyJ2IjoiMiJ9' })
      .resolves(PAGE_2);
    ec2Mock.on(DescribeSnapshotsCommand).resolves({
      Snapshots: [
        {
          SnapshotId: 'snap-0ppppppppppppppp1',
          VolumeId: 'vol-0aaaaaaaaaaaaaaa1',
          VolumeSize: 100,
          State: 'completed',
          StartTime: new Date('2024-04-01T00:00:00.000Z'),
          OwnerId: '123456789012',
          Encrypted: false,
          Progress: '100%',
          Description: 'web root',
        },
      ],
    });

    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['us-east-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value); // no field name or value is masked on its way out
    expect(value).toMatchObject({
      volumes: 5,
      sizeGiB: 3300,
      byType: { gp2: 2, gp3: 1, io1: 1, st1: 1 },
      sizeGiBByType: { gp2: 2100, gp3: 500, io1: 200, st1: 500 },
      byState: { 'in-use': 3, available: 2 },
      estimatedMonthlyUsd: 362.5, // 10 + 40 + (25 + 65) + 200 + 22.5
      unattachedVolumes: 2,
      unattachedMonthlyUsd: 130,
      gp2Volumes: 2,
      gp3MonthlySavingsUsd: 27, // 100 GiB: 100 × 0.02; 2,000 GiB: 40 less 3,000 extra IOPS × 0.005
      unencryptedVolumes: 2,
      publicSnapshots: 1,
      skippedRegions: [],
    });
    expect(value.findings).toMatchObject({
      total: 7,
      bySeverity: { critical: 1, high: 0, medium: 4, low: 2, info: 0 },
      byCheck: {
        ebs_public_snapshot: 1,
        ebs_unattached_volume: 2,
        ebs_unencrypted_volume: 2,
        ebs_gp2_to_gp3: 2,
      },
      estimatedMonthlyCostUsd: 157,
      truncated: false,
    });
    expect(
      value.findings.top.map((f) => [f.check, f.resource, f.severity, f.monthlyCost?.usd ?? null]),
    ).toEqual([
      ['ebs_public_snapshot', 'snap-0ppppppppppppppp1', 'critical', null],
      ['ebs_unattached_volume', 'vol-0aaaaaaaaaaaaaaa3', 'medium', 90],
      ['ebs_unattached_volume', 'vol-0aaaaaaaaaaaaaaa2', 'medium', 40],
      ...[
        ['ebs_unencrypted_volume', 'vol-0aaaaaaaaaaaaaaa2', 'medium', null],
        ['ebs_unencrypted_volume', 'vol-0aaaaaaaaaaaaaaa5', 'medium', null],
      ].sort((a, b) =>
        findingId(a[0] as string, 'us-east-1', a[1] as string).localeCompare(
          findingId(b[0] as string, 'us-east-1', b[1] as string),
        ),
      ),
      ['ebs_gp2_to_gp3', 'vol-0aaaaaaaaaaaaaaa4', 'low', 25],
      ['ebs_gp2_to_gp3', 'vol-0aaaaaaaaaaaaaaa1', 'low', 2],
    ]);
    expect(value.findings.top[1]?.monthlyCost?.priceSource).toBe(
      'Amazon EBS pricing, us-east-1 (price table 2026-11)',
    );
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'us-east-1', volumes: 5, publicSnapshots: 1 }),
    ]);
    expect(summary).toBe(
      '5 EBS volumes (2 unattached, 1 public snapshot) in 1 region: 7 findings (1 critical, 0 high), ' +
        '~$157.00/month to save',
    );
    // Public snapshots are read with one filtered call, not one attribute call per snapshot.
    expect(ec2Mock.commandCalls(DescribeSnapshotsCommand)[0]?.args[0].input).toEqual({
      OwnerIds: ['self'],
      RestorableByUserIds: ['all'],
      MaxResults: 1000,
    });
    expect(ec2Mock.commandCalls(DescribeVolumesCommand)).toHaveLength(2);
  });

  it('gives the same finding ids on every run', async () => {
    // Prepare
    ec2Mock.on(DescribeVolumesCommand).resolves({ Volumes: PAGE_2.Volumes ?? [] });

    // Act
    const first = await succeeded({ regions: ['eu-west-1'] });
    const second = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    const ids = (result: ToolSuccess<EbsInventoryValue>) => result.value.findings.top.map((f) => f.id);
    expect(ids(first)).toEqual(ids(second));
    expect(ids(first)).toContain(findingId('ebs_gp2_to_gp3', 'eu-west-1', 'vol-0aaaaaaaaaaaaaaa4'));
    expect(ids(first)).toContain(findingId('ebs_unencrypted_volume', 'eu-west-1', 'vol-0aaaaaaaaaaaaaaa5'));
  });

  it('reports a denied region and a throttled region inside the result while another succeeds', async () => {
    // Prepare
    ec2Mock.on(DescribeVolumesCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'us-east-1') throw accessDenied();
      if (region === 'us-west-2') {
        throw ec2Error('RequestLimitExceeded', 'Request limit exceeded.', { httpStatusCode: 503 });
      }
      return { Volumes: [volume('vol-0bbbbbbbbbbbbbbb1', 'gp3', 50, 'available')] };
    });

    // Act
    const { value, truncated, summary } = await succeeded({
      regions: ['eu-west-1', 'us-east-1', 'us-west-2'],
    });

    // Assess
    expect(truncated).toBe(false);
    expect(value.volumes).toBe(1);
    expect(value.unattachedMonthlyUsd).toBe(4.4); // 50 GiB gp3 at eu-west-1's $0.088
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', volumes: 1 }),
      {
        region: 'us-east-1',
        error: expect.objectContaining({
          code: 'access_denied',
          retryable: false,
          service: 'ec2',
          details: expect.objectContaining({ awsError: 'UnauthorizedOperation', requestId: 'req-denied' }),
        }),
      },
      {
        region: 'us-west-2',
        error: expect.objectContaining({ code: 'throttled', retryable: true, service: 'ec2' }),
      },
    ]);
    expect(summary).toMatch(/; 2 regions failed$/);
  });

  it('keeps the volume findings of a region whose snapshot read is denied, the public-snapshot check unknown', async () => {
    // Prepare
    ec2Mock.on(DescribeVolumesCommand).resolves({
      Volumes: [volume('vol-0bbbbbbbbbbbbbbb1', 'gp3', 50, 'available')],
    });
    ec2Mock.on(DescribeSnapshotsCommand).rejects(accessDenied());

    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(value).toMatchObject({
      volumes: 1,
      unattachedVolumes: 1,
      unattachedMonthlyUsd: 4.4,
      publicSnapshots: 0,
    });
    expect(value.findings.byCheck).toEqual({ ebs_unattached_volume: 1 });
    expect(value.regions).toEqual([
      expect.objectContaining({
        region: 'eu-west-1',
        volumes: 1,
        partialErrors: [
          {
            what: 'EC2 DescribeSnapshots',
            error: expect.objectContaining({
              code: 'access_denied',
              service: 'ec2',
              details: expect.objectContaining({ awsError: 'UnauthorizedOperation' }),
            }),
          },
        ],
      }),
    ]);
    expect(summary).toMatch(/; EC2 DescribeSnapshots failed in 1 region$/);
  });

  it('stops at the page cap and marks the result truncated', async () => {
    // Prepare: every page points at one more.
    ec2Mock.on(DescribeVolumesCommand).callsFake(async (input: { NextToken?: string }) => {
      const page = Number(input.NextToken ?? '0');
      return {
        Volumes: [volume(`vol-${String(page).padStart(17, '0')}`, 'gp3', 10, 'in-use')],
        NextToken: String(page + 1),
      };
    });

    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(true);
    expect(value.volumes).toBe(200);
    expect(value.regions[0]).toMatchObject({ region: 'eu-west-1', stoppedBy: 'page_cap' });
    expect(ec2Mock.commandCalls(DescribeVolumesCommand)).toHaveLength(200);
    expect(summary).toMatch(/; partial$/);
  });

  it('fails as a whole with access_denied only when the region list itself cannot be read', async () => {
    // Prepare
    ec2Mock.onAnyCommand().rejects(accessDenied());

    // Act
    const result = await runAwsTool(ebsInventoryTool, { regions: 'all' });

    // Assess
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ error: { code: 'access_denied', service: 'ec2' } });
  });
});
