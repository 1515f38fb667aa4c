/**
 * What the snapshot tools' tests share: clients whose S3 goes to the local S3
 * server (the tools' own client factory with an `endpoint` and path-style
 * addressing; EC2 and EBS stay the defaults, which the unit tests mock), and a
 * world of buckets holding generated inventory histories.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { awsClientConfig } from '../../functions/runtime/aws/client-config';
import { defaultSnapshotClients, type SnapshotClients } from '../../functions/tools/snapshots/clients';
import type { LocalS3Server } from './inventory-s3-server';

/** The tools' clients with S3 pointed at `server`. */
export function localS3Clients(server: LocalS3Server): SnapshotClients {
  return {
    ...defaultSnapshotClients,
    s3: (access, region) =>
      new S3Client({ ...awsClientConfig(access, region), endpoint: server.url, forcePathStyle: true }),
  };
}
