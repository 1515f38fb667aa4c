import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { inExplainedRegion } from '../../runtime/aws/enabled-regions';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { type AnswerWriter, answerWriterFromEnvironment } from './athena/answers';
import { athenaRouteOf, routedInventoryStats } from './athena/route';
import { athenaRouteSettings } from './athena/settings';
import { defaultSnapshotClients, type SnapshotClients } from './clients';
import { ebsStats } from './ebs-views';
import { parseSnapshotId } from './ids';
import { readInventoryConfiguration } from './inventory/configuration';
import { snapshotStatsSpec } from './snapshot-stats.meta';

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/**
 * `snapshot_stats` with injectable clients.
 *
 * API calls: EBS: 1 DescribeSnapshots for the snapshot, 1+ for its volume's
 * earlier snapshots, one ListSnapshotBlocks and one ListChangedBlocks per
 * 10,000 blocks. S3: 1 GetBucketInventoryConfiguration, 1+ ListObjectsV2 for
 * the report folders, 2 manifest GetObjects, and for each data file of both
 * reports one GetObject (Parquet: one more for its footer). On the Athena route
 * (athena/route.ts), instead of the data files: one query to create each
 * report layout's table (once per container), one query, its polls and result
 * pages, and one PutObject of the answer into the run's workspace.
 *
 * @param answers - where the Athena route's answers go, given the call's vended run-data session
 *   (`ctx.runData`). @default the run workspace the environment names, written with that session
 */
export function createSnapshotStatsTool(
  clients: SnapshotClients = defaultSnapshotClients,
  answers: (runData?: AwsCredentialIdentityProvider) => AnswerWriter = (runData) =>
    answerWriterFromEnvironment(process.env, runData),
) {
  return defineTool(snapshotStatsSpec, async (ctx, args) => {
    const ref = parseSnapshotId(args.id);
    const access = await ctx.aws();
    if (ref.kind === 'ebs') {
      const { value, truncated } = await inExplainedRegion(
        access,
        ref.region,
        { tool: ctx.tool, service: 'ec2' },
        () => ebsStats(clients.ec2(access, ref.region), clients.ebs(access, ref.region), ref, ctx.deadline),
      );
      return {
        value,
        truncated,
        summary: `${value.id}: ${value.blocks} blocks (${gib(value.bytes)}), ${gib(value.new_bytes)} new since ${value.baseline?.id ?? 'nothing (first snapshot)'}`,
      };
    }
    const s3 = clients.s3(access, access.region);
    const configuration = await readInventoryConfiguration(s3, ref.bucket, ref.configurationId, ctx.deadline);
    const route = athenaRouteOf(
      snapshotStatsSpec.name,
      ctx,
      (settings) => clients.inventoryQueries(access, access.region, settings),
      () => answers(ctx.runData),
      athenaRouteSettings(),
    );
    const value = await routedInventoryStats(s3, configuration, ref.reportTime, ctx.deadline, route);
    return {
      value,
      summary:
        `${value.id}: ${value.files} objects (${gib(value.bytes)}), ${gib(value.new_bytes)} new or changed since ${value.baseline?.id ?? 'nothing (first report)'}` +
        (value.route
          ? ` (Athena: ${value.route.dataScannedBytes} bytes scanned, ≈ $${value.route.estimatedUsd})`
          : ''),
    };
  });
}

/** `snapshot_stats`. */
export const snapshotStatsTool = createSnapshotStatsTool();

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(snapshotStatsTool);
