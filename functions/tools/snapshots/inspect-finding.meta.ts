import * as z from 'zod/mini';
import { FINDINGS_PATH } from './findings/model';
import { defineSnapshotSpec } from './spec';

/** A finding id: `<check>:<16 hex>`. */
export const FINDING_ID = /^[a-z][a-z0-9_]{0,63}:[0-9a-f]{16}$/;

/** `inspect_finding`: one precomputed finding, exactly as written for the run. */
export const inspectFindingSpec = defineSnapshotSpec({
  name: 'inspect_finding',
  description:
    'One finding of this run in full, exactly as scan_snapshots wrote it: id, check, severity, source, snapshot, ' +
    'title, evidence (figures, the baseline they were compared with, thresholds, sample keys or block indexes) and ' +
    'verify (AWS CLI or console steps to check it by hand, metadata only). Findings are computed once per run and ' +
    "never change. Reads the run's workspace only: no AWS call into the account, no cost.",
  inputSchema: () =>
    z.strictObject({
      id: z
        .string()
        .check(
          z.regex(FINDING_ID, 'a finding id <check>:<16 hex digits>, as scan_snapshots lists them'),
          z.describe('Finding id from scan_snapshots, e.g. change_spike:5f0c1a2b3c4d5e6f.'),
        ),
    }),
  service: 's3',
  // Only the run's findings: the CDK grants that file of the workspaces on the platform's bucket.
  readsAccount: false,
  iam: [],
  workspaceAccess: { access: 'read', paths: [FINDINGS_PATH] },
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
});
