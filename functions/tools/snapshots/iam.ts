/**
 * The snapshot tools' IAM, as data for their specs and the CDK: what each
 * tool's role is allowed (least privilege) and the explicit Deny every one of
 * them carries so that no grant, however wide an administrator makes the role
 * later, lets it read content (docs/design.md, "Snapshot tools"). Spec files import
 * this: no SDK here.
 */
import type { IamDeny, IamGrant } from '../../runtime/spec';
import { inventoryObjectArnPatterns } from './inventory/layout';

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
      notResources: inventoryObjectArnPatterns(),
    },
  ];
}
