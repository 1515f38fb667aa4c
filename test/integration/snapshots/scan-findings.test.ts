/**
 * scan_snapshots and inspect_finding over the generated inventory histories
 * on the local S3 server, with the findings kept by the S3 findings store in a
 * workspace bucket of the same server: which findings the encryption wave, the
 * mass deletion, the stopped reports and the public destination produce, that
 * they are written once per run, and that inspect_finding returns exactly what
 * was written.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import type { FindingsDocument, SnapshotFinding } from '../../../functions/tools/snapshots/findings/model';
import { S3FindingsStore } from '../../../functions/tools/snapshots/findings/s3-store';
import { createInspectFindingTool } from '../../../functions/tools/snapshots/inspect-finding';
import {
  createScanSnapshotsTool,
  type FindingsToolDeps,
  type scanView,
} from '../../../functions/tools/snapshots/scan-snapshots';
import {
  awsToolServices,
  EXAMPLE_AWS_SECRET,
  expectFailure,
  expectSuccess,
  runAwsTool,
} from '../../helpers/aws-tool';
import { toolInvocation } from '../../helpers/events';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import {
  buildInventoryWorld,
  DESTINATION,
  groundTruth,
  type InventoryWorld,
  PUBLIC_DESTINATION,
  WORLD_NOW,
} from '../../helpers/inventory-world';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';
import { localS3Clients } from '../../helpers/snapshot-tools';

jest.setTimeout(180_000);

/** What scan_snapshots returns. */
type ScanView = ReturnType<typeof scanView>;

const WORKSPACE = 'etp-workspace';
const SOURCES = [
  's3_inventory:photos/daily-csv',
  's3_inventory:records/daily-parquet',
  's3_inventory:stale/daily',
];
const server = new LocalS3Server();
let world: InventoryWorld;
let store: S3FindingsStore;
let scan: Tool;
let inspect: Tool;
let scanned: ToolResult;
let document: FindingsDocument;

const services = () => awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' });
const invocation = (tool: Tool, args: unknown, runId = 'run-2026-03-10') =>
  toolInvocation({
    tool: tool.name,
    args,
    scenario: 'snapshot_forensics',
    level: 'scan',
    runId,
    callId: 'scan/0',
  });
const runIn = (tool: Tool, args: unknown, runId?: string) =>
  runTool(tool, invocation(tool, args, runId), deadlineIn(170_000), services());
const findingsOf = (check: string, source?: string): SnapshotFinding[] =>
  document.findings.filter((f) => f.check === check && (source === undefined || f.source === source));

beforeAll(async () => {
  await server.start();
  world = buildInventoryWorld(server);
  server.createBucket(WORKSPACE);
  store = new S3FindingsStore(
    new S3Client({
      region: 'us-east-1',
      endpoint: server.url,
      forcePathStyle: true,
      credentials: FAKE_AWS_CREDENTIALS,
    }),
    { bucket: WORKSPACE },
  );
  const deps: FindingsToolDeps = {
    clients: localS3Clients(server),
    findingsStore: () => store,
    now: () => WORLD_NOW,
  };
  scan = createScanSnapshotsTool(deps) as Tool;
  inspect = createInspectFindingTool(deps) as Tool;
  scanned = await runIn(scan, { sources: SOURCES, since: '2026-03-10' });
  document = (await store.get({
    tenant: 'default',
    scenario: 'snapshot_forensics',
    runId: 'run-2026-03-10',
  })) as FindingsDocument;
});

afterAll(() => server.stop());

describe('scan_snapshots over the generated histories', () => {
  it("scans every source asked and writes the document to the run's workspace", () => {
    const result = expectSuccess<ScanView>(scanned);

    expect(result.value.reused).toBe(false);
    expect(server.keys(WORKSPACE)).toEqual([
      'runs/default/snapshot_forensics/run-2026-03-10/snapshots/findings.json',
    ]);
    expect(document.sources.map((s) => [s.source, s.ok, s.snapshotsExamined, s.snapshotsRead])).toEqual([
      ['s3_inventory:photos/daily-csv', true, 1, 9],
      ['s3_inventory:records/daily-parquet', true, 1, 9],
      ['s3_inventory:stale/daily', true, 0, 0],
    ]);
    expect(result.value.findings.total).toBe(document.findings.length);
    expect(result.value.findings.top.map((f) => f.id)).toEqual(document.findings.map((f) => f.id));
  });

  it('finds the encryption wave: change spike, known ransomware extension, ransom notes, and the renamed originals gone', () => {
    const photos = 's3_inventory:photos/daily-csv';
    const truth = groundTruth(world.photos[8]?.objects ?? [], world.photos[9]?.objects ?? []);
    const share = (truth.added.bytes + truth.changed.bytes) / truth.total.bytes;

    expect(findingsOf('change_spike', photos)).toEqual([
      expect.objectContaining({
        severity: share >= 0.5 ? 'critical' : 'high',
        snapshot: `${photos}/2026-03-10T01-00Z`,
        evidence: expect.objectContaining({
          newBytes: truth.added.bytes + truth.changed.bytes,
          newOrChangedObjects: truth.added.count + truth.changed.count,
        }),
      }),
    ]);
    expect(findingsOf('ransomware_extension', photos)).toEqual([
      expect.objectContaining({
        severity: 'critical',
        evidence: expect.objectContaining({ extension: 'locked', files: 2500, previousFiles: 0 }),
      }),
    ]);
    expect(findingsOf('ransom_note_names', photos)).toEqual([
      expect.objectContaining({
        severity: 'critical',
        evidence: expect.objectContaining({ files: 20, folders: 20 }),
      }),
    ]);
    expect(findingsOf('deletion_spike', photos)).toEqual([
      expect.objectContaining({ evidence: expect.objectContaining({ removedObjects: truth.removed.count }) }),
    ]);
    expect(findingsOf('extension_spike', photos)).toEqual([]);
  });

  it('finds the mass deletion, and nothing else, in the Parquet history', () => {
    const records = 's3_inventory:records/daily-parquet';
    const truth = groundTruth(world.records[8]?.objects ?? [], world.records[9]?.objects ?? []);

    expect(
      document.findings.filter((f) => f.source === records).map((f) => `${f.check}:${f.severity}`),
    ).toEqual(['deletion_spike:critical']);
    expect(findingsOf('deletion_spike', records)[0]?.evidence).toMatchObject({
      removedObjects: truth.removed.count,
      previousObjects: world.records[8]?.objects.length,
      sampleKeys: expect.arrayContaining([expect.stringMatching(/^projects\//)]),
    });
  });

  it('finds the stopped reports and the public destination', () => {
    const stale = 's3_inventory:stale/daily';

    expect(
      document.findings
        .filter((f) => f.source === stale)
        .map((f) => `${f.check}:${f.severity}`)
        .sort(),
    ).toEqual(['public_snapshot:critical', 'snapshots_stopped:high']);
    expect(findingsOf('snapshots_stopped', stale)[0]?.evidence).toMatchObject({
      newestSnapshot: `${stale}/2026-03-05T01-00Z`,
      ageHours: 125,
      expectedIntervalHours: 24,
    });
    expect(findingsOf('public_snapshot', stale)[0]?.evidence).toEqual({
      destinationBucket: PUBLIC_DESTINATION,
    });
  });

  it('orders findings most severe first and gives each a stable id and steps to verify by hand', () => {
    const ranks = document.findings.map((f) =>
      ['critical', 'high', 'medium', 'low', 'info'].indexOf(f.severity),
    );

    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(document.findings.map((f) => f.id)).size).toBe(document.findings.length);
    for (const finding of document.findings) {
      expect(finding.id).toMatch(new RegExp(`^${finding.check}:[0-9a-f]{16}$`));
      expect(finding.verify.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('computes the same findings, ids included, in another run', async () => {
    await runIn(scan, { sources: SOURCES, since: '2026-03-10' }, 'run-2026-03-10-again');
    const again = await store.get({
      tenant: 'default',
      scenario: 'snapshot_forensics',
      runId: 'run-2026-03-10-again',
    });

    expect(again?.findings).toEqual(document.findings);
  });
});

describe('findings stay fixed for the run', () => {
  it('returns the written findings to a second scan without reading any inventory', async () => {
    server.clearRequests();

    const second = expectSuccess<ScanView>(await runIn(scan, { sources: ['s3_inventory:photos/broken'] }));

    expect(second.value.reused).toBe(true);
    expect(second.value.findings.total).toBe(document.findings.length);
    expect(server.requests.map((r) => `${r.operation} ${r.bucket}`)).toEqual([`GetObject ${WORKSPACE}`]);
  });

  it('inspect_finding returns each finding exactly as written', async () => {
    for (const finding of document.findings) {
      const inspected = expectSuccess(await runIn(inspect, { id: finding.id }));
      expect(inspected.value).toEqual(finding);
    }
  });

  it("inspect_finding in another run does not see this run's findings", async () => {
    const failure = expectFailure(await runIn(inspect, { id: document.findings[0]?.id }, 'run-other'));

    expect(failure.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('run-other') });
  });

  it('the S3 store keeps the first document when two writes race (If-None-Match)', async () => {
    const run = { tenant: 'default', scenario: 'snapshot_forensics', runId: 'run-race' };
    const first = { ...document, run, callId: 'scan/0' };
    const second = { ...document, run, callId: 'scan/1', findings: [] };

    const [a, b] = await Promise.all([store.put(run, first), store.put(run, second)]);

    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(a.document).toEqual(b.document);
    expect(
      server.requests.filter((r) => r.operation === 'PutObject' && r.key?.includes('run-race')),
    ).toHaveLength(2);
  });
});

describe('scan failures', () => {
  it('records a source that cannot be read and scans the others', async () => {
    server.deny({ bucket: DESTINATION, keyPrefix: 'records/' });
    try {
      const result = expectSuccess<ScanView>(
        await runIn(
          scan,
          {
            sources: ['s3_inventory:records/daily-parquet', 's3_inventory:stale/daily'],
            since: '2026-03-10',
          },
          'run-denied',
        ),
      );

      expect(result.value.sources).toEqual([
        expect.objectContaining({
          source: 's3_inventory:records/daily-parquet',
          ok: false,
          error: expect.objectContaining({ code: 'access_denied' }),
        }),
        expect.objectContaining({ source: 's3_inventory:stale/daily', ok: true, findings: 2 }),
      ]);
    } finally {
      server.clearDenials();
    }
  });

  it("read only inventory manifests and data files, and the run's findings document", () => {
    const gets = server.requests.filter((r) => r.operation === 'GetObject' || r.operation === 'PutObject');
    const allowed = (bucket: string | null, key: string | null) =>
      (bucket === WORKSPACE &&
        /^runs\/default\/snapshot_forensics\/[\w-]+\/snapshots\/findings\.json$/.test(key ?? '')) ||
      ([DESTINATION, PUBLIC_DESTINATION].includes(bucket ?? '') &&
        /(\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}Z\/manifest\.json|\/data\/[0-9a-f-]{36}\.(csv\.gz|parquet))$/.test(
          key ?? '',
        ));

    expect(gets.filter((r) => !allowed(r.bucket, r.key))).toEqual([]);
  });

  it('can run as an ordinary call too (runAwsTool): tenant default, run of the events helper', async () => {
    const result = await runAwsTool(
      scan,
      { sources: ['s3_inventory:stale/daily'] },
      { services: services() },
    );

    expect(expectSuccess<ScanView>(result).value.findings.byCheck).toEqual({
      public_snapshot: 1,
      snapshots_stopped: 1,
    });
  });
});
