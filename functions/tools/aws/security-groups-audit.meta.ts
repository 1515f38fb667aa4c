import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_security_groups_audit`: ingress open to the internet, sensitive ports, unused groups. */
export const securityGroupsAuditSpec = defineAwsReadOnlySpec({
  name: 'aws_security_groups_audit',
  description:
    'Audit of VPC security groups in the given regions (or "all" enabled regions): ingress rules open to the ' +
    'internet over IPv4 (0.0.0.0/0) or IPv6 (::/0) with the protocol and ports exposed; all ports open (all ' +
    'protocols, or TCP/UDP 0-65535) is critical and names the sensitive ports it exposes, a range including a ' +
    'sensitive port (SSH 22, RDP 3389, databases such as 3306, 5432, 1433, 1521, ' +
    '27017, caches and search such as 6379, 11211, 9200, 5601) is high; whether each group is attached to a ' +
    'network interface, and unused non-default groups. Counts of groups, in use, unused and open, plus the top N ' +
    'findings with stable ids and the Security Hub / CIS controls they evidence (EC2.18, EC2.19, EC2.13/14, ' +
    'EC2.53/54, CIS 5.2/5.3). Read-only; per region one DescribeSecurityGroups page per 1,000 groups and one ' +
    'DescribeNetworkInterfaces page per 1,000 interfaces; no cost. Regions that fail are reported in ' +
    '`regions[].error` without failing the others; `truncated` is set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'ec2',
  iam: [
    {
      actions: ['ec2:DescribeSecurityGroups', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeRegions'],
    },
  ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
