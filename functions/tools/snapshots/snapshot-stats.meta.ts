import * as z from 'zod/mini';
import { athenaAnswerPaths } from './athena/settings';
import {
  ATHENA_ROUTE_GRANTS,
  EBS_BLOCK_LIST,
  EC2_SNAPSHOT_READ,
  S3_INVENTORY_LIST,
  S3_INVENTORY_OBJECT_READ,
} from './iam';
import { snapshotIdArg } from './schemas';
import { defineSnapshotSpec } from './spec';

/**
 * `NODE_OPTIONS` for the functions that read whole reports (`snapshot_stats`,
 * `diff_snapshots`, `scan_snapshots`). Decoding a Parquet
 * row group makes short-lived strings and arrays; node's default young
 * generation lets ~100 MB of them pile up between collections, and its default
 * heap limit (from the memory it sees) lets the old generation grow lazily.
 * These bounds keep the V8 heap near 60 MB while leaving a 100,000-row group
 * ample room (bench/snapshots.ts, docs/snapshot-tools.md, "Memory model").
 */
export const REPORT_READER_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=256';

/**
 * Sizing of the tools that read whole inventory reports: 1,769 MB is one full
 * vCPU (Lambda allocates CPU in proportion to memory, "Configure Lambda function
 * memory") and holds a 10-million-object index (about 200 MB) with room to spare;
 * 600 s reads about 150 million rows at the measured 300,000+ rows per second (bench/snapshots.ts).
 */
export const REPORT_READER_RUNTIME = {
  memorySizeMb: 1769,
  timeoutSeconds: 600,
  nodeOptions: REPORT_READER_NODE_OPTIONS,
} as const;

/** `snapshot_stats`: one snapshot's size and what is new in it. */
export const snapshotStatsSpec = defineSnapshotSpec({
  name: 'snapshot_stats',
  description:
    'Statistics of one snapshot (id from list_snapshots): {id, files, bytes, new_bytes, file_type_histogram}. ' +
    'S3 Inventory report: objects, total bytes, bytes of objects new or changed since the previous report of the same ' +
    'configuration (new_files, changed_files, removed_files too), and files/bytes by extension (top 15 + "(other)"). ' +
    'EBS snapshot: written blocks and bytes (ListSnapshotBlocks), new_bytes from the blocks changed since the ' +
    'previous snapshot of the volume (ListChangedBlocks); files and file_type_histogram are null because an EBS ' +
    'snapshot has no file listing without reading content. Never reads a file or block. Cost: S3 reads the two ' +
    'reports in full (about 3 s per million objects of each); reports past one function (2 GiB of data files, or ' +
    'more than 50 million objects) are answered by Athena in the tenant account with the same figures ' +
    '(value.route says so, with bytes scanned and USD); EBS one list call per 10,000 blocks.',
  inputSchema: () => z.strictObject({ id: snapshotIdArg() }),
  service: 's3',
  iam: [
    EC2_SNAPSHOT_READ,
    EBS_BLOCK_LIST,
    S3_INVENTORY_LIST,
    S3_INVENTORY_OBJECT_READ,
    ...ATHENA_ROUTE_GRANTS,
  ],
  // The Athena route's answers (athena/answers.ts), written with the run-data session the dispatcher vends
  // for the call (read_write: a session policy has no write-only access); the function's own role has no right there.
  workspaceAccess: { access: 'read_write', paths: athenaAnswerPaths('snapshot_stats') },
  runtime: REPORT_READER_RUNTIME,
});
