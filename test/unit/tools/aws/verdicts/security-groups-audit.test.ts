/**
 * Issue 9, kind 7 (all-traffic rules not naming the sensitive ports they
 * expose) for aws_security_groups_audit, with kinds 1 and 9, on the security
 * group and network interface AWS documents.
 */
import {
  DescribeNetworkInterfacesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  type IpPermission,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import {
  type SecurityGroupsAuditValue,
  securityGroupsAuditTool,
} from '../../../../../functions/tools/aws/security-groups-audit';
import { findingId } from '../../../../../functions/tools/aws/shared/findings';
import {
  DOCUMENTED_NETWORK_INTERFACES,
  DOCUMENTED_SECURITY_GROUPS,
} from '../../../../helpers/aws-documented-examples';
import { expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const ec2Mock = mockClient(EC2Client);
const ARN = 'arn:aws:ec2:eu-west-1:123456789012:security-group/sg-0000000000000all1';

async function audited() {
  return expectSuccess<SecurityGroupsAuditValue>(
    await runAwsTool(securityGroupsAuditTool, { regions: ['eu-west-1'] }),
  );
}

/** A group as DescribeSecurityGroups returns it (EC2 API reference, "SecurityGroup"), attached to an interface. */
function group(permissions: IpPermission[]): SecurityGroup {
  return {
    GroupId: 'sg-0000000000000all1',
    GroupName: 'legacy',
    SecurityGroupArn: ARN,
    VpcId: 'vpc-1a2b3c4d',
    OwnerId: '123456789012',
    Description: 'legacy',
    IpPermissions: permissions,
    IpPermissionsEgress: [],
  };
}

beforeEach(() => {
  ec2Mock.reset();
  ec2Mock.on(DescribeNetworkInterfacesCommand).resolves({
    NetworkInterfaces: [
      { NetworkInterfaceId: 'eni-0000000000000001', Groups: [{ GroupId: 'sg-0000000000000all1' }] },
    ],
  });
});

describe('aws_security_groups_audit names the sensitive ports an all-traffic rule exposes (issue 9, kind 7)', () => {
  it('lists SSH, RDP and the databases for IpProtocol -1 from 0.0.0.0/0, like a tcp 0-65535 rule', async () => {
    // Prepare: the case, beside the tcp 0-65535 rule it should read like.
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({
      SecurityGroups: [
        group([
          {
            IpProtocol: '-1',
            IpRanges: [{ CidrIp: '0.0.0.0/0' }],
            Ipv6Ranges: [],
            UserIdGroupPairs: [],
            PrefixListIds: [],
          },
        ]),
      ],
    });

    // Act
    const { value } = await audited();

    // Assess
    const [finding] = value.findings.top;
    expect(finding).toMatchObject({
      id: findingId('sg_open_all_ports', 'eu-west-1', 'sg-0000000000000all1|all|-'),
      check: 'sg_open_all_ports',
      severity: 'critical',
      title:
        'Security group sg-0000000000000all1 (legacy) allows all traffic on all ports from 0.0.0.0/0, ' +
        'including 22 (SSH), 3389 (RDP), 21 (FTP) and 24 more sensitive ports',
      controls: { securityHub: ['EC2.18', 'EC2.19', 'EC2.13', 'EC2.14', 'EC2.53'], cis: ['5.2'] },
    });
    const sensitive = finding?.details?.sensitivePorts as string[];
    expect(sensitive).toHaveLength(27);
    expect(sensitive.slice(0, 2)).toEqual(['22 (SSH)', '3389 (RDP)']);
    expect(sensitive).toEqual(
      expect.arrayContaining(['3306 (MySQL)', '5432 (PostgreSQL)', '6379 (Redis)', '27017 (MongoDB)']),
    );
  });

  it('does the same for ::/0 (CIS 5.3), and for an upper-case TCP 0-65535 rule', async () => {
    // Prepare
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({
      SecurityGroups: [
        group([
          { IpProtocol: '-1', IpRanges: [], Ipv6Ranges: [{ CidrIpv6: '::/0' }] },
          { IpProtocol: 'TCP', FromPort: 0, ToPort: 65535, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
        ]),
      ],
    });

    // Act
    const { value } = await audited();

    // Assess
    const byProtocol = Object.fromEntries(value.findings.top.map((f) => [f.details?.protocol as string, f]));
    expect(byProtocol.all).toMatchObject({
      title: expect.stringMatching(/from ::\/0, including 22 \(SSH\), 3389 \(RDP\)/),
      controls: { securityHub: ['EC2.18', 'EC2.19', 'EC2.13', 'EC2.14', 'EC2.54'], cis: ['5.3'] },
    });
    expect(byProtocol.tcp).toMatchObject({
      check: 'sg_open_all_ports',
      title: expect.stringMatching(
        /allows tcp traffic on all ports from 0\.0\.0\.0\/0, including 22 \(SSH\)/,
      ),
    });
  });
});

describe('aws_security_groups_audit reads protocols in any spelling (issue 9, kind 1)', () => {
  it('reads a protocol number as its name, keeps other IANA numbers, and reports an unknown name', async () => {
    // Prepare
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({
      SecurityGroups: [
        group([
          { IpProtocol: '6', FromPort: 3306, ToPort: 3306, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
          { IpProtocol: '50', IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
          { IpProtocol: 'Sctp', FromPort: 9000, ToPort: 9000, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
        ]),
      ],
    });

    // Act
    const { value, summary } = await audited();

    // Assess
    expect(value.findings.top.map((f) => [f.check, f.details?.protocol])).toEqual(
      expect.arrayContaining([
        ['sg_open_sensitive_port', 'tcp'],
        ['sg_open_port', '50'],
        ['sg_open_port', 'Sctp'],
      ]),
    );
    expect(value.unrecognizedValues).toEqual({ 'IpProtocol:Sctp': 1 });
    expect(summary).toMatch(/; unrecognized values: IpProtocol:Sctp \(1\)$/);
  });
});

describe('aws_security_groups_audit counts a group once (issue 9, kind 9)', () => {
  it('judges a group listed on two pages once', async () => {
    // Prepare
    const open = group([
      { IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
    ]);
    ec2Mock
      .on(DescribeSecurityGroupsCommand)
      .resolvesOnce({ SecurityGroups: [open], NextToken: 'page-2' })
      .resolves({ SecurityGroups: [open] });

    // Act
    const { value } = await audited();

    // Assess
    expect(value).toMatchObject({ groups: 1, openRules: 1, duplicatesSkipped: 1 });
    expect(value.findings.total).toBe(1);
  });
});

describe('aws_security_groups_audit on the security group and interface AWS documents', () => {
  it('finds nothing open in the documented EC2-VPC group, and reports it unused (its interface holds another group)', async () => {
    // Prepare
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: DOCUMENTED_SECURITY_GROUPS });
    ec2Mock
      .on(DescribeNetworkInterfacesCommand)
      .resolves({ NetworkInterfaces: DOCUMENTED_NETWORK_INTERFACES });

    // Act
    const { value } = await audited();

    // Assess
    expect(value).toMatchObject({
      groups: 1,
      groupsOpenToInternet: 0,
      openRules: 0,
      groupsUnused: 1,
      networkInterfaces: 1,
    });
    expect(value.findings.top.map((f) => [f.check, f.resource, f.controls])).toEqual([
      ['sg_unused', 'sg-903004f8', undefined],
    ]);
  });
});
