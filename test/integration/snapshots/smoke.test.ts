import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { createDiffSnapshotsTool } from '../../../functions/tools/snapshots/diff-snapshots';
import { createSnapshotStatsTool } from '../../../functions/tools/snapshots/snapshot-stats';
import { awsToolServices } from '../../helpers/aws-tool';
import { toolInvocation } from '../../helpers/events';
import { generateHistory, writeReport } from '../../helpers/inventory-fixtures';
import { LocalS3Server } from '../../helpers/s3-server';
import { localS3Clients } from '../../helpers/snapshot-tools';

const server = new LocalS3Server();
beforeAll(async () => {
  await server.start();
  server.createBucket('photos');
  server.createBucket('inventory-dest');
  for (const [id, format] of [
    ['daily-csv', 'CSV'],
    ['daily-parquet', 'Parquet'],
  ] as const) {
    server.putInventoryConfiguration('photos', {
      id,
      destinationBucket: 'inventory-dest',
      destinationPrefix: 'inv',
      format,
    });
    const days = generateHistory({
      days: 3,
      firstDay: '2026-03-01',
      initialObjects: 3000,
      dailyAdds: 30,
      dailyChanges: 20,
      dailyDeletes: 10,
      encryptionWave: { day: 2, files: 500, extension: 'locked' },
    });
    for (const day of days)
      writeReport(server, {
        sourceBucket: 'photos',
        configurationId: id,
        destinationBucket: 'inventory-dest',
        destinationPrefix: 'inv',
        reportTime: day.reportTime,
        format,
        objects: day.objects,
        objectsPerFile: 1200,
      });
  }
});
afterAll(() => server.stop());

test.each(['daily-csv', 'daily-parquet'])('stats %s', async (config) => {
  const tool = createSnapshotStatsTool(localS3Clients(server));
  const result = await runTool(
    tool,
    toolInvocation({ tool: tool.name, args: { id: `s3_inventory:photos/${config}/2026-03-03T01-00Z` } }),
    deadlineIn(60_000),
    awsToolServices({
      access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'us-east-1',
    }),
  );
  console.log(JSON.stringify(result, null, 1).slice(0, 3000));
  const diff = createDiffSnapshotsTool(localS3Clients(server));
  const r2 = await runTool(
    diff,
    toolInvocation({
      tool: diff.name,
      args: {
        a: `s3_inventory:photos/${config}/2026-03-02T01-00Z`,
        b: `s3_inventory:photos/${config}/2026-03-03T01-00Z`,
      },
    }),
    deadlineIn(60_000),
    awsToolServices({
      access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'us-east-1',
    }),
  );
  console.log(JSON.stringify(r2, null, 1).slice(0, 4000));
  expect(result.ok).toBe(true);
});
