import { type DBInstance, paginateDescribeDBInstances, RDSClient } from '@aws-sdk/client-rds';
import { readPages, stopFields } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { compareText, increment, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { rdsInventorySpec } from './rds-inventory.meta';
import { auditResult } from './shared/audit-parts';
import { SEVERITIES, type Severity } from './shared/findings';
import { type AuditValue, auditValue, newFinding, runRegionalAudit } from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues } from './shared/service-enums';

/** DescribeDBInstances returns at most 100 instances a page (RDS API reference, "DescribeDBInstances", MaxRecords). */
const PAGE_SIZE = 100;
/** 100 pages: 10,000 instances per region, far above the 40-instance default quota ("Amazon RDS quotas"). */
const MAX_PAGES = 100;

/**
 * `DBInstanceStatus` values (RDS User Guide, "Viewing Amazon RDS DB instance
 * status"). RDS types the field as a free string, so the list is the guide's;
 * a status not in it is counted under `unrecognizedValues` and the instance
 * still judged.
 */
const DB_STATUS = serviceEnum('DBInstanceStatus', [
  'available',
  'backing-up',
  'configuring-enhanced-monitoring',
  'configuring-iam-database-auth',
  'configuring-log-exports',
  'converting-to-vpc',
  'creating',
  'delete-precheck',
  'deleting',
  'failed',
  'inaccessible-encryption-credentials',
  'inaccessible-encryption-credentials-recoverable',
  'incompatible-create',
  'incompatible-network',
  'incompatible-option-group',
  'incompatible-parameters',
  'incompatible-restore',
  'insufficient-capacity',
  'maintenance',
  'modifying',
  'moving-to-vpc',
  'rebooting',
  'resetting-master-credentials',
  'renaming',
  'restore-error',
  'starting',
  'stopped',
  'stopping',
  'storage-config-upgrade',
  'storage-full',
  'storage-initialization',
  'storage-optimization',
  'upgrading',
] as const);
/** An instance being deleted is counted apart (`deletingInstances`): not in the totals, findings or top N. */
const ENDED_STATUSES: ReadonlySet<string> = new Set(['deleting']);

/** One DB instance as the inventory lists it. */
export interface RdsInstanceSummary {
  readonly dbInstanceIdentifier: string;
  readonly dbInstanceArn: string | null;
  readonly region: string;
  readonly engine: string;
  readonly engineVersion: string | null;
  readonly dbInstanceClass: string;
  readonly status: string;
  /** Null where RDS's answer lacks the field: unknown is never read as false or 0. */
  readonly multiAz: boolean | null;
  readonly storageEncrypted: boolean | null;
  readonly publiclyAccessible: boolean | null;
  /** Days automated backups are kept; 0 means automated backups are off. */
  readonly backupRetentionDays: number | null;
  readonly deletionProtection: boolean | null;
  /** The Aurora or Multi-AZ DB cluster the instance belongs to. */
  readonly dbClusterIdentifier: string | null;
  /** The source of a read replica. */
  readonly readReplicaSource: string | null;
  readonly allocatedStorageGiB: number | null;
  readonly storageType: string | null;
  /** The checks that fired for it, worst first. */
  readonly findings: string[];
  /** Its worst finding's severity; null without findings. */
  readonly worstSeverity: Severity | null;
}

/** What the checks look at: an instance's settings, before judgment. */
type RdsInstanceFacts = Omit<RdsInstanceSummary, 'findings' | 'worstSeverity'>;

/** Counts per region, added up over regions. */
export type RdsStats = {
  instances: number;
  byEngine: Record<string, number>;
  byInstanceClass: Record<string, number>;
  byStatus: Record<string, number>;
  multiAz: number;
  storageEncrypted: number;
  /** Instances whose answer says storage is not encrypted (absent is not counted: unknown). */
  storageUnencrypted: number;
  publiclyAccessible: number;
  /** Instances whose answer lacks a setting a check reads: those checks stay silent for them. */
  settingsUnknown: number;
  backupsDisabled: number;
  deletionProtected: number;
  clusterMembers: number;
  /** Instances being deleted: listed by RDS, counted nowhere else. */
  deletingInstances: number;
  /** Instances RDS listed twice (counted once). */
  duplicatesSkipped: number;
  /** Statuses this tool does not know, by `field:value` (such instances are still judged). */
  unrecognizedValues: UnrecognizedValues;
};

/** What `aws_rds_inventory` returns. */
export type RdsInventoryValue = AuditValue<RdsStats> & {
  /** The top N instances: worst findings first, then by identifier. */
  readonly dbInstances: RdsInstanceSummary[];
};

const emptyStats = (): RdsStats => ({
  instances: 0,
  byEngine: {},
  byInstanceClass: {},
  byStatus: {},
  multiAz: 0,
  storageEncrypted: 0,
  storageUnencrypted: 0,
  publiclyAccessible: 0,
  settingsUnknown: 0,
  backupsDisabled: 0,
  deletionProtected: 0,
  clusterMembers: 0,
  deletingInstances: 0,
  duplicatesSkipped: 0,
  unrecognizedValues: {},
});

/** The settings the checks read: an instance missing one is counted in `settingsUnknown`. */
const JUDGED_SETTINGS = [
  'multiAz',
  'storageEncrypted',
  'publiclyAccessible',
  'backupRetentionDays',
  'deletionProtection',
] as const satisfies readonly (keyof RdsInstanceFacts)[];

/** A check on one instance: whether it fires, and how it reads. */
interface InstanceCheck {
  readonly check: string;
  readonly severity: Severity;
  readonly fires: (instance: RdsInstanceFacts) => boolean;
  readonly title: (id: string) => string;
}

/**
 * The checks, worst severity first (an instance's first fired check is its worst). Cluster members (Aurora, Multi-AZ
 * DB clusters) keep backups, deletion protection and AZ placement at the cluster
 * (RDS User Guide, "Aurora DB clusters"), so only exposure and encryption apply
 * to them; a read replica's backups are optional and often unsupported, so it is
 * not judged on them.
 */
const CHECKS: readonly InstanceCheck[] = [
  {
    check: 'rds_publicly_accessible',
    severity: 'high',
    fires: (i) => i.publiclyAccessible === true,
    title: (id) => `RDS instance ${id} is publicly accessible (its endpoint resolves to a public IP)`,
  },
  {
    check: 'rds_storage_unencrypted',
    severity: 'medium',
    fires: (i) => i.storageEncrypted === false,
    title: (id) => `RDS instance ${id} does not encrypt its storage at rest`,
  },
  {
    check: 'rds_backups_disabled',
    severity: 'medium',
    fires: (i) => i.backupRetentionDays === 0 && !i.dbClusterIdentifier && !i.readReplicaSource,
    title: (id) => `RDS instance ${id} has automated backups turned off (retention 0 days)`,
  },
  {
    check: 'rds_deletion_protection_disabled',
    severity: 'low',
    fires: (i) => i.deletionProtection === false && !i.dbClusterIdentifier,
    title: (id) => `RDS instance ${id} has no deletion protection`,
  },
  {
    check: 'rds_single_az',
    severity: 'low',
    fires: (i) => i.multiAz === false && !i.dbClusterIdentifier,
    title: (id) => `RDS instance ${id} runs in a single Availability Zone`,
  },
];

function factsOf(instance: DBInstance, region: string, status: string): RdsInstanceFacts {
  return {
    dbInstanceIdentifier: instance.DBInstanceIdentifier ?? 'unknown',
    dbInstanceArn: instance.DBInstanceArn ?? null,
    region,
    engine: instance.Engine ?? 'unknown',
    engineVersion: instance.EngineVersion ?? null,
    dbInstanceClass: instance.DBInstanceClass ?? 'unknown',
    status,
    multiAz: instance.MultiAZ ?? null,
    storageEncrypted: instance.StorageEncrypted ?? null,
    publiclyAccessible: instance.PubliclyAccessible ?? null,
    backupRetentionDays: instance.BackupRetentionPeriod ?? null,
    deletionProtection: instance.DeletionProtection ?? null,
    dbClusterIdentifier: instance.DBClusterIdentifier ?? null,
    readReplicaSource:
      instance.ReadReplicaSourceDBInstanceIdentifier ?? instance.ReadReplicaSourceDBClusterIdentifier ?? null,
    allocatedStorageGiB: instance.AllocatedStorage ?? null,
    storageType: instance.StorageType ?? null,
  };
}

/** Worst severity first, then more findings first, then by identifier: a stable order. */
function byConcern(a: RdsInstanceSummary, b: RdsInstanceSummary): number {
  const rank = (i: RdsInstanceSummary) =>
    i.worstSeverity ? SEVERITIES.indexOf(i.worstSeverity) : SEVERITIES.length;
  return (
    rank(a) - rank(b) ||
    b.findings.length - a.findings.length ||
    compareText(a.dbInstanceIdentifier, b.dbInstanceIdentifier) ||
    compareText(a.region, b.region)
  );
}

/**
 * `aws_rds_inventory` with its handler.
 *
 * API calls per run: per region ⌈instances/100⌉ DescribeDBInstances (at least 1);
 * plus 1 DescribeRegions for "all". A region adds its counts and instances only
 * when its read completed (see `RegionScan`).
 */
export const rdsInventoryTool = defineTool(rdsInventorySpec, async (ctx, args) => {
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'rds', emptyStats: emptyStats() },
    async ({ clientConfig, region, stats, findings, once }) => {
      const client = new RDSClient(clientConfig);
      // This region's instances: merged into the result only when the region's read completes.
      let listed: RdsInstanceSummary[] = [];
      const read = await readPages(
        paginateDescribeDBInstances({ client, pageSize: PAGE_SIZE }, {}),
        (page) => {
          once.each(
            page.DBInstances,
            (db) => db.DBInstanceArn ?? db.DBInstanceIdentifier,
            (dbInstance) => {
              const raw = dbInstance.DBInstanceStatus;
              const status = DB_STATUS.parse(raw, stats.unrecognizedValues) ?? raw ?? 'unknown';
              if (ENDED_STATUSES.has(status)) {
                stats.deletingInstances++;
                return;
              }
              const facts = factsOf(dbInstance, region, status);
              const fired = CHECKS.filter((c) => c.fires(facts));
              const instance: RdsInstanceSummary = {
                ...facts,
                findings: fired.map((c) => c.check),
                worstSeverity: fired[0]?.severity ?? null,
              };
              stats.instances++;
              increment(stats.byEngine, instance.engine);
              increment(stats.byInstanceClass, instance.dbInstanceClass);
              increment(stats.byStatus, instance.status);
              if (instance.multiAz) stats.multiAz++;
              if (instance.storageEncrypted) stats.storageEncrypted++;
              if (instance.storageEncrypted === false) stats.storageUnencrypted++;
              if (JUDGED_SETTINGS.some((key) => instance[key] === null)) stats.settingsUnknown++;
              if (instance.publiclyAccessible) stats.publiclyAccessible++;
              if (instance.backupRetentionDays === 0) stats.backupsDisabled++;
              if (instance.deletionProtection) stats.deletionProtected++;
              if (instance.dbClusterIdentifier) stats.clusterMembers++;
              for (const c of fired) {
                findings.push(
                  newFinding({
                    check: c.check,
                    severity: c.severity,
                    region,
                    // The ARN carries the account: identifiers repeat across accounts, EC2-style ids do not.
                    resource: instance.dbInstanceArn ?? instance.dbInstanceIdentifier,
                    title: c.title(instance.dbInstanceIdentifier),
                    details: {
                      dbInstanceIdentifier: instance.dbInstanceIdentifier,
                      engine: instance.engine,
                      dbInstanceClass: instance.dbInstanceClass,
                      ...(instance.dbClusterIdentifier
                        ? { dbClusterIdentifier: instance.dbClusterIdentifier }
                        : {}),
                    },
                  }),
                );
              }
              listed.push(instance);
            },
          );
          // Only the topN most concerning instances are kept in memory.
          if (listed.length > args.topN * 4) listed = listed.sort(byConcern).slice(0, args.topN);
        },
        { maxPages: MAX_PAGES, deadline: ctx.deadline },
      );
      return { listed, ...stopFields(read) };
    },
  );
  const { totals } = audit;
  const value: RdsInventoryValue = {
    ...auditValue(audit),
    dbInstances: audit.listed.sort(byConcern).slice(0, args.topN),
  };
  return auditResult(
    audit,
    `${plural(totals.instances, 'RDS DB instance')} (${totals.publiclyAccessible} public, ` +
      `${totals.storageUnencrypted} unencrypted` +
      `${totals.settingsUnknown > 0 ? `, settings missing from the answer for ${totals.settingsUnknown}` : ''}` +
      `${totals.deletingInstances > 0 ? `, ${totals.deletingInstances} being deleted not counted` : ''})`,
    value,
  );
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(rdsInventoryTool);
