/**
 * How the snapshot tools get their AWS SDK clients. Clients are created per
 * call (their credentials belong to the call's tenant, `awsClientConfig`), by
 * factories a test may replace: the integration tests point S3 at a local
 * server by giving a factory an `endpoint` and `forcePathStyle`; production
 * code has no such option to set, so nothing can redirect a deployed tool.
 */
import type { EBSClient } from '@aws-sdk/client-ebs';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { awsClientConfig } from '../../runtime/aws/client-config';
import type { AwsAccess } from '../../runtime/aws/credentials';
import { AthenaQueryEngine, type InventoryQueryEngine } from './athena/athena-runner';
import type { AthenaRouteSettings } from './athena/settings';
import { athenaSdk, ebsSdk, ec2Sdk } from './lazy-sdk';

/** Creates the clients of one call, for one region each. */
export interface SnapshotClients {
  /** S3, following region redirects (a bucket answers from its own region, whatever the tenant's default). */
  readonly s3: (access: AwsAccess, region: string) => S3Client;
  readonly ec2: (access: AwsAccess, region: string) => EC2Client;
  /** The EBS direct APIs (ListSnapshotBlocks, ListChangedBlocks). */
  readonly ebs: (access: AwsAccess, region: string) => EBSClient;
  /** The Athena route's query engine in the tenant's account (docs/snapshot-tools.md, "Athena route"). */
  readonly inventoryQueries: (
    access: AwsAccess,
    region: string,
    settings: AthenaRouteSettings,
  ) => InventoryQueryEngine;
}

/** The clients deployed tools use: AWS's public endpoints with the platform's retry and timeout policy. */
export const defaultSnapshotClients: SnapshotClients = {
  s3: (access, region) =>
    new S3Client({
      ...awsClientConfig(access, region),
      followRegionRedirects: true,
      // Every data file is checked against its manifest's MD5 as it streams (inventory/data-file.ts); the SDK's
      // default (`WHEN_SUPPORTED`) would also ask S3 for the object's stored checksum on each GetObject and compute
      // it over the whole body again (CRC64NVME, which S3 stores for every new upload: S3 User Guide, "Checking
      // object integrity in Amazon S3"). Validated only when a request asks for it.
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  // EC2 and EBS are loaded on first use (lazy-sdk.ts): the inventory paths never pay for their models.
  ec2: (access, region) => new (ec2Sdk().EC2Client)(awsClientConfig(access, region)),
  ebs: (access, region) => new (ebsSdk().EBSClient)(awsClientConfig(access, region)),
  inventoryQueries: (access, region, settings) =>
    new AthenaQueryEngine(new (athenaSdk().AthenaClient)(awsClientConfig(access, region)), settings),
};
