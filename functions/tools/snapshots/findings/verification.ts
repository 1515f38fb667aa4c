/**
 * "How to verify by hand" for each finding: AWS CLI commands and console
 * steps that read metadata only (listings, attributes, CloudTrail), never a
 * file's or a block's content.
 */
import type { SnapshotCheck } from './model';

/** What the steps are written for. */
export interface VerifyTarget {
  readonly kind: 'ebs' | 's3_inventory';
  readonly region: string | null;
  /** EBS: the volume id; S3: the source bucket. */
  readonly resource: string;
  /** S3: the inventory configuration id. */
  readonly configurationId?: string;
  /** The AWS snapshot id (EBS) or report time (S3) the finding fired on. */
  readonly snapshot?: string;
  /** The one before it. */
  readonly previous?: string;
  /** An extension involved (extension findings). */
  readonly extension?: string;
  /** A sample key (S3) to look at. */
  readonly sampleKey?: string;
}

function regionFlag(target: VerifyTarget): string {
  return target.region ? ` --region ${target.region}` : '';
}

function ebsSteps(check: SnapshotCheck, t: VerifyTarget): string[] {
  const r = regionFlag(t);
  const lineage = `aws ec2 describe-snapshots --owner-ids self --filters Name=volume-id,Values=${t.resource}${r} --query 'sort_by(Snapshots,&StartTime)[].[SnapshotId,StartTime,State,Encrypted]' --output table`;
  switch (check) {
    case 'change_spike':
      return [
        `Count the changed blocks: aws ebs list-changed-blocks --first-snapshot-id ${t.previous} --second-snapshot-id ${t.snapshot}${r} --query 'length(ChangedBlocks)' (first page of up to 10,000; follow NextToken for the rest; each block is BlockSize bytes)`,
        `Compare with earlier pairs of the same volume: ${lineage}`,
        `Look for what wrote to ${t.resource} then: CloudTrail (console, Event history) for the instance it is attached to, and the instance's own logs`,
      ];
    case 'public_snapshot':
      return [
        `aws ec2 describe-snapshot-attribute --snapshot-id ${t.snapshot} --attribute createVolumePermission${r} (a Group "all" means public)`,
        `Make it private: aws ec2 modify-snapshot-attribute --snapshot-id ${t.snapshot} --attribute createVolumePermission --operation-type remove --group-names all${r}`,
      ];
    case 'unencrypted_snapshot':
      return [
        lineage,
        'Encrypt going forward: enable EBS encryption by default (EC2 console, Account attributes, Data protection and security) and copy existing snapshots with --encrypted',
      ];
    default:
      return [
        `List the volume's snapshots, newest last: ${lineage}`,
        'Check the schedule that takes them (AWS Backup plans, Data Lifecycle Manager policies) for failed or disabled jobs',
      ];
  }
}

function s3Steps(check: SnapshotCheck, t: VerifyTarget): string[] {
  const bucket = t.resource;
  const config = t.configurationId ?? '';
  const describe = `aws s3api get-bucket-inventory-configuration --bucket ${bucket} --id ${config}`;
  const athena =
    'Query the inventory with Athena (S3 User Guide, "Querying Amazon S3 Inventory with Amazon Athena") to list the keys involved';
  switch (check) {
    case 'change_spike':
      return [
        `See recently written objects: aws s3api list-objects-v2 --bucket ${bucket} --query "Contents[?LastModified>='<day of ${t.snapshot}>'].[Key,Size,LastModified]" (a listing, no content)`,
        athena,
        `Who wrote them: CloudTrail data events (PutObject, CopyObject) for ${bucket}, when enabled`,
      ];
    case 'deletion_spike':
      return [
        `See delete markers and versions: aws s3api list-object-versions --bucket ${bucket}${t.sampleKey ? ` --prefix '${t.sampleKey}'` : ''} --query 'DeleteMarkers[].[Key,LastModified]'`,
        athena,
        `Who deleted: CloudTrail data events (DeleteObject, DeleteObjects) for ${bucket}, and lifecycle rules: aws s3api get-bucket-lifecycle-configuration --bucket ${bucket}`,
      ];
    case 'extension_spike':
    case 'ransomware_extension':
      return [
        `Count them: aws s3api list-objects-v2 --bucket ${bucket} --query "length(Contents[?ends_with(Key, '.${t.extension}')])"`,
        `Look at one object's metadata only: aws s3api head-object --bucket ${bucket} --key '${t.sampleKey ?? '<a sample key>'}'`,
        'If versioning is on, earlier versions may be intact: aws s3api list-object-versions on the same prefix',
      ];
    case 'ransom_note_names':
      return [
        `Look at the note's metadata, not its content: aws s3api head-object --bucket ${bucket} --key '${t.sampleKey ?? '<a sample key>'}'`,
        `Find every copy: aws s3api list-objects-v2 --bucket ${bucket} --query "Contents[?contains(Key, '${t.sampleKey?.split('/').pop() ?? ''}')].Key"`,
        'Treat the account as compromised until ruled out: follow your incident response plan before opening any note',
      ];
    case 'public_snapshot':
      return [
        `aws s3api get-bucket-policy-status --bucket <destination of ${describe}>`,
        'Block public access on the destination bucket: aws s3api put-public-access-block with all four settings true',
      ];
    default:
      return [
        describe,
        `List its reports: aws s3 ls s3://<destination bucket>/<prefix>/${bucket}/${config}/ (newest last)`,
        'A configuration that was disabled or deleted, or a destination policy that denies S3, stops the reports',
      ];
  }
}

/** The verification steps of a finding. */
export function verificationSteps(check: SnapshotCheck, target: VerifyTarget): string[] {
  return target.kind === 'ebs' ? ebsSteps(check, target) : s3Steps(check, target);
}
