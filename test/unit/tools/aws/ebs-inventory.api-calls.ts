/**
 * `aws_ebs_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import { DescribeSnapshotsCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';

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
