import * as z from 'zod/mini';
import { regionsArg } from '../aws/shared/arg-schemas';
import { EC2_SNAPSHOT_READ, S3_BUCKET_DISCOVERY, S3_INVENTORY_LIST, S3_INVENTORY_OBJECT_READ } from './iam';
import { sinceArg, sourceIdArg } from './schemas';
import { defineSnapshotSpec } from './spec';

/** Snapshots listed at most per call (DescribeSnapshots pages and manifest reads stay bounded). */
export const MAX_LIST_LIMIT = 500;

/** `list_snapshots`: EBS snapshots and S3 Inventory reports, newest first. */
export const listSnapshotsSpec = defineSnapshotSpec({
  name: 'list_snapshots',
  description:
    "Lists snapshots newest first: EBS snapshots owned by the account (in `regions`, default the tenant's region) and " +
    'S3 Inventory reports (every inventory configuration of every bucket, or of `source`). Each has `id` (pass it to ' +
    'snapshot_stats / diff_snapshots), `kind` (ebs | s3_inventory), `source` (ebs:<region>:vol-… or ' +
    's3_inventory:<bucket>/<configuration>), `time`, `sizeBytes`, `state`, `encrypted`, `public`, `description`. ' +
    'Metadata only: never reads a file or block. Cost: DescribeSnapshots pages per region, one S3 listing per ' +
    'inventory configuration and one manifest read per listed report. `truncated` is set when page caps or the ' +
    'deadline cut the listing; sources that failed are in `errors`.',
  inputSchema: () =>
    z.strictObject({
      limit: z
        ._default(z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT)), 50)
        .check(z.describe(`How many snapshots to return, newest first (1-${MAX_LIST_LIMIT}, default 50).`)),
      since: z
        .optional(sinceArg())
        .check(z.describe('Only snapshots taken at or after this date (YYYY-MM-DD) or ISO-8601 date-time.')),
      source: z.optional(sourceIdArg()),
      regions: regionsArg(),
    }),
  service: 'ec2',
  iam: [EC2_SNAPSHOT_READ, S3_BUCKET_DISCOVERY, S3_INVENTORY_LIST, S3_INVENTORY_OBJECT_READ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
