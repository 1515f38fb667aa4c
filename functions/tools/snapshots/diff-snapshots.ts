import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { inExplainedRegion } from '../../runtime/aws/enabled-regions';
import { InvalidArgsError } from '../../runtime/errors';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { type AnswerWriter, answerWriterFromEnvironment } from './athena/answers';
import { athenaRouteOf, routedInventoryDiff } from './athena/route';
import { athenaRouteSettings } from './athena/settings';
import { defaultSnapshotClients, type SnapshotClients } from './clients';
import { diffSnapshotsSpec } from './diff-snapshots.meta';
import { ebsDiff } from './ebs-views';
import { formatSnapshotId, inventorySourceOf, parseSnapshotId, type SnapshotRef } from './ids';
import { readInventoryConfiguration } from './inventory/configuration';

/**
 * Checks that two ids can be compared, before any remote call.
 *
 * @throws InvalidArgsError for the same snapshot twice, different kinds, EBS
 *   regions, or inventory configurations.
 */
export function comparablePair(a: string, b: string): [SnapshotRef, SnapshotRef] {
  const first = parseSnapshotId(a);
  const second = parseSnapshotId(b);
  // Compared in canonical form: `daily` and `d%61ily` name the same configuration.
  if (formatSnapshotId(first) === formatSnapshotId(second))
    throw new InvalidArgsError(
      `a and b are the same snapshot (${formatSnapshotId(first)}); pass two different snapshots of one source`,
    );
  if (first.kind !== second.kind) {
    throw new InvalidArgsError(
      `a is ${first.kind === 'ebs' ? 'an EBS snapshot' : 'an S3 Inventory report'} and b ${second.kind === 'ebs' ? 'an EBS snapshot' : 'an S3 Inventory report'}: ` +
        'diff_snapshots compares two snapshots of the same kind and source',
    );
  }
  if (first.kind === 'ebs' && second.kind === 'ebs' && first.region !== second.region) {
    throw new InvalidArgsError(
      `a is in ${first.region} and b in ${second.region}: diff_snapshots compares snapshots of one volume, in one region`,
    );
  }
  if (first.kind === 's3_inventory' && second.kind === 's3_inventory') {
    const [sourceA, sourceB] = [inventorySourceOf(first), inventorySourceOf(second)];
    if (sourceA !== sourceB) {
      throw new InvalidArgsError(
        `a is a report of ${sourceA} and b of ${sourceB}: diff_snapshots compares two reports of the same inventory configuration`,
      );
    }
  }
  return [first, second];
}

/**
 * `diff_snapshots` with injectable clients.
 *
 * API calls: EBS: 2 DescribeSnapshots, one ListChangedBlocks per 10,000
 * differing blocks. S3: 1 GetBucketInventoryConfiguration, 2 manifest
 * GetObjects, one GetObject per data file of both reports (Parquet: one more
 * each for its footer); on the Athena route, as `snapshot_stats`'.
 *
 * @param answers - where the Athena route's answers go, given the call's vended run-data session
 *   (`ctx.runData`). @default the run workspace the environment names, written with that session
 */
export function createDiffSnapshotsTool(
  clients: SnapshotClients = defaultSnapshotClients,
  answers: (runData?: AwsCredentialIdentityProvider) => AnswerWriter = (runData) =>
    answerWriterFromEnvironment(process.env, runData),
) {
  return defineTool(diffSnapshotsSpec, async (ctx, args) => {
    const [a, b] = comparablePair(args.a, args.b);
    const access = await ctx.aws();
    if (a.kind === 'ebs' && b.kind === 'ebs') {
      const { value, truncated } = await inExplainedRegion(
        access,
        a.region,
        { tool: ctx.tool, service: 'ec2' },
        () => ebsDiff(clients.ec2(access, a.region), clients.ebs(access, a.region), a, b, ctx.deadline),
      );
      return {
        value,
        truncated,
        summary: `${value.a} → ${value.b}: ${value.added.blocks} blocks added, ${value.changed.blocks} changed, ${value.removed.blocks} removed`,
      };
    }
    if (a.kind !== 's3_inventory' || b.kind !== 's3_inventory')
      throw new InvalidArgsError('unreachable: kinds checked');
    const s3 = clients.s3(access, access.region);
    const configuration = await readInventoryConfiguration(s3, a.bucket, a.configurationId, ctx.deadline);
    const route = athenaRouteOf(
      diffSnapshotsSpec.name,
      ctx,
      (settings) => clients.inventoryQueries(access, access.region, settings),
      () => answers(ctx.runData),
      athenaRouteSettings(),
    );
    const value = await routedInventoryDiff(
      s3,
      configuration,
      a.reportTime,
      b.reportTime,
      ctx.deadline,
      route,
    );
    return {
      value,
      summary:
        `${value.a} → ${value.b}: ${value.added.count} added, ${value.changed.count} changed, ${value.removed.count} removed` +
        (value.deleteMarkersAdded.count > 0 ? `, ${value.deleteMarkersAdded.count} new delete markers` : '') +
        (value.ransomNoteNames.count > 0 ? `, ${value.ransomNoteNames.count} ransom-note-like names` : ''),
    };
  });
}

/** `diff_snapshots`. */
export const diffSnapshotsTool = createDiffSnapshotsTool();

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(diffSnapshotsTool);
