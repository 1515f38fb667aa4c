/**
 * The snapshot tools' IAM, as data for their specs and the CDK: what each
 * tool's role is allowed (least privilege) and the explicit Deny every one of
 * them carries so that no grant, however wide an administrator makes the role
 * later, lets it read content (docs/design.md, "Snapshot tools"). Spec files import
 * this: no SDK here.
 */
import type { IamDeny, IamGrant } from '../../runtime/spec';
import {
  DATA_FILE_EXTENSIONS,
  inventoryObjectArnPatterns,
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
 * (AmazonS3ReadOnlyAccess) still cannot make these tools read a file. The CDK
 * adds the platform's run workspace (`runs/*`) to `notResources` for the tools
 * with `workspaceAccess` (lib/tool-function.ts), and writes the ARNs in the
 * stack's partition.
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
      // The symlink.txt files list data files: Athena reads them with the caller's credentials (Athena route).
      notResources: [...inventoryObjectArnPatterns(), inventorySymlinkArnPattern()],
    },
  ];
}

/** What the Athena route of one configuration may reach (docs/snapshot-tools.md, "Athena route"). */
export interface AthenaRouteScope {
  readonly region: string;
  readonly account: string;
  /** The route's Athena workgroup (platform settings). */
  readonly workGroup: string;
  /** Glue database and table of the configuration's inventory (inventory-sql.ts `createTableStatement`). */
  readonly database: string;
  readonly table: string;
  /** The inventory's destination bucket and folder (`[prefix/]source/config/`). */
  readonly destinationBucket: string;
  readonly inventoryBase: string;
  /** The platform's workspace bucket; results go under `runs/*\/athena/` only. */
  readonly workspaceBucket: string;
}

/**
 * Least privilege of the Athena route (Service Authorization Reference, "Amazon
 * Athena", "AWS Glue", "Amazon S3"; Athena User Guide, "Access to Amazon S3"):
 * the three query calls on its workgroup only; Glue reads of its database and
 * table only (`dt` is projected, so no partition writes); reads of that
 * inventory's symlink and data files only (Athena reads them as the caller),
 * the listing of the inventory folder Athena makes; and writes and reads of the
 * workspace's `runs/*\/athena/` results prefix only (GetQueryResults reads the
 * result file as the caller). The content Deny (`snapshotContentDeny`) still applies.
 */
export function athenaRouteGrants(scope: AthenaRouteScope): IamGrant[] {
  const { region, account, destinationBucket, inventoryBase } = scope;
  const glue = `arn:aws:glue:${region}:${account}`;
  const uuid = '????????-????-????-????-????????????';
  const results = `arn:aws:s3:::${scope.workspaceBucket}/runs/*/athena/*`;
  return [
    {
      actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'],
      resources: [`arn:aws:athena:${region}:${account}:workgroup/${scope.workGroup}`],
    },
    {
      actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
      resources: [
        `${glue}:catalog`,
        `${glue}:database/${scope.database}`,
        `${glue}:table/${scope.database}/${scope.table}`,
      ],
    },
    {
      actions: ['s3:GetObject'],
      resources: [
        `arn:aws:s3:::${destinationBucket}/${inventoryBase}hive/dt=????-??-??-??-??/symlink.txt`,
        `arn:aws:s3:::${destinationBucket}/${inventoryBase}data/${uuid}${DATA_FILE_EXTENSIONS.CSV}`,
        `arn:aws:s3:::${destinationBucket}/${inventoryBase}data/${uuid}${DATA_FILE_EXTENSIONS.Parquet}`,
      ],
    },
    { actions: ['s3:ListBucket', 's3:GetBucketLocation'], resources: [`arn:aws:s3:::${destinationBucket}`] },
    {
      actions: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [results],
    },
    { actions: ['s3:GetBucketLocation'], resources: [`arn:aws:s3:::${scope.workspaceBucket}`] },
  ];
}
