/**
 * `aws_security_groups_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  DescribeNetworkInterfacesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';

/** EC2 "SecurityGroup": default, a bastion with SSH open to 0.0.0.0/0, a web group with 443 open over IPv4 and IPv6. */
function securityGroups(region: string) {
  const group = (id: string, name: string, permissions: object[]) => ({
    GroupId: id,
    GroupName: name,
    Description: `${name} (${region})`,
    OwnerId: ACCOUNT_ID,
    VpcId: 'vpc-0123456789abcdef0',
    IpPermissions: permissions,
    IpPermissionsEgress: [
      {
        IpProtocol: '-1',
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [],
        PrefixListIds: [],
        UserIdGroupPairs: [],
      },
    ],
  });
  const open = (port: number, ipv6: boolean) => ({
    IpProtocol: 'tcp',
    FromPort: port,
    ToPort: port,
    IpRanges: [{ CidrIp: '0.0.0.0/0' }],
    Ipv6Ranges: ipv6 ? [{ CidrIpv6: '::/0' }] : [],
    PrefixListIds: [],
    UserIdGroupPairs: [],
  });
  return {
    SecurityGroups: [
      group('sg-0000000000000000a', 'default', []),
      group('sg-0000000000000000b', 'bastion', [open(22, false)]),
      group('sg-0000000000000000c', 'web', [open(443, true)]),
    ],
  };
}

/** The cases of `aws_security_groups_audit`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_security_groups_audit',
    clients: [EC2Client],
    account: '3 groups and 2 interfaces in each of 2 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeSecurityGroupsCommand)
        .callsFake(byRegion(securityGroups, { SecurityGroups: [] }))
        .on(DescribeNetworkInterfacesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              NetworkInterfaces: ['a', 'b'].map((group, n) => ({
                NetworkInterfaceId: `eni-0${region.replaceAll('-', '')}${n}`,
                Status: 'in-use' as const,
                Groups: [
                  { GroupId: `sg-000000000000000${group}`, GroupName: group === 'a' ? 'default' : 'bastion' },
                ],
                AvailabilityZone: `${region}a`,
                VpcId: 'vpc-0123456789abcdef0',
                SubnetId: 'subnet-0123456789abcdef0',
              })),
            }),
            { NetworkInterfaces: [] },
          ),
        );
    },
  },
];
