/**
 * The snapshot tools' IAM, as data for their specs and the CDK: what each
 * tool's role is allowed (least privilege) and the explicit Deny every one of
 * them carries so that no grant, however wide an administrator makes the role
 * later, lets it read content (docs/design.md, "Snapshot tools"). Spec files import
 * this: no SDK here.
 */
import type { IamDeny, IamGrant } from '../../runtime/spec';
import {
  inventoryObjectArnPatterns,
  inventoryOrcDataArnPattern,
  inventorySymlinkArnPattern,
} from './inventory/layout';

/** EC2 metadata reads: snapshots (`OwnerIds: self`, public ones filtered) and the enabled regions for `"all"`. */
export const EC2_SNAPSHOT_READ: IamGrant = { actions: ['ec2:DescribeSnapshots', 'ec2:DescribeRegions'] };

/**
 * The EBS direct APIs' list calls (block indexes and tokens, no data). Their
 * resource is the snapshot ARN `arn:aws:ec2:<region>::snapshot/<id>` (Service
 * Authorization Reference, "Amazon Elastic Block Store"); `*` covers every
 * region's.
 */
export const EBS_BLOCK_LIST: IamGrant = {
  actions: ['ebs:ListSnapshotBlocks', 'ebs:ListChangedBlocks'],
  resources: ['arn:aws:ec2:*::snapshot/*'],
};

/**
 * S3 Inventory metadata: configurations (`s3:GetInventoryConfiguration` covers
 * Get and ListBucketInventoryConfigurations) and the report folders in
 * destination buckets (`s3:ListBucket`).
 */
export const S3_INVENTORY_LIST: IamGrant = { actions: ['s3:GetInventoryConfiguration', 's3:ListBucket'] };

/** The account's buckets, to find every inventory configuration when no source is named. */
export const S3_BUCKET_DISCOVERY: IamGrant = { actions: ['s3:ListAllMyBuckets'] };

/** GetObject on inventory manifests and data files only (`inventoryObjectArnPatterns`). */
export const S3_INVENTORY_OBJECT_READ: IamGrant = {
  actions: ['s3:GetObject'],
  resources: inventoryObjectArnPatterns(),
};

/** Whether a destination bucket that holds reports is public (scan only). */
export const S3_DESTINATION_POLICY_STATUS: IamGrant = { actions: ['s3:GetBucketPolicyStatus'] };

/**
 * The explicit Deny of every snapshot tool's role, and of the customer role its
 * `aws` tag makes the CDK add it to: no block content (`ebs:GetSnapshotBlock`),
 * no object content (`s3:GetObject` and its version and torrent siblings)
 * outside inventory manifests and data files. A Deny beats any Allow (IAM User
 * Guide, "Policy evaluation logic"), so an administrator widening the role
 * (AmazonS3ReadOnlyAccess) still cannot make these tools read a file. The run
 * workspace is not excepted: the tools with `workspaceAccess` reach their
 * findings file with the run-data session the dispatcher vends (another
 * principal). The CDK writes the ARNs in the stack's partition.
 */
export function snapshotContentDeny(): IamDeny[] {
  return [
    {
      sid: 'DenySnapshotBlockContent',
      actions: ['ebs:GetSnapshotBlock'],
      resources: ['*'],
    },
    {
      sid: 'DenyObjectContentOutsideInventories',
      // GetObjectVersion reads a version's content; GetObjectTorrent serves the object as a torrent.
      // SelectObjectContent and Object Lambda reads are authorized as s3:GetObject (S3 User Guide).
      actions: ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectTorrent'],
      // The symlink.txt files list data files, and ORC data files are read by Athena only: both with the
      // caller's credentials (Athena route).
      notResources: [
        ...inventoryObjectArnPatterns(),
        inventorySymlinkArnPattern(),
        inventoryOrcDataArnPattern(),
      ],
    },
  ];
}

/**
 * The Athena route's queries (docs/snapshot-tools.md, "Athena route"; Service
 * Authorization Reference, "Amazon Athena", "AWS Glue"): the three query calls
 * on the `etp-*` workgroups only (CustomerAccessStack creates `etp-snapshots`,
 * with managed query results, so no results bucket is written), and the Glue
 * calls `CREATE EXTERNAL TABLE IF NOT EXISTS` and the queries make, on the
 * `etp_*` databases and their `inventory_*` tables only. Partitions are
 * projected, so no partition call.
 */
export const ATHENA_ROUTE_QUERY: IamGrant = {
  actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'],
  resources: ['arn:aws:athena:*:*:workgroup/etp-*'],
  wildcardReason:
    'the Athena route queries S3 Inventory tables in the tenant account (known at run time) only in the ' +
    "platform's own etp-* workgroups, which CustomerAccessStack creates with managed query results.",
};

/** See {@link ATHENA_ROUTE_QUERY}: Glue reads and table creation of the route's own tables only. */
export const ATHENA_ROUTE_TABLES: IamGrant = {
  actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:CreateTable'],
  resources: [
    'arn:aws:glue:*:*:catalog',
    'arn:aws:glue:*:*:database/etp_*',
    'arn:aws:glue:*:*:table/etp_*/inventory_*',
  ],
  wildcardReason:
    "the Athena route creates its inventory_* tables (CREATE EXTERNAL TABLE IF NOT EXISTS) in the platform's own " +
    'etp_* Glue databases of the tenant account (known at run time), nothing else of Glue.',
};

/**
 * What Athena reads with the caller's credentials beyond the manifests and data
 * files ({@link S3_INVENTORY_OBJECT_READ}): each report's `hive/dt=…/symlink.txt`
 * (a list of data files).
 */
export const ATHENA_ROUTE_SYMLINK_READ: IamGrant = {
  actions: ['s3:GetObject'],
  resources: [inventorySymlinkArnPattern()],
};

/** ORC reports' data files, which only Athena reads (with the caller's credentials) on the Athena route. */
export const ATHENA_ROUTE_ORC_READ: IamGrant = {
  actions: ['s3:GetObject'],
  resources: [inventoryOrcDataArnPattern()],
};

/** The destination bucket's region, which Athena asks with the caller's credentials (Athena User Guide, "Access to Amazon S3"). */
export const ATHENA_ROUTE_BUCKET_LOCATION: IamGrant = {
  actions: ['s3:GetBucketLocation'],
  resources: ['arn:aws:s3:::*'],
};

/** Every grant of the Athena route, in the specs of `snapshot_stats`, `diff_snapshots` and `scan_snapshots`. */
export const ATHENA_ROUTE_GRANTS: readonly IamGrant[] = [
  ATHENA_ROUTE_QUERY,
  ATHENA_ROUTE_TABLES,
  ATHENA_ROUTE_SYMLINK_READ,
  ATHENA_ROUTE_ORC_READ,
  ATHENA_ROUTE_BUCKET_LOCATION,
];
