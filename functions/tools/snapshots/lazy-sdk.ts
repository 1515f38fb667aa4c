/**
 * The EC2 SDK and the EBS direct APIs' SDK, loaded on first use. Evaluating a
 * client module costs a function memory at once: `node -e "require(…)"` stays at
 * 135 MB resident for `@aws-sdk/client-ec2` and 69 MB for `@aws-sdk/client-ebs`,
 * against 42 MB for bare node. `snapshot_stats` and `diff_snapshots` need them
 * only for EBS snapshots, never for the inventory reports whose indexes need
 * that memory. Each loader exposes only the names the tools use (the
 * no-content rail test checks the lists).
 */
import type * as Athena from '@aws-sdk/client-athena';
import type * as Ebs from '@aws-sdk/client-ebs';
import type * as Ec2 from '@aws-sdk/client-ec2';

/** What the snapshot tools use of the EC2 SDK: snapshot metadata. */
export type Ec2Sdk = Pick<typeof Ec2, 'EC2Client' | 'DescribeSnapshotsCommand' | 'paginateDescribeSnapshots'>;

/** What the snapshot tools use of the EBS direct APIs: the two list calls. */
export type EbsSdk = Pick<
  typeof Ebs,
  'EBSClient' | 'paginateListSnapshotBlocks' | 'paginateListChangedBlocks'
>;

/** What the Athena route uses of the Athena SDK: the client, the query calls and the results paginator. */
export type AthenaSdk = Pick<
  typeof Athena,
  'AthenaClient' | 'StartQueryExecutionCommand' | 'GetQueryExecutionCommand' | 'paginateGetQueryResults'
>;

let ec2: Ec2Sdk | undefined;
let athena: AthenaSdk | undefined;
let ebs: EbsSdk | undefined;

// require, not import(): this is CommonJS (Jest's CommonJS runtime has no import()); esbuild
// bundles each module and evaluates it only when its loader first runs.

/** The EC2 SDK; evaluated on the first call. */
export function ec2Sdk(): Ec2Sdk {
  ec2 ??= require('@aws-sdk/client-ec2') as typeof Ec2;
  return ec2;
}

/** The EBS direct APIs' SDK; evaluated on the first call. */
export function ebsSdk(): EbsSdk {
  ebs ??= require('@aws-sdk/client-ebs') as typeof Ebs;
  return ebs;
}

/** The Athena SDK; evaluated on the first call (reports past one function only). */
export function athenaSdk(): AthenaSdk {
  athena ??= require('@aws-sdk/client-athena') as typeof Athena;
  return athena;
}
