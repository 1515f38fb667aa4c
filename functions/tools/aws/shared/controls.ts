/**
 * Which controls each finding evidences: AWS Security Hub CSPM security control
 * ids (consolidated ids, as in "Control reference for Security Hub CSPM": `S3.8`,
 * `IAM.6`, `EC2.19`) and CIS AWS Foundations Benchmark recommendations of
 * {@link CIS_VERSION}. One table, {@link CHECK_CONTROLS}, keyed by the finding's
 * check; a rule with `when` applies only to the findings whose details meet it
 * (a key unused for 60 days evidences CIS 1.12, 45 days, not IAM.8, 90 days).
 *
 * A finding evidences a control when the control's own evaluation would fail on
 * the same facts. Where our check looks further than the control (a trail that
 * logs but cannot deliver), the mapping says which control's intent it breaks;
 * docs/aws-tools.md lists those cases. Checks with no control (idle NAT
 * gateways, Compute Optimizer savings, cost anomalies) map to nothing.
 *
 * Sources: "Control reference for Security Hub CSPM" and "CIS AWS Foundations
 * Benchmark in Security Hub CSPM" (Security Hub CSPM User Guide, read 2026-11);
 * CIS AWS Foundations Benchmark v3.0.0 recommendation numbers. Retired controls
 * (S3.4 default encryption, EC2.22 unused security groups) are not used.
 */

/** The CIS AWS Foundations Benchmark version whose recommendation numbers `cis` holds. */
export const CIS_VERSION = '3.0.0';

/** The controls a finding evidences. */
export interface FindingControls {
  /** AWS Security Hub CSPM security control ids (`S3.8`). */
  readonly securityHub: readonly string[];
  /** CIS AWS Foundations Benchmark {@link CIS_VERSION} recommendation numbers (`2.1.4`). */
  readonly cis: readonly string[];
}

/** A finding's details, as the rules read them. */
type Details = Readonly<Record<string, unknown>>;

/** Controls a check evidences, possibly only for some of its findings. */
interface ControlRule {
  readonly securityHub?: readonly string[];
  readonly cis?: readonly string[];
  /** Applies only when true for the finding's details; always when absent. */
  readonly when?: (details: Details) => boolean;
}

function numberOf(details: Details, key: string): number | null {
  const value = details[key];
  return typeof value === 'number' ? value : null;
}

/** More than `days` days: the number in `key` (age, days unused) exceeds it. */
const over =
  (key: string, days: number) =>
  (details: Details): boolean =>
    (numberOf(details, key) ?? 0) > days;

// Security group rules: the details of an open rule (protocol, fromPort, toPort, openTo).

const REMOTE_ADMIN_PORTS = [22, 3389];
/**
 * The "high-risk" ports of EC2.19 (the Config rule restricted-common-ports as
 * Security Hub CSPM parameterizes it): TCP 20, 21, 22, 23, 25, 110, 135, 143,
 * 445, 1433, 1434, 3000, 3306, 3389, 4333, 5000, 5432, 5500, 5601, 8080, 8088,
 * 8888, 9200, 9300.
 */
const EC2_19_PORTS = [
  20, 21, 22, 23, 25, 110, 135, 143, 445, 1433, 1434, 3000, 3306, 3389, 4333, 5000, 5432, 5500, 5601, 8080,
  8088, 8888, 9200, 9300,
];
/** The ports EC2.18 authorizes by default: TCP 80 and 443. */
const EC2_18_AUTHORIZED_TCP = new Set([80, 443]);

/** Whether an open rule lets `port` in over one of `protocols` (`all` lets every port in). */
function exposes(details: Details, protocols: readonly string[], ports: readonly number[]): boolean {
  const protocol = details.protocol;
  if (protocol === 'all') return true;
  if (typeof protocol !== 'string' || !protocols.includes(protocol)) return false;
  const from = numberOf(details, 'fromPort') ?? 0;
  const to = numberOf(details, 'toPort') ?? 65535;
  return ports.some((port) => port >= from && port <= to);
}

function openTo(details: Details, cidr: string): boolean {
  return Array.isArray(details.openTo) && details.openTo.includes(cidr);
}

/** EC2.18: open over TCP/UDP (or all protocols) on anything but TCP 80/443. */
function unauthorizedPorts(details: Details): boolean {
  const protocol = details.protocol;
  if (protocol === 'all' || protocol === 'udp') return true;
  if (protocol !== 'tcp') return false; // the control looks at TCP and UDP only
  const from = numberOf(details, 'fromPort') ?? 0;
  const to = numberOf(details, 'toPort') ?? 65535;
  for (let port = from; port <= to; port++) if (!EC2_18_AUTHORIZED_TCP.has(port)) return true;
  return false;
}

const SECURITY_GROUP_RULES: readonly ControlRule[] = [
  { securityHub: ['EC2.18'], when: unauthorizedPorts },
  { securityHub: ['EC2.19'], when: (d) => exposes(d, ['tcp'], EC2_19_PORTS) },
  { securityHub: ['EC2.13'], when: (d) => exposes(d, ['tcp'], [22]) },
  { securityHub: ['EC2.14'], when: (d) => exposes(d, ['tcp'], [3389]) },
  {
    securityHub: ['EC2.53'],
    cis: ['5.2'],
    when: (d) => openTo(d, '0.0.0.0/0') && exposes(d, ['tcp', 'udp'], REMOTE_ADMIN_PORTS),
  },
  {
    securityHub: ['EC2.54'],
    cis: ['5.3'],
    when: (d) => openTo(d, '::/0') && exposes(d, ['tcp', 'udp'], REMOTE_ADMIN_PORTS),
  },
];

/** Password policy: the character classes a policy leaves out (`notRequired`). */
function leavesOut(details: Details, characterClass: string): boolean {
  return Array.isArray(details.notRequired) && details.notRequired.includes(characterClass);
}

/** ACL grants: whether one of `permissions` is granted publicly and takes effect. */
function aclGrants(details: Details, permissions: readonly string[]): boolean {
  const granted = details.permissions;
  return (
    details.effective === true &&
    Array.isArray(granted) &&
    granted.some((p) => typeof p === 'string' && permissions.includes(p))
  );
}

const multiRegion = (details: Details): boolean => details.multiRegion === true;

/**
 * Check → the controls its findings evidence. Checks absent from the table
 * evidence no control.
 */
export const CHECK_CONTROLS: Readonly<Record<string, readonly ControlRule[]>> = {
  // IAM (credential report, account summary, password policy).
  iam_root_mfa_disabled: [{ securityHub: ['IAM.9', 'IAM.6'], cis: ['1.5', '1.6'] }],
  iam_root_key_present: [{ securityHub: ['IAM.4'], cis: ['1.4'] }],
  iam_root_used_recently: [{ cis: ['1.7'] }],
  iam_user_console_without_mfa: [{ securityHub: ['IAM.5'], cis: ['1.10'] }],
  iam_user_key_not_rotated: [{ securityHub: ['IAM.3'], cis: ['1.14'], when: over('ageDays', 90) }],
  iam_user_key_unused: [
    { securityHub: ['IAM.8'], when: over('unusedDays', 90) },
    { securityHub: ['IAM.22'], cis: ['1.12'], when: over('unusedDays', 45) },
  ],
  iam_user_key_never_used: [
    { securityHub: ['IAM.8'], when: over('ageDays', 90) },
    { securityHub: ['IAM.22'], cis: ['1.12'], when: over('ageDays', 45) },
  ],
  iam_pw_policy_missing: [
    {
      securityHub: ['IAM.7', 'IAM.11', 'IAM.12', 'IAM.13', 'IAM.14', 'IAM.15', 'IAM.16'],
      cis: ['1.8', '1.9'],
    },
  ],
  iam_pw_policy_short_minimum: [
    { securityHub: ['IAM.15'], cis: ['1.8'] },
    // IAM.7's default asks for 8 characters at least.
    { securityHub: ['IAM.7'], when: (d) => (numberOf(d, 'minimumLength') ?? 0) < 8 },
  ],
  iam_pw_policy_no_reuse_prevention: [{ securityHub: ['IAM.16'], cis: ['1.9'] }],
  iam_pw_policy_weak_complexity: [
    { securityHub: ['IAM.7'] },
    { securityHub: ['IAM.11'], when: (d) => leavesOut(d, 'uppercase') },
    { securityHub: ['IAM.12'], when: (d) => leavesOut(d, 'lowercase') },
    { securityHub: ['IAM.13'], when: (d) => leavesOut(d, 'symbols') },
    { securityHub: ['IAM.14'], when: (d) => leavesOut(d, 'numbers') },
  ],

  // S3 (one exposure verdict per bucket, Block Public Access at both levels).
  s3_account_block_public_access_off: [{ securityHub: ['S3.1'], cis: ['2.1.4'] }],
  s3_bucket_block_public_access_off: [{ securityHub: ['S3.8'], cis: ['2.1.4'] }],
  s3_bucket_policy_public: [{ securityHub: ['S3.2', 'S3.3'], when: (d) => d.effective === true }],
  s3_bucket_acl_public: [
    { securityHub: ['S3.12'] },
    { securityHub: ['S3.2'], when: (d) => aclGrants(d, ['READ', 'READ_ACP', 'FULL_CONTROL']) },
    { securityHub: ['S3.3'], when: (d) => aclGrants(d, ['WRITE', 'WRITE_ACP', 'FULL_CONTROL']) },
  ],
  s3_access_point_public: [
    { securityHub: ['S3.19'], when: (d) => d.accessPointBlocksPublicAccess === false },
  ],
  s3_bucket_versioning_disabled: [{ securityHub: ['S3.14'] }],

  // CloudTrail.
  cloudtrail_region_not_covered: [{ securityHub: ['CloudTrail.1'], cis: ['3.1'] }],
  cloudtrail_region_management_events_partial: [{ securityHub: ['CloudTrail.1'], cis: ['3.1'] }],
  cloudtrail_region_delivery_failing: [{ securityHub: ['CloudTrail.1'], cis: ['3.1'] }],
  cloudtrail_trail_not_logging: [{ securityHub: ['CloudTrail.1'], cis: ['3.1'], when: multiRegion }],
  cloudtrail_management_events_incomplete: [
    { securityHub: ['CloudTrail.1'], cis: ['3.1'], when: multiRegion },
  ],
  cloudtrail_s3_delivery_failing: [{ securityHub: ['CloudTrail.1'], cis: ['3.1'], when: multiRegion }],
  cloudtrail_cloudwatch_logs_delivery_failing: [{ securityHub: ['CloudTrail.5'] }],
  cloudtrail_digest_delivery_failing: [{ securityHub: ['CloudTrail.4'], cis: ['3.2'] }],
  cloudtrail_log_file_validation_disabled: [{ securityHub: ['CloudTrail.4'], cis: ['3.2'] }],
  cloudtrail_logs_not_kms_encrypted: [{ securityHub: ['CloudTrail.2'], cis: ['3.5'] }],

  // EC2: security groups, EBS, Elastic IPs.
  sg_open_all_ports: SECURITY_GROUP_RULES,
  sg_open_sensitive_port: SECURITY_GROUP_RULES,
  sg_open_port: SECURITY_GROUP_RULES,
  ebs_public_snapshot: [{ securityHub: ['EC2.1'] }],
  // EC2.3 looks at attached volumes only.
  ebs_unencrypted_volume: [{ securityHub: ['EC2.3'], when: (d) => d.state === 'in-use' }],
  eip_unassociated: [{ securityHub: ['EC2.12'] }],

  // RDS DB instances.
  rds_publicly_accessible: [{ securityHub: ['RDS.2'], cis: ['2.3.3'] }],
  rds_storage_unencrypted: [{ securityHub: ['RDS.3'], cis: ['2.3.1'] }],
  rds_backups_disabled: [{ securityHub: ['RDS.11'] }],
  rds_deletion_protection_disabled: [{ securityHub: ['RDS.8'] }],
  rds_single_az: [{ securityHub: ['RDS.5'] }],
};

/**
 * The controls a finding of `check` with `details` evidences, each id once in
 * table order; `undefined` when it evidences none.
 *
 * @example controlsFor('s3_bucket_block_public_access_off') // { securityHub: ['S3.8'], cis: ['2.1.4'] }
 * @example controlsFor('iam_user_key_unused', { unusedDays: 60 }) // { securityHub: ['IAM.22'], cis: ['1.12'] }
 */
export function controlsFor(check: string, details: Details = {}): FindingControls | undefined {
  const rules = Object.hasOwn(CHECK_CONTROLS, check) ? CHECK_CONTROLS[check] : undefined;
  const securityHub = new Set<string>();
  const cis = new Set<string>();
  for (const rule of rules ?? []) {
    if (rule.when && !rule.when(details)) continue;
    for (const id of rule.securityHub ?? []) securityHub.add(id);
    for (const id of rule.cis ?? []) cis.add(id);
  }
  if (securityHub.size === 0 && cis.size === 0) return undefined;
  return { securityHub: [...securityHub], cis: [...cis] };
}
