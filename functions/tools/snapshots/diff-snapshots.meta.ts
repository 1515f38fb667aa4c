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
import { REPORT_READER_RUNTIME } from './snapshot-stats.meta';
import { defineSnapshotSpec } from './spec';

/** `diff_snapshots`: what changed between two snapshots of one source. */
export const diffSnapshotsSpec = defineSnapshotSpec({
  name: 'diff_snapshots',
  description:
    'What changed from snapshot `a` to snapshot `b` of the same source (ids from list_snapshots): {added, removed, ' +
    'changed}. Two S3 Inventory reports of one configuration: counts, bytes, files by extension and up to 10 sample ' +
    'keys each (removed ones drawn from 512 keys of a: fewer when few were removed; an object whose size, last-modified time or ETag differs is changed; in an inventory of every ' +
    'version, identity is key + version id and new delete markers are counted apart), plus ransom-note-like file ' +
    'names among added and changed files. Two EBS snapshots of one volume: blocks and bytes added, removed and ' +
    'changed (ListChangedBlocks) with sample block indexes. Different kinds, configurations or volumes are ' +
    'invalid_args. Never reads a file or block. Cost: S3 reads both reports in full; reports past one function ' +
    '(2 GiB of data files, or more than 50 million objects) are answered by Athena with the same figures but no ' +
    'sample keys (value.route says so); EBS one call per 10,000 blocks.',
  inputSchema: () => z.strictObject({ a: snapshotIdArg(), b: snapshotIdArg() }),
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
  workspaceAccess: { access: 'read_write', paths: athenaAnswerPaths('diff_snapshots') },
  runtime: REPORT_READER_RUNTIME,
});
