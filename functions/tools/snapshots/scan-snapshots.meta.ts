import * as z from 'zod/mini';
import { regionsArg } from '../aws/shared/arg-schemas';
import { FINDINGS_PATH } from './findings/model';
import { thresholdsArg } from './findings/thresholds';
import {
  ATHENA_ROUTE_GRANTS,
  EBS_BLOCK_LIST,
  EC2_SNAPSHOT_READ,
  S3_BUCKET_DISCOVERY,
  S3_DESTINATION_POLICY_STATUS,
  S3_INVENTORY_LIST,
  S3_INVENTORY_OBJECT_READ,
} from './iam';
import { MAX_SCAN_SOURCES } from './scan/limits';
import { sinceArg, sourceIdArg } from './schemas';
import { REPORT_READER_NODE_OPTIONS } from './snapshot-stats.meta';
import { defineSnapshotSpec } from './spec';

/** `scan_snapshots`: computes the run's findings once and keeps them in the run's workspace. */
export const scanSnapshotsSpec = defineSnapshotSpec({
  name: 'scan_snapshots',
  description:
    "Computes the run's snapshot findings with fixed heuristics and writes them to the run's workspace, once: a later " +
    'call in the same run returns the findings already written (arguments then ignored, `reused: true`). Checks each ' +
    "source's snapshots since `since` (default 3 days ago) against its own baseline of earlier snapshots: change " +
    'spike, deletion spike, extension spike, known ransomware extensions, ransom-note-like file names (by name only), ' +
    'public or unencrypted snapshots, snapshots that stopped. Returns counts and the top findings (id, check, ' +
    'severity, title); inspect_finding(id) returns one in full. Never reads a file or block. Cost: reads the S3 ' +
    'Inventory reports examined plus their baseline in full; EBS one ListChangedBlocks per 10,000 changed blocks ' +
    'per snapshot pair; inventories past one function (2 GiB of data files, more than 50 million objects) or in ORC ' +
    'are compared by Athena in the tenant account (sources[].athena says so, with bytes scanned and USD; no sample keys). ' +
    'Meant for a plan level at the start of a run.',
  inputSchema: () =>
    z
      .strictObject({
        sources: z
          .optional(
            z.array(sourceIdArg()).check(
              z.minLength(1),
              z.maxLength(MAX_SCAN_SOURCES),
              z.refine((ids) => new Set(ids).size === ids.length, 'lists a source twice: give each once'),
            ),
          )
          .check(
            z.describe(
              'Source ids to scan; every EBS volume (in `regions`) and inventory configuration when omitted.',
            ),
          ),
        since: z
          .optional(sinceArg())
          .check(
            z.describe(
              'Examine snapshots taken at or after this date or date-time; default 72 hours before now.',
            ),
          ),
        regions: regionsArg(),
        thresholds: thresholdsArg(),
      })
      .check(
        // An EBS source names its region, and inventories are found in every bucket: regions would be ignored.
        z.refine((args) => args.sources === undefined || args.regions === undefined, {
          path: ['regions'],
          message:
            'applies only without sources (an EBS source names its own region): give sources or regions',
        }),
      ),
  service: 's3',
  sideEffects: 'write',
  // Its write is create-only per run (scan-snapshots.ts): a second run after a renewed secret repeats nothing.
  retryAfterSecretRenewal: true,
  workspaceAccess: { access: 'read_write', paths: [FINDINGS_PATH] },
  tags: ['workspace_write'],
  iam: [
    EC2_SNAPSHOT_READ,
    EBS_BLOCK_LIST,
    S3_BUCKET_DISCOVERY,
    S3_INVENTORY_LIST,
    S3_INVENTORY_OBJECT_READ,
    S3_DESTINATION_POLICY_STATUS,
    ...ATHENA_ROUTE_GRANTS,
  ],
  // Two report indexes at once (20 million objects, about 450 MB) and a month of daily reports. 890 s: the
  // dispatcher waits for it synchronously and needs 10 s more within Lambda's 900 s maximum.
  runtime: { memorySizeMb: 3008, timeoutSeconds: 890, nodeOptions: REPORT_READER_NODE_OPTIONS },
});
