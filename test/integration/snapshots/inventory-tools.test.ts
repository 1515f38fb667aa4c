/**
 * list_snapshots, snapshot_stats and diff_snapshots over S3 Inventory reports
 * served by the local S3 server (test/helpers/s3-server.ts): every figure is
 * checked against the generated history itself, and every error path the
 * issue names is driven through real S3 responses.
 */
import { DescribeSnapshotsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import { createDiffSnapshotsTool } from '../../../functions/tools/snapshots/diff-snapshots';
import { createListSnapshotsTool } from '../../../functions/tools/snapshots/list-snapshots';
import type { InventoryDiff } from '../../../functions/tools/snapshots/s3-inventory';
import { createSnapshotStatsTool } from '../../../functions/tools/snapshots/snapshot-stats';
import {
  awsToolServices,
  EXAMPLE_AWS_SECRET,
  expectFailure,
  expectSuccess,
  runAwsTool,
} from '../../helpers/aws-tool';
import { DOCUMENTED_SNAPSHOT } from '../../helpers/ebs-fixtures';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import {
  buildInventoryWorld,
  DESTINATION,
  groundTruth,
  type InventoryWorld,
  PUBLIC_DESTINATION,
} from '../../helpers/inventory-world';
import { localS3Clients } from '../../helpers/snapshot-tools';

jest.setTimeout(120_000);

const ec2 = mockClient(EC2Client);
const server = new LocalS3Server();
let world: InventoryWorld;
let tools: { list: Tool; stats: Tool; diff: Tool };
const services = () => awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' });
const run = (tool: Tool, args: unknown): Promise<ToolResult> =>
  runAwsTool(tool, args, { services: services() });
const report = (source: string, day: string) => `s3_inventory:${source}/${day}T01-00Z`;

beforeAll(async () => {
  await server.start();
  world = buildInventoryWorld(server);
  const clients = localS3Clients(server);
  tools = {
    list: createListSnapshotsTool(clients) as Tool,
    stats: createSnapshotStatsTool(clients) as Tool,
    diff: createDiffSnapshotsTool(clients) as Tool,
  };
});

afterAll(() => server.stop());

beforeEach(() => {
  ec2.reset();
  ec2.on(DescribeSnapshotsCommand).resolves({ Snapshots: [] });
  server.clearDenials();
});

describe('list_snapshots over inventories', () => {
  it("lists one configuration's reports newest first, with their manifests' figures", async () => {
    const result = expectSuccess<{ snapshots: Record<string, unknown>[]; matched: number }>(
      await run(tools.list, { source: 's3_inventory:photos/daily-csv', since: '2026-03-08', limit: 2 }),
    );

    expect(result.value.matched).toBe(3);
    expect(result.value.snapshots.map((s) => s.id)).toEqual([
      report('photos/daily-csv', '2026-03-10'),
      report('photos/daily-csv', '2026-03-09'),
    ]);
    expect(result.value.snapshots[0]).toMatchObject({
      kind: 's3_inventory',
      source: 's3_inventory:photos/daily-csv',
      time: '2026-03-10T01:00:00.000Z',
      state: 'available',
      encrypted: true,
      public: null,
      sizeBytes: expect.any(Number),
      details: {
        bucket: 'photos',
        configurationId: 'daily-csv',
        format: 'CSV',
        dataFiles: 3,
        createdAt: '2026-03-10T01:00:00.000Z',
      },
    });
    expect(ec2.calls()).toEqual([]);
  });

  it('lists every configuration of every bucket beside the EBS snapshots, and says which sources failed', async () => {
    ec2
      .on(DescribeSnapshotsCommand)
      .resolves({ Snapshots: [{ ...DOCUMENTED_SNAPSHOT, StartTime: new Date('2026-03-11T00:00:00Z') }] });
    server.deny({ bucket: 'legacy', operation: 'ListBucketInventoryConfigurations' });

    const result = expectSuccess<{
      snapshots: { id: string; kind: string }[];
      matched: number;
      errors: { where: string; error: { code: string } }[];
    }>(await run(tools.list, { regions: ['us-east-1'], limit: 500 }));

    const sources = new Set(result.value.snapshots.map((s) => s.id.split('/').slice(0, 2).join('/')));
    expect(result.value.snapshots[0]).toMatchObject({
      id: 'ebs:us-east-1:snap-01234567890abcdef',
      kind: 'ebs',
    });
    expect(sources).toEqual(
      new Set([
        'ebs:us-east-1:snap-01234567890abcdef',
        's3_inventory:photos/daily-csv',
        's3_inventory:photos/broken',
        's3_inventory:records/daily-parquet',
        's3_inventory:stale/daily',
      ]),
    );
    expect(result.value.matched).toBe(1 + 10 + 3 + 10 + 5);
    expect(result.value.errors).toEqual([
      { where: 's3 bucket legacy', error: expect.objectContaining({ code: 'access_denied' }) },
    ]);
  });

  it('shows reports whose manifest is missing or unreadable in their state', async () => {
    const secondManifest = server.objectBytes(
      DESTINATION,
      'records/daily-parquet/2026-03-02T01-00Z/manifest.json',
    ) as Buffer;
    const key = 'records/daily-parquet/2026-03-01T01-00Z/manifest.json';
    const manifest = server.objectBytes(DESTINATION, key) as Buffer;
    server.deleteObject(DESTINATION, key);
    server.putObject(
      DESTINATION,
      'records/daily-parquet/2026-03-02T01-00Z/manifest.json',
      Buffer.from('{"not": "a manifest"}'),
    );
    try {
      const result = expectSuccess<{
        snapshots: { id: string; state: string; details: { error?: { code: string } } }[];
      }>(await run(tools.list, { source: 's3_inventory:records/daily-parquet', limit: 500 }));
      expect(result.value.snapshots.slice(-2)).toEqual([
        expect.objectContaining({
          id: report('records/daily-parquet', '2026-03-02'),
          state: 'unreadable',
          details: expect.objectContaining({ error: expect.objectContaining({ code: 'upstream_error' }) }),
        }),
        expect.objectContaining({
          id: report('records/daily-parquet', '2026-03-01'),
          state: 'missing_manifest',
        }),
      ]);
    } finally {
      server.putObject(DESTINATION, key, manifest);
      server.putObject(DESTINATION, 'records/daily-parquet/2026-03-02T01-00Z/manifest.json', secondManifest);
    }
  });
});

describe('snapshot_stats of an inventory report', () => {
  it.each([
    ['photos/daily-csv', 'photos'],
    ['records/daily-parquet', 'records'],
  ] as const)(
    'counts %s objects, bytes and what is new since the previous report, as the history says',
    async (source, history) => {
      const days = world[history];
      const truth = groundTruth(days[8]?.objects ?? [], days[9]?.objects ?? []);

      const result = expectSuccess<Record<string, unknown>>(
        await run(tools.stats, { id: report(source, '2026-03-10') }),
      );

      expect(result.value).toMatchObject({
        id: report(source, '2026-03-10'),
        files: truth.total.count,
        bytes: truth.total.bytes,
        new_bytes: truth.added.bytes + truth.changed.bytes,
        new_files: truth.added.count,
        changed_files: truth.changed.count,
        removed_files: truth.removed.count,
        delete_markers: 0,
        baseline: { id: report(source, '2026-03-09'), files: days[8]?.objects.length },
        comparedOn: ['size', 'last_modified', 'e_tag'],
      });
    },
  );

  it('shows the encryption wave in the file type histogram', async () => {
    const result = expectSuccess<{ file_type_histogram: { extension: string; files: number }[] }>(
      await run(tools.stats, { id: report('photos/daily-csv', '2026-03-10') }),
    );

    expect(result.value.file_type_histogram[0]).toEqual({
      extension: 'locked',
      files: 2500,
      bytes: expect.any(Number),
    });
    expect(result.value.file_type_histogram.map((h) => h.extension)).toEqual(
      expect.arrayContaining(['pdf', 'jpg', 'docx', 'xlsx', 'txt', 'csv', 'locked']),
    );
  });

  it("counts every object as new in a configuration's first report", async () => {
    const first = world.photos[0]?.objects ?? [];

    const result = expectSuccess<Record<string, unknown>>(
      await run(tools.stats, { id: report('photos/daily-csv', '2026-03-01') }),
    );

    expect(result.value).toMatchObject({
      files: first.length,
      new_bytes: result.value.bytes,
      baseline: null,
      removed_files: null,
    });
    expect(result.value.note).toContain('every object counts as new');
  });
});

describe('diff_snapshots of two inventory reports', () => {
  it('counts added, removed and changed objects as the history says, with bounded samples and ransom-note names', async () => {
    const truth = groundTruth(world.photos[8]?.objects ?? [], world.photos[9]?.objects ?? []);

    const result = expectSuccess<InventoryDiff>(
      await run(tools.diff, {
        a: report('photos/daily-csv', '2026-03-09'),
        b: report('photos/daily-csv', '2026-03-10'),
      }),
    );

    expect(result.value).toMatchObject({
      kind: 's3_inventory',
      identity: 'key',
      added: { count: truth.added.count, bytes: truth.added.bytes },
      removed: { count: truth.removed.count, bytes: truth.removed.bytes },
      changed: { count: truth.changed.count, bytes: truth.changed.bytes },
      deleteMarkersAdded: { count: 0, samples: [] },
      ransomNoteNames: { count: 20, folders: 20 },
    });
    expect(result.value.added.byExtension[0]).toMatchObject({ extension: 'locked', files: 2500 });
    expect(result.value.added.samples).toHaveLength(10);
    expect(result.value.added.samples.every((s) => truth.addedKeys.has(s.key))).toBe(true);
    expect(result.value.ransomNoteNames.samples[0]?.key).toMatch(
      /^projects\/team-\d+\/docs\/HOW_TO_DECRYPT_FILES\.txt$/,
    );
  });

  it('runs backwards too: what b lacks is removed', async () => {
    const truth = groundTruth(world.records[9]?.objects ?? [], world.records[8]?.objects ?? []);

    const result = expectSuccess<InventoryDiff>(
      await run(tools.diff, {
        a: report('records/daily-parquet', '2026-03-10'),
        b: report('records/daily-parquet', '2026-03-09'),
      }),
    );

    expect(result.value.added.count).toBe(truth.added.count);
    expect(result.value.removed.count).toBe(truth.removed.count);
  });
});

describe('inventory error paths', () => {
  it("names the bucket's configurations when the one asked does not exist", async () => {
    const failure = expectFailure(await run(tools.stats, { id: report('photos/nightly', '2026-03-10') }));

    expect(failure.error).toMatchObject({
      code: 'not_found',
      service: 's3',
      message:
        'Bucket photos has no S3 Inventory configuration "nightly"; its configurations: broken, daily-csv',
    });
  });

  it('says a bucket has no inventory configuration at all', async () => {
    const failure = expectFailure(await run(tools.list, { source: 's3_inventory:empty-bucket/daily' }));

    expect(failure.error.message).toContain('the bucket has no inventory configuration at all');
  });

  it('fails clearly when a manifest lists a data file that was deleted', async () => {
    const failure = expectFailure(await run(tools.stats, { id: report('photos/broken', '2026-03-02') }));

    expect(failure.error).toMatchObject({
      code: 'not_found',
      details: { reason: 'missing_data_file', key: world.brokenDeletedKey },
    });
    expect(failure.error.message).toContain('lifecycle rule');
  });

  it("fails clearly when a data file does not match its manifest's checksum", async () => {
    const failure = expectFailure(
      await run(tools.diff, {
        a: report('photos/broken', '2026-03-01'),
        b: report('photos/broken', '2026-03-03'),
      }),
    );

    expect(failure.error).toMatchObject({ code: 'upstream_error', details: { reason: 'checksum_mismatch' } });
  });

  it('reports access denied on the destination as access_denied', async () => {
    server.deny({ bucket: DESTINATION, keyPrefix: 'inv/photos/daily-csv/data/' });

    const failure = expectFailure(await run(tools.stats, { id: report('photos/daily-csv', '2026-03-10') }));

    expect(failure.error).toMatchObject({
      code: 'access_denied',
      service: 's3',
      details: { awsError: 'AccessDenied', httpStatusCode: 403 },
    });
  });

  it('reports access denied on the inventory configuration as access_denied', async () => {
    server.deny({ bucket: 'records', operation: 'GetBucketInventoryConfiguration' });

    const failure = expectFailure(
      await run(tools.stats, { id: report('records/daily-parquet', '2026-03-10') }),
    );

    expect(failure.error).toMatchObject({ code: 'access_denied', service: 's3' });
  });

  it('refuses an ORC report by name on the single function (the Athena route off; docs/snapshot-tools.md)', async () => {
    process.env.ETP_ATHENA_ROUTE = 'off';
    let failure: ReturnType<typeof expectFailure>;
    try {
      failure = expectFailure(await run(tools.stats, { id: report('legacy/weekly-orc', '2026-03-01') }));
    } finally {
      delete process.env.ETP_ATHENA_ROUTE;
    }

    expect(failure.error).toMatchObject({
      code: 'upstream_error',
      retryable: false,
      details: { reason: 'unsupported_format', format: 'ORC', supported: ['CSV', 'Parquet'] },
    });
    expect(failure.error.message).toContain('ORC format');
  });

  it('says when a report has no manifest', async () => {
    const failure = expectFailure(await run(tools.stats, { id: report('photos/daily-csv', '2026-02-27') }));

    expect(failure.error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('has no manifest.json'),
    });
  });
});

describe('the no-content rail, at run time', () => {
  it('read only inventory manifests and data files, and nothing of the source buckets', () => {
    const gets = server.requests.filter((r) => r.operation === 'GetObject');
    const outside = gets.filter(
      (r) =>
        ![DESTINATION, PUBLIC_DESTINATION].includes(r.bucket ?? '') ||
        !/(\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}Z\/manifest\.json|\/data\/[0-9a-f-]{36}\.(csv\.gz|parquet))$/.test(
          r.key ?? '',
        ),
    );

    expect(gets.length).toBeGreaterThan(20);
    expect(outside).toEqual([]);
    expect(
      server.requests.filter(
        (r) =>
          ['photos', 'records', 'legacy', 'stale'].includes(r.bucket ?? '') && r.operation.includes('Object'),
      ),
    ).toEqual([]);
  });
});
