import { type Address, DescribeAddressesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { redact } from '../../../../functions/runtime/redact';
import { type EipsAuditValue, eipsAuditTool } from '../../../../functions/tools/aws/eips-audit';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';
import { ec2Error } from '../../../helpers/aws-errors';
import { expectFailure, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * `aws_eips_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The cases of `aws_eips_audit`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_eips_audit',
    clients: [EC2Client],
    account: '2 addresses in each of 2 regions, one unassociated, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeAddressesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Addresses: [
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.10' : '203.0.113.10',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}1`,
                  AssociationId: `eipassoc-0${region.replaceAll('-', '')}1`,
                  InstanceId: `i-0${region.replaceAll('-', '')}1`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.11' : '203.0.113.11',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}2`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
              ],
            }),
            { Addresses: [] },
          ),
        );
    },
  },
];

const ec2Mock = mockClient(EC2Client);

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<EipsAuditValue>(await runAwsTool(eipsAuditTool, args));
}

/** DescribeAddresses items as the EC2 API reference shows them ("Address"). */
const ADDRESSES: Address[] = [
  {
    AllocationId: 'eipalloc-00000000000000001',
    AssociationId: 'eipassoc-00000000000000001',
    Domain: 'vpc',
    InstanceId: 'i-0123456789abcdef0',
    NetworkInterfaceId: 'eni-0000000000000001',
    NetworkInterfaceOwnerId: '123456789012',
    PrivateIpAddress: '10.0.1.10',
    PublicIp: '203.0.113.10',
    PublicIpv4Pool: 'amazon',
    NetworkBorderGroup: 'eu-west-1',
  },
  {
    AllocationId: 'eipalloc-00000000000000002',
    Domain: 'vpc',
    PublicIp: '203.0.113.20',
    PublicIpv4Pool: 'amazon',
    NetworkBorderGroup: 'eu-west-1',
    Tags: [{ Key: 'Name', Value: 'old-bastion' }],
  },
  {
    AllocationId: 'eipalloc-00000000000000003',
    Domain: 'vpc',
    PublicIp: '198.51.100.7',
    PublicIpv4Pool: 'ipv4pool-ec2-0123456789abcdef0',
    NetworkBorderGroup: 'eu-west-1',
  },
  {
    AllocationId: 'eipalloc-00000000000000004',
    AssociationId: 'eipassoc-00000000000000004',
    Domain: 'vpc',
    NetworkInterfaceId: 'eni-0000000000000004',
    NetworkInterfaceOwnerId: '123456789012',
    PrivateIpAddress: '10.0.0.12',
    PublicIp: '203.0.113.30',
    PublicIpv4Pool: 'amazon',
    NetworkBorderGroup: 'eu-west-1',
  },
];

beforeEach(() => {
  ec2Mock.reset();
  ec2Mock.on(DescribeAddressesCommand).resolves({ Addresses: ADDRESSES });
});

describe('aws_eips_audit', () => {
  it('reports unassociated addresses with their public IPv4 charge, BYOIP uncharged', async () => {
    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value); // no field name or value is masked on its way out
    expect(value).toMatchObject({
      addresses: 4,
      associated: 2,
      unassociated: 2,
      byoipAddresses: 1,
      monthlyUsd: 10.95, // 3 Amazon-provided addresses × 730 h × $0.005
      unassociatedMonthlyUsd: 3.65,
      priceSource:
        'Amazon VPC pricing, Public IPv4 Address, per region (price table 2026-11); estimate unavailable outside the table',
    });
    expect(value.findings).toMatchObject({
      total: 2,
      byCheck: { eip_unassociated: 2 },
      estimatedMonthlyCostUsd: 3.65,
    });
    expect(value.findings.top).toEqual([
      {
        id: findingId('eip_unassociated', 'eu-west-1', 'eipalloc-00000000000000002'),
        check: 'eip_unassociated',
        severity: 'low',
        region: 'eu-west-1',
        resource: 'eipalloc-00000000000000002',
        title:
          'Elastic IP 203.0.113.20 (eipalloc-00000000000000002) is not associated with any instance or network interface',
        monthlyCost: {
          usd: 3.65,
          priceSource: 'Amazon VPC pricing, Public IPv4 Address, eu-west-1 (price table 2026-11)',
        },
        controls: { securityHub: ['EC2.12'], cis: [] },
        details: {
          publicIp: '203.0.113.20',
          allocationId: 'eipalloc-00000000000000002',
          name: 'old-bastion',
          domain: 'vpc',
          networkBorderGroup: 'eu-west-1',
          publicIpv4Pool: 'amazon',
        },
      },
      expect.objectContaining({
        resource: 'eipalloc-00000000000000003',
        details: expect.objectContaining({ publicIpv4Pool: 'ipv4pool-ec2-0123456789abcdef0' }),
      }),
    ]);
    expect(value.findings.top[1]?.monthlyCost).toBeUndefined();
    expect(summary).toBe(
      '4 Elastic IPs (2 unassociated) in 1 region: 2 findings (0 critical, 0 high), ~$3.65/month to save',
    );
  });

  it('gives the same finding ids on every run', async () => {
    // Act
    const first = await succeeded({ regions: ['eu-west-1'] });
    const second = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(second.value.findings.top.map((f) => f.id)).toEqual(first.value.findings.top.map((f) => f.id));
    expect(first.value.findings.top.map((f) => f.id)).toEqual([
      findingId('eip_unassociated', 'eu-west-1', 'eipalloc-00000000000000002'),
      findingId('eip_unassociated', 'eu-west-1', 'eipalloc-00000000000000003'),
    ]);
  });

  it('reports a denied region and a throttled region inside the result while another succeeds', async () => {
    // Prepare
    ec2Mock.on(DescribeAddressesCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'us-east-1') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
          httpStatusCode: 403,
        });
      }
      if (region === 'eu-central-1')
        throw ec2Error('RequestLimitExceeded', 'Request limit exceeded.', { httpStatusCode: 503 });
      return { Addresses: ADDRESSES.slice(1, 2) };
    });

    // Act
    const { value, summary } = await succeeded({ regions: ['eu-west-1', 'us-east-1', 'eu-central-1'] });

    // Assess
    expect(value).toMatchObject({ addresses: 1, unassociated: 1, unassociatedMonthlyUsd: 3.65 });
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', addresses: 1 }),
      { region: 'us-east-1', error: expect.objectContaining({ code: 'access_denied', retryable: false }) },
      { region: 'eu-central-1', error: expect.objectContaining({ code: 'throttled', retryable: true }) },
    ]);
    expect(summary).toMatch(/; 2 regions failed$/);
  });

  it('fails with timeout, not "0 addresses", when the deadline leaves every region unread', async () => {
    // Act: a deadline already passed.
    const result = expectFailure(
      await runAwsTool(eipsAuditTool, { regions: ['eu-west-1', 'us-east-1'] }, { deadline: deadlineIn(0) }),
    );

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: true, service: 'ec2' });
    expect(ec2Mock.commandCalls(DescribeAddressesCommand)).toHaveLength(0);
  });
});
