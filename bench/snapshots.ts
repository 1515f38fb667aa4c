/**
 * Benchmark of the snapshot tools over S3 Inventory reports at scale (issue 11,
 * "Benchmark"): `snapshot_stats` and `diff_snapshots` over two generated
 * reports of 1,000,000 objects each, in CSV and in Parquet, served by the local
 * S3 server from files in the OS temp directory (removed afterwards).
 *
 * Each measurement runs in a fresh child process (this file bundled with
 * esbuild as the CDK bundles a function, under plain node), so its peak RSS is
 * the tool's alone; the S3 server and the data generation stay in this
 * process. Figures: wall time, rows/s (rows read over wall time), rows/s per
 * core (rows over the child's CPU time, user + system), peak RSS, with the
 * child's start RSS, peak V8 heap and peak ArrayBuffer memory in the notes.
 *
 * `SNAPSHOT_BENCH_OBJECTS` sets the report size (default 1,000,000; 10000000
 * measures the 10-million case, about 35 minutes here),
 * `SNAPSHOT_BENCH_FORMATS` the formats (`CSV,Parquet`), and
 * `SNAPSHOT_BENCH_NODE_OPTIONS` node flags for the child (e.g.
 * `--max-old-space-size=96`).
 *
 * Run: `npx tsx bench/snapshots.ts`; bench/run.ts calls {@link measureSnapshotTools}.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { awsClientConfig } from '../functions/runtime/aws/client-config';
import type { AwsAccess } from '../functions/runtime/aws/credentials';
import { deadlineIn } from '../functions/runtime/deadline';
import { runTool } from '../functions/runtime/harness';
import type { ToolResult } from '../functions/runtime/result';
import { defaultSnapshotClients } from '../functions/tools/snapshots/clients';
import { createDiffSnapshotsTool } from '../functions/tools/snapshots/diff-snapshots';
import { createSnapshotStatsTool } from '../functions/tools/snapshots/snapshot-stats';
import { REPORT_READER_NODE_OPTIONS } from '../functions/tools/snapshots/snapshot-stats.meta';
import { awsToolServices } from '../test/helpers/aws-tool';
import { writeReportToDisk } from '../test/helpers/inventory-fixtures';
import { LocalS3Server } from '../test/helpers/inventory-s3-server';
import { peakRssBytes } from './peak-rss';
import { atMost, type Figure, formatReport, type Section } from './report';

/** The targets. */
const PEAK_RSS_TARGET_MB = 512;
const ROWS_PER_SECOND_TARGET = 250_000;
const MB = 1024 * 1024;

export const SOURCE = 'bench-source';
export const DESTINATION = 'bench-inventory';
export const TIMES = ['2026-03-01T01-00Z', '2026-03-02T01-00Z'] as const;

/** What one child measured. */
interface ChildFigures {
  readonly ok: boolean;
  readonly error?: string;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssBytes: number;
  readonly startRssBytes: number;
  /** Highest V8 heap total sampled (JS objects, strings; garbage until collected). */
  readonly peakHeapBytes: number;
  /** Highest off-heap ArrayBuffer memory sampled (the index's typed arrays, buffers). */
  readonly peakArrayBufferBytes: number;
  readonly rows: number;
  readonly summary: string;
  /** The figures both sides of bench/snapshots-duckdb.ts must agree on. */
  readonly answer: SnapshotAnswer;
}

/**
 * What a stats or diff answered, in figures any engine can compute: totals of
 * each report, and the count and bytes of added, removed and changed objects
 * (for stats: the report against its previous one).
 */
export interface SnapshotAnswer {
  readonly aFiles: number;
  readonly aBytes: number;
  readonly bFiles: number;
  readonly bBytes: number;
  readonly added: number;
  readonly addedBytes: number;
  readonly removed: number;
  readonly removedBytes: number | null;
  readonly changed: number;
  readonly changedBytes: number;
}

/** The figures of a stats or diff value (see {@link SnapshotAnswer}). */
function answerOf(tool: string, value: Record<string, unknown>): SnapshotAnswer {
  if (tool === 'diff_snapshots') {
    const v = value as unknown as {
      totals: { a: { files: number; bytes: number }; b: { files: number; bytes: number } };
      added: { count: number; bytes: number };
      removed: { count: number; bytes: number };
      changed: { count: number; bytes: number };
    };
    return {
      aFiles: v.totals.a.files,
      aBytes: v.totals.a.bytes,
      bFiles: v.totals.b.files,
      bBytes: v.totals.b.bytes,
      added: v.added.count,
      addedBytes: v.added.bytes,
      removed: v.removed.count,
      removedBytes: v.removed.bytes,
      changed: v.changed.count,
      changedBytes: v.changed.bytes,
    };
  }
  const v = value as unknown as {
    files: number;
    bytes: number;
    new_bytes: number;
    new_files: number;
    changed_files: number;
    removed_files: number;
    baseline: { files: number; bytes: number };
  };
  return {
    aFiles: v.baseline?.files ?? 0,
    aBytes: v.baseline?.bytes ?? 0,
    bFiles: v.files,
    bBytes: v.bytes,
    added: v.new_files,
    // stats gives added and changed bytes together (new_bytes)
    addedBytes: v.new_bytes,
    removed: v.removed_files,
    removedBytes: null,
    changed: v.changed_files,
    changedBytes: 0,
  };
}

/** One measured case. */
interface CaseFigures extends ChildFigures {
  readonly tool: 'snapshot_stats' | 'diff_snapshots';
  readonly format: 'CSV' | 'Parquet';
  readonly objects: number;
}

// ---------------------------------------------------------------- child side

async function measureInChild(): Promise<ChildFigures> {
  const url = process.env.SNAPSHOT_BENCH_S3 as string;
  const config = process.env.SNAPSHOT_BENCH_CONFIG as string;
  const clients = {
    ...defaultSnapshotClients,
    s3: (access: AwsAccess, region: string) =>
      new S3Client({ ...awsClientConfig(access, region), endpoint: url, forcePathStyle: true }),
  };
  const tool =
    process.env.SNAPSHOT_BENCH_TOOL === 'diff_snapshots'
      ? createDiffSnapshotsTool(clients)
      : createSnapshotStatsTool(clients);
  const ids = TIMES.map((time) => `s3_inventory:${SOURCE}/${config}/${time}`);
  const args = tool.name === 'diff_snapshots' ? { a: ids[0], b: ids[1] } : { id: ids[1] };
  const services = awsToolServices({
    access_key_id: 'AKIAIOSFODNN7EXAMPLE',
    secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    region: 'us-east-1',
  });
  globalThis.gc?.();
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  let peakHeap = 0;
  let peakBuffers = 0;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapTotal);
    peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
  }, 5);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result: ToolResult = await runTool(
    tool,
    { tool: tool.name, tenant: 'default', runId: 'bench', callId: 'bench/0', args },
    deadlineIn(900_000),
    services,
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, peakRssBytes());
  const value = result.ok ? (result.value as Record<string, unknown>) : {};
  const rows =
    tool.name === 'diff_snapshots'
      ? Number((value.totals as { a: { files: number }; b: { files: number } } | undefined)?.a.files ?? 0) +
        Number((value.totals as { a: { files: number }; b: { files: number } } | undefined)?.b.files ?? 0)
      : Number(value.files ?? 0) +
        Number((value.baseline as { files: number } | null | undefined)?.files ?? 0);
  return {
    ok: result.ok,
    ...(result.ok ? {} : { error: `${result.error.code}: ${result.error.message}` }),
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    peakRssBytes: peak,
    startRssBytes: startRss,
    peakHeapBytes: peakHeap,
    peakArrayBufferBytes: peakBuffers,
    rows,
    summary: result.summary ?? '',
    answer: answerOf(tool.name, value),
  };
}

// --------------------------------------------------------------- parent side

/** The i-th object of the older report: about 60-character keys over 50 departments, six extensions. */
export function objectAt(i: number) {
  const extensions = ['pdf', 'docx', 'jpg', 'xlsx', 'txt', 'csv'];
  const key = `dept-${i % 50}/project-${(i >>> 6) % 1000}/file-${i.toString(36).padStart(8, '0')}.${extensions[i % 6]}`;
  const hash = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  return {
    key,
    size: 1024 + (hash % 8_000_000),
    lastModifiedMs: Date.UTC(2026, 0, 1) + (hash % 5_000_000_000),
    eTag: `${hash.toString(16).padStart(8, '0')}${'0'.repeat(24)}`,
  };
}

/** The newer report: 2% changed, 1% deleted, 1% new. */
export function newerObjectAt(count: number) {
  const kept: number[] = [];
  for (let i = 0; i < count; i++) if (i % 100 !== 1) kept.push(i);
  const extra = Math.floor(count / 100);
  return {
    count: kept.length + extra,
    objectAt: (j: number) => {
      if (j >= kept.length) return objectAt(count + (j - kept.length));
      const i = kept[j] as number;
      const o = objectAt(i);
      return i % 50 === 0
        ? {
            ...o,
            size: o.size + 1,
            lastModifiedMs: o.lastModifiedMs + 86_400_000,
            eTag: `f${o.eTag.slice(1)}`,
          }
        : o;
    },
  };
}

/**
 * Bundles this file as the CDK bundles a function (esbuild, CommonJS, node24,
 * minified) so a child runs plain node, as Lambda does: no TypeScript loader in
 * its memory figures.
 */
export async function bundleChild(dir: string): Promise<string> {
  const outfile = path.join(dir, 'snapshot-bench-child.js');
  await build({
    entryPoints: [__filename],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    keepNames: true,
    logLevel: 'error',
  });
  return outfile;
}

/** The child's node flags: `SNAPSHOT_BENCH_NODE_OPTIONS`, else those the deployed report readers run with. */
function childNodeOptions(): string {
  return process.env.SNAPSHOT_BENCH_NODE_OPTIONS ?? REPORT_READER_NODE_OPTIONS;
}

export function runChild(bundle: string, env: Record<string, string>): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const nodeOptions = childNodeOptions().split(' ').filter(Boolean);
    const child = spawn(process.execPath, ['--expose-gc', ...nodeOptions, bundle], {
      env: { ...process.env, ...env, SNAPSHOT_BENCH_CHILD: '1', POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let figures: ChildFigures | undefined;
    child.on('message', (message) => {
      figures = message as ChildFigures;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      figures ? resolve(figures) : reject(new Error(`bench child exited with ${code}`)),
    );
  });
}

async function measureSize(objects: number, dir: string, bundle: string): Promise<CaseFigures[]> {
  const server = await new LocalS3Server().start();
  const cases: CaseFigures[] = [];
  try {
    server.createBucket(SOURCE);
    server.createBucket(DESTINATION);
    const formats = (process.env.SNAPSHOT_BENCH_FORMATS ?? 'CSV,Parquet').split(',') as ('CSV' | 'Parquet')[];
    for (const format of formats) {
      const config = `bench-${format.toLowerCase()}-${objects}`;
      server.putInventoryConfiguration(SOURCE, { id: config, destinationBucket: DESTINATION, format });
      const common = {
        sourceBucket: SOURCE,
        configurationId: config,
        destinationBucket: DESTINATION,
        format,
      };
      await writeReportToDisk(server, { ...common, reportTime: TIMES[0], count: objects, objectAt }, dir);
      await writeReportToDisk(server, { ...common, reportTime: TIMES[1], ...newerObjectAt(objects) }, dir);
      for (const tool of ['snapshot_stats', 'diff_snapshots'] as const) {
        const figures = await runChild(bundle, {
          SNAPSHOT_BENCH_S3: server.url,
          SNAPSHOT_BENCH_CONFIG: config,
          SNAPSHOT_BENCH_TOOL: tool,
        });
        cases.push({ ...figures, tool, format, objects });
      }
    }
  } finally {
    await server.stop();
  }
  return cases;
}

/** A figure checked against a lower bound: PASS when `measured >= limit`. */
function atLeast(name: string, measured: number, limit: number): Figure {
  const format = (n: number) => Math.round(n).toLocaleString('en-US');
  return { name, value: format(measured), target: `≥ ${format(limit)}`, pass: measured >= limit };
}

function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`;
}

/**
 * Runs the benchmark: `snapshot_stats` and `diff_snapshots` over two reports of
 * `objects` objects each, in each format, every case in its own child process.
 *
 * @param objects - objects per report. @default SNAPSHOT_BENCH_OBJECTS, else 1,000,000
 * @returns one report section (figures against the targets, notes).
 */
export async function measureSnapshotTools(
  objects = Number(process.env.SNAPSHOT_BENCH_OBJECTS ?? 1_000_000),
): Promise<Section[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-snapshot-bench-'));
  try {
    const bundle = await bundleChild(dir);
    const cases = await measureSize(objects, dir, bundle);
    const figures: Figure[] = [];
    const notes: string[] = [];
    for (const c of cases) {
      const name = `${c.tool} ${c.format} ${c.objects.toLocaleString('en-US')}×2`;
      if (!c.ok) {
        figures.push({ name: `${name} FAILED`, value: c.error ?? 'unknown', pass: false, target: 'ok' });
        continue;
      }
      figures.push(
        { name: `${name} wall`, value: `${(c.wallMs / 1000).toFixed(2)} s` },
        // The target is per core (CPU time); wall time also holds the local S3 server, which runs in
        // the same process, and whatever else the shared machine runs: shown, not judged.
        {
          name: `${name} rows/s (wall)`,
          value: Math.round(c.rows / (c.wallMs / 1000)).toLocaleString('en-US'),
        },
        atLeast(`${name} rows/s per core (CPU time)`, c.rows / (c.cpuMs / 1000), ROWS_PER_SECOND_TARGET),
        atMost(`${name} peak RSS`, c.peakRssBytes / MB, PEAK_RSS_TARGET_MB, 'MB', 0),
      );
      notes.push(
        `${name}: ${c.summary} (start RSS ${mb(c.startRssBytes)}; peak V8 heap ${mb(c.peakHeapBytes)}, ` +
          `peak array buffers ${mb(c.peakArrayBufferBytes)}; ${(c.cpuMs / 1000).toFixed(1)} s CPU)`,
      );
    }
    const flags = childNodeOptions();
    notes.push(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores; child node flags: ${flags || 'none'}`,
    );
    return [{ title: 'Snapshot tools over S3 Inventory reports', figures, notes }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  if (process.env.SNAPSHOT_BENCH_CHILD) {
    measureInChild()
      .then((figures) => process.send?.(figures, () => process.disconnect?.()))
      .catch((err: unknown) => {
        console.error(err);
        process.exitCode = 1;
        process.disconnect?.();
      });
  } else {
    measureSnapshotTools()
      .then((sections) =>
        console.log(formatReport(['Snapshot tools benchmark', `node ${process.version}`], sections)),
      )
      .catch((err: unknown) => {
        console.error(err);
        process.exitCode = 1;
      });
  }
}
