/**
 * The snapshot tools' IAM, as data for their specs and the CDK: what each
 * tool's role is allowed (least privilege) and the explicit Deny every one of
 * them carries so that no grant, however wide an administrator makes the role
 * later, lets it read content (DESIGN.md, "Snapshot tools"). Spec files import
 * this: no SDK here.
 */
import type { IamGrant } from '../../runtime/spec';
import { inventoryObjectArnPatterns } from './inventory/layout';

/** One statement of the explicit Deny. `resources` or `notResources`, as IAM's Resource / NotResource. */
export interface DenyStatement {
  readonly sid: string;
  readonly actions: readonly string[];
  readonly resources?: readonly string[];
  readonly notResources?: readonly string[];
}

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
 * Object reads of the run workspace, granted by the CDK on the platform's bucket
 * (`runs/*`) to the tools that keep findings there (`scan_snapshots` writes,
 * `inspect_finding` reads). Not in the specs' `iam`: the bucket exists only once
 * deployed.
 */
export const FINDINGS_WORKSPACE_ACCESS = {
  /** Object key pattern within the workspace bucket. */
  objectKeyPattern: 'runs/*',
  scan_snapshots: ['s3:GetObject', 's3:PutObject'],
  inspect_finding: ['s3:GetObject'],
} as const;

/**
 * The explicit Deny of every snapshot tool's role: no block content
 * (`ebs:GetSnapshotBlock`), no object content (`s3:GetObject` and its
 * version/torrent/ACL-free siblings) outside inventory manifests and data files
 * and the run workspace. A Deny beats any Allow (IAM User Guide, "Policy
 * evaluation logic"), so an administrator widening the role (AmazonS3ReadOnlyAccess)
 * still cannot make these tools read a file.
 *
 * @param workspaceObjectArns - the workspace's `runs/*` object ARN(s), excepted from the
 *   GetObject Deny for the tools that keep findings there; none for the others.
 * @param partition - ARN partition. @default 'aws'
 * @example
 * // CDK: for each snapshot tool's role
 * for (const s of snapshotContentDeny([bucket.arnForObjects('runs/*')], Aws.PARTITION)) role.addToPolicy(new PolicyStatement({
 *   sid: s.sid, effect: Effect.DENY, actions: [...s.actions],
 *   ...(s.resources ? { resources: [...s.resources] } : { notResources: [...(s.notResources ?? [])] }) }));
 */
export function snapshotContentDeny(
  workspaceObjectArns: readonly string[] = [],
  partition = 'aws',
): DenyStatement[] {
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
      notResources: [...inventoryObjectArnPatterns(partition), ...workspaceObjectArns],
    },
  ];
}

/**
 * The Deny as it applies to tools without a workspace exception
 * (`list_snapshots`, `snapshot_stats`, `diff_snapshots`).
 */
export const SNAPSHOT_CONTENT_DENY: readonly DenyStatement[] = snapshotContentDeny();

/** The snapshot tools, by name: every one carries {@link snapshotContentDeny}. */
export const SNAPSHOT_TOOL_NAMES = [
  'list_snapshots',
  'snapshot_stats',
  'diff_snapshots',
  'inspect_finding',
  'scan_snapshots',
] as const;
