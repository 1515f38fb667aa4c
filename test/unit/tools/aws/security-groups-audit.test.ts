import {
  DescribeNetworkInterfacesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  type NetworkInterface,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import { redact } from '../../../../functions/runtime/redact';
import {
  type SecurityGroupsAuditValue,
  securityGroupsAuditTool,
} from '../../../../functions/tools/aws/security-groups-audit';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';
import { ec2Error } from '../../../helpers/aws-errors';
import { expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * `aws_security_groups_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
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
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
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

const ec2Mock = mockClient(EC2Client);

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<SecurityGroupsAuditValue>(await runAwsTool(securityGroupsAuditTool, args));
}

const OWNER = '123456789012';
const VPC = 'vpc-0123456789abcdef0';

/** A DescribeSecurityGroups item as the EC2 API reference shows it ("SecurityGroup"). */
function group(id: string, name: string, ingress: SecurityGroup['IpPermissions']): SecurityGroup {
  return {
    GroupId: id,
    GroupName: name,
    Description: `${name} group`,
    OwnerId: OWNER,
    VpcId: VPC,
    SecurityGroupArn: `arn:aws:ec2:eu-west-1:${OWNER}:security-group/${id}`,
    IpPermissions: ingress,
    IpPermissionsEgress: [
      {
        IpProtocol: '-1',
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [],
        PrefixListIds: [],
        UserIdGroupPairs: [],
      },
    ],
    Tags: [],
  };
}

function tcp(from: number, to: number, ipv4: string[], ipv6: string[] = []) {
  return {
    IpProtocol: 'tcp',
    FromPort: from,
    ToPort: to,
    IpRanges: ipv4.map((CidrIp) => ({ CidrIp })),
    Ipv6Ranges: ipv6.map((CidrIpv6) => ({ CidrIpv6 })),
    PrefixListIds: [],
    UserIdGroupPairs: [],
  };
}

const GROUPS: SecurityGroup[] = [
  group('sg-0000000000000web1', 'web', [tcp(443, 443, ['0.0.0.0/0'], ['::/0']), tcp(22, 22, ['10.0.0.0/8'])]),
  group('sg-000000000000admin', 'admin', [tcp(22, 22, ['0.0.0.0/0']), tcp(3389, 3389, [], ['::/0'])]),
  group('sg-00000000000legacy', 'legacy', [
    { IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0', Description: 'temporary' }] },
  ]),
  group('sg-0000000000default', 'default', [
    { IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: 'sg-0000000000default', UserId: OWNER }] },
  ]),
  group('sg-0000000000000db01', 'db', [
    tcp(5000, 6000, ['0.0.0.0/0']),
    { IpProtocol: 'icmp', FromPort: 8, ToPort: -1, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
  ]),
  group('sg-00000000000000app', 'app', [tcp(8080, 8080, ['0.0.0.0/0', '192.0.2.0/24'])]),
];

/** A DescribeNetworkInterfaces item ("NetworkInterface") with its groups. */
function networkInterface(id: string, groupIds: string[]): NetworkInterface {
  return {
    NetworkInterfaceId: id,
    InterfaceType: 'interface',
    Status: 'in-use',
    SubnetId: 'subnet-0123456789abcdef0',
    VpcId: VPC,
    OwnerId: OWNER,
    PrivateIpAddress: '10.0.1.15',
    Groups: groupIds.map((GroupId) => ({ GroupId, GroupName: GroupId })),
  };
}

beforeEach(() => {
  ec2Mock.reset();
  ec2Mock.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: GROUPS });
  ec2Mock.on(DescribeNetworkInterfacesCommand).resolves({
    NetworkInterfaces: [
      networkInterface('eni-0000000000000001', ['sg-0000000000000web1', 'sg-00000000000000app']),
      networkInterface('eni-0000000000000002', ['sg-000000000000admin']),
    ],
  });
});

describe('aws_security_groups_audit', () => {
  it('reports ingress open over IPv4 and IPv6 with ports, sensitive ports and unused groups', async () => {
    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value); // no field name or value is masked on its way out
    expect(value).toMatchObject({
      groups: 6,
      groupsInUse: 3,
      groupsUnused: 3,
      groupsUseUnknown: 0,
      groupsOpenToInternet: 5,
      openRules: 7,
      networkInterfaces: 2,
    });
    expect(value.findings).toMatchObject({
      total: 9,
      bySeverity: { critical: 1, high: 3, medium: 1, low: 4, info: 0 },
      byCheck: { sg_open_all_ports: 1, sg_open_sensitive_port: 3, sg_open_port: 3, sg_unused: 2 },
    });
    const byTitle = Object.fromEntries(value.findings.top.map((f) => [f.title, f]));
    expect(Object.keys(byTitle).sort()).toEqual(
      [
        'Security group sg-00000000000legacy (legacy) allows all traffic on all ports from 0.0.0.0/0, including 22 (SSH), 3389 (RDP), 21 (FTP) and 24 more sensitive ports',
        'Security group sg-000000000000admin (admin) allows tcp 22 from 0.0.0.0/0, including 22 (SSH)',
        'Security group sg-000000000000admin (admin) allows tcp 3389 from ::/0, including 3389 (RDP)',
        'Security group sg-0000000000000db01 (db) allows tcp 5000-6000 from 0.0.0.0/0, including 5432 (PostgreSQL), 5601 (Kibana), 5900 (VNC) and 1 more sensitive port',
        'Security group sg-00000000000000app (app) allows tcp 8080 from 0.0.0.0/0',
        'Security group sg-0000000000000web1 (web) allows tcp 443 from 0.0.0.0/0 and ::/0',
        'Security group sg-0000000000000db01 (db) allows icmp from 0.0.0.0/0',
        'Security group sg-00000000000legacy (legacy) is not attached to any network interface',
        'Security group sg-0000000000000db01 (db) is not attached to any network interface',
      ].sort(),
    );
    expect(value.findings.top[0]).toMatchObject({
      check: 'sg_open_all_ports',
      severity: 'critical',
      resource: `arn:aws:ec2:eu-west-1:${OWNER}:security-group/sg-00000000000legacy`,
      details: { protocol: 'all', ports: 'all', openTo: ['0.0.0.0/0'], inUse: false },
    });
    expect(
      byTitle[
        'Security group sg-0000000000000db01 (db) allows tcp 5000-6000 from 0.0.0.0/0, including 5432 (PostgreSQL), 5601 (Kibana), 5900 (VNC) and 1 more sensitive port'
      ]?.details,
    ).toMatchObject({
      fromPort: 5000,
      toPort: 6000,
      inUse: false,
      sensitivePorts: ['5432 (PostgreSQL)', '5601 (Kibana)', '5900 (VNC)', '5984 (CouchDB)'],
    });
    expect(
      byTitle['Security group sg-0000000000000web1 (web) allows tcp 443 from 0.0.0.0/0 and ::/0']?.severity,
    ).toBe('low');
    expect(
      byTitle['Security group sg-00000000000000app (app) allows tcp 8080 from 0.0.0.0/0']?.severity,
    ).toBe('medium');
    expect(summary).toBe(
      '6 security groups (5 open to the internet, 3 unused) in 1 region: 9 findings (1 critical, 3 high)',
    );
  });

  it('gives the same finding ids on every run, one per open rule of a group', async () => {
    // Act
    const first = await succeeded({ regions: ['eu-west-1'] });
    const second = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    const ids = first.value.findings.top.map((f) => f.id);
    expect(second.value.findings.top.map((f) => f.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(9);
    expect(ids).toContain(findingId('sg_open_sensitive_port', 'eu-west-1', 'sg-000000000000admin|tcp|22-22'));
    expect(ids).toContain(findingId('sg_unused', 'eu-west-1', 'sg-00000000000legacy'));
  });

  it('reports a denied region and a throttled region inside the result while another succeeds', async () => {
    // Prepare: the groups themselves cannot be read in two regions.
    ec2Mock.on(DescribeSecurityGroupsCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'us-east-1') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
          httpStatusCode: 403,
        });
      }
      if (region === 'ap-south-1')
        throw ec2Error('RequestLimitExceeded', 'Request limit exceeded.', { httpStatusCode: 503 });
      return { SecurityGroups: GROUPS };
    });

    // Act
    const { value, truncated, summary } = await succeeded({
      regions: ['eu-west-1', 'us-east-1', 'ap-south-1'],
    });

    // Assess
    expect(truncated).toBe(false);
    expect(value.groups).toBe(6);
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', groups: 6, groupsInUse: 3 }),
      { region: 'us-east-1', error: expect.objectContaining({ code: 'access_denied', retryable: false }) },
      { region: 'ap-south-1', error: expect.objectContaining({ code: 'throttled', retryable: true }) },
    ]);
    expect(summary).toContain('; 2 regions failed');
  });

  it('keeps the open groups of a region whose interfaces are denied, their use unknown', async () => {
    // Prepare
    ec2Mock.on(DescribeNetworkInterfacesCommand).rejects(
      ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
        httpStatusCode: 403,
      }),
    );

    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(value).toMatchObject({
      groups: 6,
      groupsInUse: 0,
      groupsUnused: 0,
      groupsUseUnknown: 6,
      groupsOpenToInternet: 5,
      openRules: 7,
    });
    expect(value.findings.byCheck).toEqual({
      sg_open_all_ports: 1,
      sg_open_sensitive_port: 3,
      sg_open_port: 3,
    });
    expect(value.findings.bySeverity.critical).toBe(1);
    expect(value.regions).toEqual([
      expect.objectContaining({
        region: 'eu-west-1',
        groups: 6,
        partialErrors: [
          {
            what: 'EC2 DescribeNetworkInterfaces',
            error: expect.objectContaining({ code: 'access_denied', service: 'ec2', retryable: false }),
          },
        ],
      }),
    ]);
    expect(summary).toBe(
      '6 security groups (5 open to the internet, 0 unused, 6 of unknown use) in 1 region: 7 findings ' +
        '(1 critical, 3 high); EC2 DescribeNetworkInterfaces failed in 1 region',
    );
  });

  it('marks group use unknown and the result truncated when interface pages hit the cap', async () => {
    // Prepare: every interface page points at one more.
    ec2Mock.on(DescribeNetworkInterfacesCommand).callsFake(async (input: { NextToken?: string }) => {
      const page = Number(input.NextToken ?? '0');
      return {
        NetworkInterfaces: [networkInterface(`eni-${page}`, ['sg-0000000000000web1'])],
        NextToken: String(page + 1),
      };
    });

    // Act
    const { value, truncated } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(true);
    expect(value).toMatchObject({
      networkInterfaces: 100,
      groupsInUse: 1,
      groupsUnused: 0,
      groupsUseUnknown: 5,
    });
    expect(value.findings.byCheck.sg_unused).toBeUndefined();
    expect(value.regions[0]).toMatchObject({ region: 'eu-west-1', stoppedBy: 'page_cap' });
  });
});
