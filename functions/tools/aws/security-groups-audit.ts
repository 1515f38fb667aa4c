import {
  EC2Client,
  type IpPermission,
  paginateDescribeNetworkInterfaces,
  paginateDescribeSecurityGroups,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { readPages } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { securityGroupsAuditSpec } from './security-groups-audit.meta';
import { auditResult, readPart } from './shared/audit-parts';
import type { Finding, Severity } from './shared/findings';
import {
  type AuditValue,
  auditValue,
  firstStop,
  newFinding,
  runRegionalAudit,
} from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues } from './shared/service-enums';

/**
 * DescribeSecurityGroups and DescribeNetworkInterfaces return at most 1,000 items a
 * page (EC2 API reference, "DescribeSecurityGroups" and "DescribeNetworkInterfaces", MaxResults).
 */
const PAGE_SIZE = 1000;
/** 50 pages: 50,000 groups per region, far above the 2,500 default quota ("Amazon VPC quotas"). */
const MAX_GROUP_PAGES = 50;
/** 100 pages: 100,000 network interfaces per region before group use becomes unknown. */
const MAX_INTERFACE_PAGES = 100;

/** The "anywhere" CIDRs of each address family. */
const IPV4_ANYWHERE = '0.0.0.0/0';
const IPV6_ANYWHERE = '::/0';

/**
 * Ports whose exposure to the internet is called out, with the service usually
 * behind them: remote administration (CIS AWS Foundations Benchmark 5.2/5.3: 22,
 * 3389), file sharing, databases, caches, search, message brokers and container
 * control planes, as Prowler's and Trusted Advisor's security-group checks list them.
 */
export const SENSITIVE_PORTS: ReadonlyMap<number, string> = new Map([
  [21, 'FTP'],
  [22, 'SSH'],
  [23, 'Telnet'],
  [135, 'MS RPC'],
  [139, 'NetBIOS'],
  [445, 'SMB'],
  [1433, 'SQL Server'],
  [1434, 'SQL Server Browser'],
  [1521, 'Oracle'],
  [2049, 'NFS'],
  [2375, 'Docker'],
  [2376, 'Docker TLS'],
  [2379, 'etcd'],
  [3306, 'MySQL'],
  [3389, 'RDP'],
  [5432, 'PostgreSQL'],
  [5601, 'Kibana'],
  [5900, 'VNC'],
  [5984, 'CouchDB'],
  [6379, 'Redis'],
  [9042, 'Cassandra'],
  [9092, 'Kafka'],
  [9200, 'Elasticsearch'],
  [9300, 'Elasticsearch transport'],
  [11211, 'Memcached'],
  [27017, 'MongoDB'],
  [27018, 'MongoDB'],
]);

/** Ports a public web endpoint is expected to expose: open to the internet, they are low severity. */
const WEB_PORTS = new Set([80, 443]);

/** IpProtocol as an IANA number (`-1` for all) → one name (EC2 API reference, "IpPermission"). */
const PROTOCOL_NUMBERS: Readonly<Record<string, string>> = {
  '-1': 'all',
  '6': 'tcp',
  '17': 'udp',
  '1': 'icmp',
  '58': 'icmpv6',
};
/** IpProtocol as a name, in any case. Other protocols are IANA numbers, kept as answered. */
const PROTOCOL_NAME = serviceEnum('IpProtocol', ['tcp', 'udp', 'icmp', 'icmpv6'] as const);

/** One name for a rule's protocol; a name this tool does not know is counted and kept as answered. */
function protocolOf(ipProtocol: string | undefined, unrecognized: UnrecognizedValues): string {
  const raw = (ipProtocol ?? '-1').trim();
  const numbered = Object.hasOwn(PROTOCOL_NUMBERS, raw) ? PROTOCOL_NUMBERS[raw] : undefined;
  if (numbered) return numbered;
  if (/^\d+$/.test(raw)) return raw; // another IANA protocol number (ESP 50, GRE 47…)
  return PROTOCOL_NAME.parse(raw, unrecognized) ?? raw;
}

/** One ingress rule open to the internet. */
interface OpenRule {
  readonly protocol: string;
  /** `all`, `22`, `8000-8080`, or `n/a` for protocols without ports (ICMP type/code are in from/to). */
  readonly ports: string;
  readonly fromPort: number | null;
  readonly toPort: number | null;
  /** `0.0.0.0/0` and/or `::/0`. */
  readonly openTo: string[];
}

function openRuleOf(permission: IpPermission, unrecognized: UnrecognizedValues): OpenRule | undefined {
  const openTo = [
    ...(permission.IpRanges?.some((range) => range.CidrIp === IPV4_ANYWHERE) ? [IPV4_ANYWHERE] : []),
    ...(permission.Ipv6Ranges?.some((range) => range.CidrIpv6 === IPV6_ANYWHERE) ? [IPV6_ANYWHERE] : []),
  ];
  if (openTo.length === 0) return undefined;
  const protocol = protocolOf(permission.IpProtocol, unrecognized);
  const fromPort = permission.FromPort ?? null;
  const toPort = permission.ToPort ?? null;
  const hasPorts = protocol === 'tcp' || protocol === 'udp';
  const allPorts = protocol === 'all' || (hasPorts && (fromPort ?? 0) <= 1 && (toPort ?? 65535) >= 65535);
  const ports = allPorts
    ? 'all'
    : !hasPorts
      ? 'n/a'
      : fromPort === toPort
        ? String(fromPort)
        : `${fromPort}-${toPort}`;
  return { protocol, ports, fromPort, toPort, openTo };
}

/** Remote administration ports, named first when a rule exposes several sensitive ports. */
const REMOTE_ADMIN_PORTS = new Set([22, 3389]);

/**
 * The sensitive ports a rule exposes, as `22 (SSH)`, remote administration
 * first: those inside a TCP/UDP range, and every one of them for a rule of all
 * protocols (`IpProtocol: "-1"`), which opens every port of every protocol.
 */
export function sensitivePortsIn(rule: Pick<OpenRule, 'protocol' | 'fromPort' | 'toPort'>): string[] {
  const everyPort = rule.protocol === 'all';
  if (!everyPort && rule.protocol !== 'tcp' && rule.protocol !== 'udp') return [];
  const from = everyPort ? 0 : (rule.fromPort ?? 0);
  const to = everyPort ? 65535 : (rule.toPort ?? 65535);
  return [...SENSITIVE_PORTS]
    .filter(([port]) => port >= from && port <= to)
    .sort(([a], [b]) => Number(REMOTE_ADMIN_PORTS.has(b)) - Number(REMOTE_ADMIN_PORTS.has(a)) || a - b)
    .map(([port, service]) => `${port} (${service})`);
}

/** `, including 22 (SSH), 3389 (RDP), 21 (FTP) and 24 more sensitive ports`, or empty. */
function includingNote(sensitive: readonly string[]): string {
  if (sensitive.length === 0) return '';
  const shown = sensitive.slice(0, 3).join(', ');
  const rest = sensitive.length - 3;
  return `, including ${shown}${rest > 0 ? ` and ${rest} more sensitive ${rest === 1 ? 'port' : 'ports'}` : ''}`;
}

/** The check and severity of an open rule: all ports, a sensitive port, or another port. */
function classify(rule: OpenRule, sensitive: readonly string[]): { check: string; severity: Severity } {
  if (rule.ports === 'all') return { check: 'sg_open_all_ports', severity: 'critical' };
  if (sensitive.length > 0) return { check: 'sg_open_sensitive_port', severity: 'high' };
  const webOnly =
    rule.fromPort !== null &&
    rule.fromPort === rule.toPort &&
    WEB_PORTS.has(rule.fromPort) &&
    rule.protocol === 'tcp';
  return { check: 'sg_open_port', severity: webOnly || rule.ports === 'n/a' ? 'low' : 'medium' };
}

/** Counts per region, added up over regions. */
export type SecurityGroupStats = {
  groups: number;
  /** Groups attached to at least one network interface. */
  groupsInUse: number;
  /** Groups attached to none (default groups included); 0 when interface pages were cut short or failed. */
  groupsUnused: number;
  /** Groups whose use could not be told: the interface read stopped early or failed. */
  groupsUseUnknown: number;
  /** Groups with at least one ingress rule open to 0.0.0.0/0 or ::/0. */
  groupsOpenToInternet: number;
  /** Open rules (protocol + port range) over all groups. */
  openRules: number;
  networkInterfaces: number;
  /** Groups or network interfaces EC2 listed twice (counted once). */
  duplicatesSkipped: number;
  /** Protocol names this tool does not know, by `field:value` (kept as answered). */
  unrecognizedValues: UnrecognizedValues;
};

/** What `aws_security_groups_audit` returns. */
export type SecurityGroupsAuditValue = AuditValue<SecurityGroupStats>;

const emptyStats = (): SecurityGroupStats => ({
  groups: 0,
  groupsInUse: 0,
  groupsUnused: 0,
  groupsUseUnknown: 0,
  groupsOpenToInternet: 0,
  openRules: 0,
  networkInterfaces: 0,
  duplicatesSkipped: 0,
  unrecognizedValues: {},
});

/** Whether a group is in use: attached to an interface, not attached, or unknown (interfaces not all read). */
type GroupUse = boolean | null;

function auditGroup(group: SecurityGroup, region: string, inUse: GroupUse, stats: SecurityGroupStats) {
  const groupId = group.GroupId ?? 'unknown';
  const groupName = group.GroupName ?? '';
  const resource = group.SecurityGroupArn ?? groupId;
  const facts = { groupId, groupName, vpcId: group.VpcId ?? null, inUse };
  const findings: Finding[] = [];
  stats.groups++;
  if (inUse === true) stats.groupsInUse++;
  else if (inUse === false) stats.groupsUnused++;
  else stats.groupsUseUnknown++;

  for (const permission of group.IpPermissions ?? []) {
    const rule = openRuleOf(permission, stats.unrecognizedValues);
    if (!rule) continue;
    const sensitive = sensitivePortsIn(rule);
    const { check, severity } = classify(rule, sensitive);
    stats.openRules++;
    const what =
      rule.ports === 'all' || rule.ports === 'n/a' ? rule.protocol : `${rule.protocol} ${rule.ports}`;
    findings.push(
      newFinding({
        check,
        severity,
        region,
        resource,
        // One finding per open rule of the group: protocol and ports identify it.
        key: `${groupId}|${rule.protocol}|${rule.fromPort ?? ''}-${rule.toPort ?? ''}`,
        title:
          `Security group ${groupId} (${groupName}) allows ${rule.ports === 'all' ? `${what} traffic on all ports` : what} ` +
          `from ${rule.openTo.join(' and ')}${includingNote(sensitive)}`,
        details: { ...facts, ...rule, ...(sensitive.length > 0 ? { sensitivePorts: sensitive } : {}) },
      }),
    );
  }
  if (findings.length > 0) stats.groupsOpenToInternet++;
  // A VPC's default group cannot be deleted, so it is never reported as unused.
  if (inUse === false && groupName !== 'default') {
    findings.push(
      newFinding({
        check: 'sg_unused',
        severity: 'low',
        region,
        resource,
        key: groupId,
        title: `Security group ${groupId} (${groupName}) is not attached to any network interface`,
        details: facts,
      }),
    );
  }
  return findings;
}

/**
 * `aws_security_groups_audit` with its handler.
 *
 * "In use" means attached to a network interface (instances, load balancers, RDS,
 * Lambda in a VPC, endpoints all attach through one), as Trusted Advisor and
 * Steampipe's unused-group controls count it; a group only referenced by another
 * group's rules or a launch template counts as unused.
 *
 * API calls per run: per region ⌈groups/1,000⌉ DescribeSecurityGroups (at least 1) +
 * ⌈interfaces/1,000⌉ DescribeNetworkInterfaces (at least 1); plus 1 DescribeRegions for "all".
 */
export const securityGroupsAuditTool = defineTool(securityGroupsAuditSpec, async (ctx, args) => {
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'ec2', emptyStats: emptyStats() },
    async ({ clientConfig, region, stats, findings, once }) => {
      const client = new EC2Client(clientConfig);
      const attached = new Set<string>();
      // Without every interface read, a group not seen attached may still be in use: its use is unknown.
      const interfaces = await readPart(
        'EC2 DescribeNetworkInterfaces',
        { tool: ctx.tool, service: 'ec2' },
        () =>
          readPages(
            paginateDescribeNetworkInterfaces({ client, pageSize: PAGE_SIZE }, {}),
            (page) =>
              once.each(
                page.NetworkInterfaces,
                (networkInterface) => networkInterface.NetworkInterfaceId,
                (networkInterface) => {
                  stats.networkInterfaces++;
                  for (const group of networkInterface.Groups ?? [])
                    if (group.GroupId) attached.add(group.GroupId);
                },
              ),
            { maxPages: MAX_INTERFACE_PAGES, deadline: ctx.deadline },
          ),
      );
      const allInterfacesRead = interfaces.ok && interfaces.value.stoppedBy === undefined;
      const groups = await readPages(
        paginateDescribeSecurityGroups({ client, pageSize: PAGE_SIZE }, {}),
        (page) =>
          once.each(
            page.SecurityGroups,
            (group) => group.GroupId,
            (group) => {
              const seen = attached.has(group.GroupId ?? '');
              findings.push(...auditGroup(group, region, seen || (allInterfacesRead ? false : null), stats));
            },
          ),
        { maxPages: MAX_GROUP_PAGES, deadline: ctx.deadline },
      );
      return {
        ...firstStop(interfaces.ok ? interfaces.value : undefined, groups),
        ...(interfaces.ok ? {} : { partialErrors: [interfaces.partialError] }),
      };
    },
  );

  const { totals } = audit;
  const value: SecurityGroupsAuditValue = auditValue(audit);
  return auditResult(
    audit,
    `${plural(totals.groups, 'security group')} (${totals.groupsOpenToInternet} open to ` +
      `the internet, ${totals.groupsUnused} unused${totals.groupsUseUnknown > 0 ? `, ${totals.groupsUseUnknown} of unknown use` : ''})`,
    value,
  );
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(securityGroupsAuditTool);
