/**
 * The S3 world of the snapshot tools' integration tests, on the local S3
 * server: source buckets with S3 Inventory configurations and ten days of
 * generated reports (2026-03-01 … 2026-03-10, 01:00 UTC) in destination buckets.
 *
 * | source / configuration | format | what happens |
 * |---|---|---|
 * | photos / daily-csv | CSV, prefix `inv` | ordinary churn; on 03-10 an encryption wave: 2,500 files rewritten as `<key>.locked`, a ransom note per folder |
 * | records / daily-parquet | Parquet | ordinary churn; on 03-10 a mass deletion of 1,500 files |
 * | photos / broken | CSV | 03-01 fine; 03-02's manifest lists a deleted data file; 03-03's data file fails its MD5 |
 * | legacy / weekly-orc | ORC | one report |
 * | stale / daily | CSV, in a public destination | reports stop after 03-05 |
 * | empty-bucket | — | no configuration |
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { InventoryObject } from './inventory-fixtures';
import { generateHistory, type HistoryDay, reportBase, writeReport } from './inventory-fixtures';
import type { LocalS3Server } from './inventory-s3-server';

/** The tests' clock: the morning after the last report. */
export const WORLD_NOW = Date.UTC(2026, 2, 10, 6);
export const DESTINATION = 'inventory-dest';
export const PUBLIC_DESTINATION = 'public-inventory-dest';

/** What the world holds, for the tests' expectations. */
export interface InventoryWorld {
  readonly photos: HistoryDay[];
  readonly records: HistoryDay[];
  readonly brokenDeletedKey: string;
}

const CHURN = {
  firstDay: '2026-03-01',
  initialObjects: 3000,
  dailyAdds: 30,
  dailyChanges: 20,
  dailyDeletes: 10,
};

/** Builds the world on a started server. */
export function buildInventoryWorld(server: LocalS3Server): InventoryWorld {
  for (const bucket of [
    'photos',
    'records',
    'legacy',
    'stale',
    'empty-bucket',
    DESTINATION,
    PUBLIC_DESTINATION,
  ]) {
    server.createBucket(bucket);
  }
  server.setPublic(PUBLIC_DESTINATION, true);

  const photos = generateHistory({
    ...CHURN,
    days: 10,
    encryptionWave: { day: 9, files: 2500, extension: 'locked' },
    seed: 11,
  });
  const records = generateHistory({ ...CHURN, days: 10, massDeletion: { day: 9, files: 1500 }, seed: 12 });
  const write = (
    source: string,
    configurationId: string,
    format: 'CSV' | 'Parquet' | 'ORC',
    days: HistoryDay[],
    prefix = '',
    destination = DESTINATION,
  ) => {
    server.putInventoryConfiguration(source, {
      id: configurationId,
      destinationBucket: destination,
      ...(prefix ? { destinationPrefix: prefix } : {}),
      format,
    });
    for (const day of days) {
      writeReport(server, {
        sourceBucket: source,
        configurationId,
        destinationBucket: destination,
        destinationPrefix: prefix,
        reportTime: day.reportTime,
        format,
        objects: day.objects,
        objectsPerFile: 1300,
        rowGroupSize: 500,
      });
    }
  };
  write('photos', 'daily-csv', 'CSV', photos, 'inv');
  write('records', 'daily-parquet', 'Parquet', records);
  write('legacy', 'weekly-orc', 'ORC', records.slice(0, 1));
  write(
    'stale',
    'daily',
    'CSV',
    generateHistory({ ...CHURN, initialObjects: 200, days: 5, seed: 13 }),
    '',
    PUBLIC_DESTINATION,
  );

  const broken = generateHistory({ ...CHURN, initialObjects: 300, days: 3, seed: 14 });
  write('photos', 'broken', 'CSV', broken);
  const base = reportBase({ sourceBucket: 'photos', configurationId: 'broken' });
  // 03-02: its (single) data file is gone. 03-03: its data file is altered after the manifest was written.
  const second = JSON.parse(
    server.objectBytes(DESTINATION, `${base}2026-03-02T01-00Z/manifest.json`)?.toString() ?? '{}',
  );
  const brokenDeletedKey = second.files[0].key as string;
  server.deleteObject(DESTINATION, brokenDeletedKey);
  const third = JSON.parse(
    server.objectBytes(DESTINATION, `${base}2026-03-03T01-00Z/manifest.json`)?.toString() ?? '{}',
  );
  // A valid gzip file, one row's size changed: only the MD5 check can tell.
  const rows = gunzipSync(server.objectBytes(DESTINATION, third.files[0].key) as Buffer)
    .toString()
    .split('\n');
  rows[0] = (rows[0] ?? '').replace(/","(\d+)","/, (_m, size: string) => `","${Number(size) + 1}","`);
  server.putObject(DESTINATION, third.files[0].key, gzipSync(Buffer.from(rows.join('\n'))));
  return { photos, records, brokenDeletedKey };
}

/** What changed from one generated day to another, computed directly from the objects: the tests' ground truth. */
export function groundTruth(older: readonly InventoryObject[], newer: readonly InventoryObject[]) {
  const before = new Map(older.map((o) => [o.key, o]));
  const after = new Map(newer.map((o) => [o.key, o]));
  const added = newer.filter((o) => !before.has(o.key));
  const removed = older.filter((o) => !after.has(o.key));
  const changed = newer.filter((o) => {
    const old = before.get(o.key);
    return (
      old !== undefined &&
      (old.size !== o.size || old.lastModifiedMs !== o.lastModifiedMs || old.eTag !== o.eTag)
    );
  });
  const bytes = (list: readonly InventoryObject[]) => list.reduce((sum, o) => sum + o.size, 0);
  return {
    added: { count: added.length, bytes: bytes(added) },
    removed: { count: removed.length, bytes: bytes(removed) },
    changed: { count: changed.length, bytes: bytes(changed) },
    total: { count: newer.length, bytes: bytes(newer) },
    addedKeys: new Set(added.map((o) => o.key)),
  };
}
