/**
 * The Athena route at 1 billion objects (issue 22, "Benchmark"): a simulated
 * 1,000,000,000-object report, the figures scaled from a generated sample.
 *
 * Two Parquet reports of `SNAPSHOT_ATHENA_SAMPLE` objects (default 200,000;
 * bench/snapshots.ts's generator: 2 % changed, 1 % removed, 1 % added) are
 * written to disk, and the route's own `snapshot_stats` query
 * (functions/tools/snapshots/athena/inventory-sql.ts) runs on DuckDB over them,
 * the local runner the tests use. Printed:
 *
 * - the answer checked against the generator (objects, added, changed, removed);
 * - DuckDB's wall time on the sample, and that time scaled linearly to 1 billion
 *   objects on this machine: a single-node bound, NOT Athena's wall time
 *   (Athena's distributed time is not measurable offline);
 * - bytes Athena would scan at 1 billion objects: both reports' data file bytes
 *   (from the manifests' sizes) scaled — an upper bound, Athena reads only the
 *   query's columns of a Parquet file — and the estimated cost at Athena's
 *   $5 per TB scanned (Athena pricing page; 1 TB = 10¹² bytes here);
 * - the route the tools choose for that report (`chooseRoute` on the scaled
 *   manifests' bytes, default settings): Athena;
 * - requests: the tool's Athena API calls (the table's DDL, then 1
 *   StartQueryExecution, the GetQueryExecution polls of athena-runner.ts's
 *   backoff over the function's 600 s at most, the GetQueryResults pages of the
 *   answer's rows), the answer's one PutObject into the run workspace, and the
 *   S3 GETs Athena makes, at least one per data file at 1 billion objects (files
 *   of 250,000 objects);
 * - `scan_snapshots` over a month of such daily reports: one query per step
 *   (MAX_EXAMINED examined + the default baseline), each scanning two reports:
 *   bytes, USD, its Athena requests, and one step's bytes against the
 *   workgroup's per-query cut-off (PASS/FAIL).
 *
 * Run: `npx tsx bench/snapshots-athena.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { POLL_FIRST_MS, POLL_MAX_MS } from '../functions/tools/snapshots/athena/athena-runner';
import { statsQuery } from '../functions/tools/snapshots/athena/inventory-sql';
import { foldFigureRows } from '../functions/tools/snapshots/athena/query-figures';
import { ATHENA_USD_PER_BYTE, chooseRoute } from '../functions/tools/snapshots/athena/route';
import { SCAN_QUERY_CONCURRENCY } from '../functions/tools/snapshots/athena/scan-route';
import { athenaRouteSettings } from '../functions/tools/snapshots/athena/settings';
import { DEFAULT_THRESHOLDS } from '../functions/tools/snapshots/findings/thresholds';
import { MAX_INDEX_OBJECTS } from '../functions/tools/snapshots/index/object-index';
import { schemaColumns } from '../functions/tools/snapshots/inventory/manifest';
import { HISTOGRAM_TOP } from '../functions/tools/snapshots/s3-inventory';
import { MAX_EXAMINED } from '../functions/tools/snapshots/scan/chain';
import { scanSnapshotsSpec } from '../functions/tools/snapshots/scan-snapshots.meta';
import { REPORT_READER_RUNTIME } from '../functions/tools/snapshots/snapshot-stats.meta';
import { ATHENA_BYTES_SCANNED_CUTOFF } from '../lib/customer-access-stack';
import { DuckInventoryTable, type LocalReport } from '../test/helpers/duckdb-inventory';
import { writeReportToDisk } from '../test/helpers/inventory-fixtures';
import { LocalS3Server } from '../test/helpers/inventory-s3-server';
import { type Figure, formatReport, type Section } from './report';
import { DESTINATION, newerObjectAt, objectAt, SOURCE, TIMES } from './snapshots';

/** The simulated report. */
const BILLION = 1_000_000_000;
/** Objects per generated data file (the fixture's default); the 1-billion report's files are counted at this size. */
const OBJECTS_PER_FILE = 250_000;
/** Athena pricing page: $5.00 per TB of data scanned. */
const USD_PER_TB = ATHENA_USD_PER_BYTE * 1e12;

/** GetQueryExecution polls of athena-runner.ts's backoff until `ms` has passed. */
function pollsWithin(ms: number): number {
  let polls = 0;
  for (let waited = 0, wait = POLL_FIRST_MS; waited < ms; wait = Math.min(POLL_MAX_MS, wait * 2)) {
    waited += wait;
    polls++;
  }
  return polls;
}

/** The section: figures at 1 billion objects from a sample of `sample` objects per report. */
export async function measureAthenaRoute(
  sample = Number(process.env.SNAPSHOT_ATHENA_SAMPLE ?? 200_000),
): Promise<Section> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-athena-bench-'));
  const server = new LocalS3Server();
  server.createBucket(DESTINATION);
  const newer = newerObjectAt(sample);
  try {
    const reports: LocalReport[] = [];
    for (const [reportTime, count, at] of [
      [TIMES[0], sample, objectAt],
      [TIMES[1], newer.count, newer.objectAt],
    ] as const) {
      const written = await writeReportToDisk(
        server,
        {
          sourceBucket: SOURCE,
          configurationId: 'athena',
          destinationBucket: DESTINATION,
          reportTime,
          format: 'Parquet',
          count,
          objectAt: at,
          objectsPerFile: OBJECTS_PER_FILE,
        },
        dir,
      );
      const m = written.manifest as {
        fileFormat: string;
        fileSchema: string;
        files: { key: string; size: number; MD5checksum: string }[];
      };
      const files = m.files.map((f) => ({ key: f.key, size: f.size, md5: f.MD5checksum }));
      reports.push({
        reportTime,
        manifest: {
          sourceBucket: SOURCE,
          destinationBucket: DESTINATION,
          createdAtMs: 0,
          fileFormat: m.fileFormat,
          columns: schemaColumns(m.fileFormat, m.fileSchema),
          files,
          reportBytes: files.reduce((sum, f) => sum + f.size, 0),
        },
      });
    }
    const [older, current] = reports as [LocalReport, LocalReport];
    const ref = { database: 'etp_inventory', table: 'bench_athena' };
    const table = await DuckInventoryTable.create(ref, reports, (key) => path.join(dir, path.basename(key)));
    const sql = statsQuery(
      { ...current, table: ref },
      { ...older, table: ref },
      {
        compareLastModified: true,
        compareETag: true,
        useVersionIds: false,
      },
    );
    const started = performance.now();
    const rows = await table.query(sql);
    const wallMs = performance.now() - started;
    table.close();
    const figures = foldFigureRows(rows, HISTOGRAM_TOP);
    const expected = {
      objects: newer.count,
      added: Math.floor(sample / 100),
      removed: Math.ceil((sample - 1) / 100),
      changed: Math.ceil(sample / 50),
    };
    const answered = {
      objects: figures.newer.objects,
      added: figures.added.count,
      removed: figures.removed.count,
      changed: figures.changed.count,
    };
    const scale = BILLION / sample;
    const scannedBytes = (older.manifest.reportBytes + current.manifest.reportBytes) * scale;
    const dataFiles = 2 * Math.ceil(BILLION / OBJECTS_PER_FILE);
    // The table's DDL (once per layout and container: 1 start, its polls within 10 s, 1 page), then the
    // query (1 start, its polls within the function's timeout, the result pages), then 1 PutObject of the answer.
    const resultPages = Math.max(1, Math.ceil(rows.length / 1000));
    const apiRequests =
      1 +
      pollsWithin(10_000) +
      1 +
      (1 + pollsWithin(REPORT_READER_RUNTIME.timeoutSeconds * 1000) + resultPages);
    const decision = chooseRoute(scannedBytes, athenaRouteSettings({}));
    // scan_snapshots: MAX_EXAMINED examined reports and the baseline before them (scan/chain.ts), each step a
    // query over two reports; every step's polls bounded by the function's timeout, the queries
    // SCAN_QUERY_CONCURRENCY at a time, so at most that many polls run in each interval.
    const scanSteps = MAX_EXAMINED + DEFAULT_THRESHOLDS.baselineSnapshots;
    const scanTimeoutMs = (scanSnapshotsSpec.runtime?.timeoutSeconds ?? 0) * 1000;
    // Each worker's polls over the timeout, plus each query's own short ramp (250 ms doubling to 4 s).
    let rampPolls = 0;
    for (let wait = POLL_FIRST_MS; wait < POLL_MAX_MS; wait *= 2) rampPolls++;
    const scanRequests =
      1 +
      pollsWithin(10_000) +
      1 +
      scanSteps * (1 + rampPolls + resultPages) +
      SCAN_QUERY_CONCURRENCY * pollsWithin(scanTimeoutMs);
    const list: Figure[] = [
      {
        name: `answer of the route's SQL on DuckDB, ${sample.toLocaleString('en-US')}×2 Parquet sample`,
        value: JSON.stringify(answered),
        target: JSON.stringify(expected),
        pass: JSON.stringify(answered) === JSON.stringify(expected),
      },
      { name: 'DuckDB wall time on the sample (one run)', value: `${wallMs.toFixed(0)} ms` },
      {
        name: 'DuckDB wall time scaled to 1,000,000,000×2 (linear, this machine; not Athena)',
        value: `${((wallMs * scale) / 1000).toFixed(0)} s`,
      },
      {
        name: 'objects past the single-function cap at 1,000,000,000',
        value: `${(BILLION / MAX_INDEX_OBJECTS).toFixed(0)}× MAX_INDEX_OBJECTS`,
      },
      {
        name: 'bytes Athena scans at 1,000,000,000×2 (upper bound: whole data files)',
        value: `${(scannedBytes / 1e9).toFixed(1)} GB`,
      },
      {
        name: 'estimated USD at $5 per TB scanned',
        value: `$${((scannedBytes / 1e12) * USD_PER_TB).toFixed(3)}`,
      },
      {
        name: 'route chosen for 1,000,000,000×2 from the manifests’ bytes (chooseRoute, default settings)',
        value: decision.route,
        target: 'athena',
        pass: decision.route === 'athena',
      },
      {
        name: 'result rows of the query (one GetQueryResults page holds 1,000)',
        value: String(rows.length),
        target: '≤ 1000',
        pass: rows.length <= 1000,
      },
      {
        name: 'Athena API requests of one call (DDL: start, polls ≤ 10 s, page; query: start, polls ≤ 600 s, pages)',
        value: `≤ ${apiRequests}`,
      },
      { name: 'workspace requests of one call (the answer’s PutObject)', value: '1' },
      {
        name: `scan_snapshots of a month of daily reports of 1,000,000,000 (${scanSteps} steps, one query each)`,
        value: `${((scanSteps * scannedBytes) / 1e9).toFixed(0)} GB, $${(((scanSteps * scannedBytes) / 1e12) * USD_PER_TB).toFixed(2)}`,
      },
      {
        name: 'bytes one scan step scans, against the workgroup’s per-query cut-off',
        value: `${(scannedBytes / 1e9).toFixed(1)} GB`,
        target: `≤ ${ATHENA_BYTES_SCANNED_CUTOFF / 1e9} GB`,
        pass: scannedBytes <= ATHENA_BYTES_SCANNED_CUTOFF,
      },
      {
        name: `Athena API requests of that scan (DDL once; ${SCAN_QUERY_CONCURRENCY} step queries at a time, polls ≤ ${scanSnapshotsSpec.runtime?.timeoutSeconds} s each)`,
        value: `≤ ${scanRequests}`,
      },
      {
        name: 'S3 GETs by Athena at 1,000,000,000×2 (≥ one per data file of 250,000 objects)',
        value: `≥ ${dataFiles.toLocaleString('en-US')}`,
      },
    ];
    return {
      title: 'snapshot_stats on the Athena route, simulated 1,000,000,000-object report (issue 22)',
      figures: list,
      notes: [
        `Sample data files: ${older.manifest.files.length}+${current.manifest.files.length}, ${(
          (older.manifest.reportBytes + current.manifest.reportBytes) / 1e6
        ).toFixed(1)} MB; scaled ×${scale.toFixed(0)}.`,
        "Wall time of Athena itself is not modelled: the row scales DuckDB's single-node run.",
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measureAthenaRoute()
    .then((section) => {
      console.log(formatReport(['Athena route bench'], [section]));
      if (section.figures.some((f) => f.pass === false)) process.exitCode = 1;
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
