/**
 * The DuckDB side of bench/snapshots-duckdb.ts, run in its own process: the
 * figures of a `snapshot_stats` or `diff_snapshots` of two S3 Inventory reports
 * in one SQL query over their data files (`DUCK_FORMAT`, `DUCK_TOOL`, `DUCK_A`
 * and `DUCK_B`: JSON lists of local paths), reported to the parent over IPC.
 *
 * With `DUCK_FETCH` (a JSON list of `[url, path]` pairs) the data files are
 * first fetched from the local S3 server, all at once, into those paths, within
 * the timed window: the report comes from the same endpoint the tool reads, as
 * it would in Lambda, where DuckDB's `httpfs` extension is not in the Node
 * package (it is downloaded from extensions.duckdb.org on first use, which
 * neither this machine nor a Lambda without internet egress can reach).
 */
import { createWriteStream } from 'node:fs';
import { get } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { peakRssBytes } from './peak-rss';
import type { SnapshotAnswer } from './snapshots';

type Format = 'CSV' | 'Parquet';
type Tool = 'snapshot_stats' | 'diff_snapshots';

/** What a DuckDB child measured. */
export interface DuckFigures {
  readonly wallMs: number;
  /** CPU time of the query, user + system, all threads (ms). */
  readonly cpuMs: number;
  readonly peakRssBytes: number;
  readonly answer: SnapshotAnswer;
}

function sqlList(files: readonly string[]): string {
  return `[${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}]`;
}

function readerOf(format: Format, files: readonly string[]): string {
  return format === 'CSV'
    ? `SELECT key, size, last_modified, e_tag FROM read_csv(${sqlList(files)}, header = false, ` +
        "columns = {'bucket': 'VARCHAR', 'key': 'VARCHAR', 'size': 'BIGINT', 'last_modified': 'VARCHAR', 'e_tag': 'VARCHAR'})"
    : `SELECT key, size, last_modified_date AS last_modified, e_tag FROM read_parquet(${sqlList(files)})`;
}

/** Fetches each `[url, path]` into its path, all at once (plain `node:http`, the lightest client node has). */
async function fetchAll(pairs: readonly (readonly [string, string])[]): Promise<void> {
  await Promise.all(
    pairs.map(
      ([url, file]) =>
        new Promise<void>((resolve, reject) => {
          get(url, (response) => {
            if (response.statusCode !== 200) {
              response.resume();
              reject(new Error(`GET ${url}: ${response.statusCode}`));
              return;
            }
            pipeline(response, createWriteStream(file)).then(resolve, reject);
          }).on('error', reject);
        }),
    ),
  );
}

async function measureDuckDb(): Promise<DuckFigures> {
  const { DuckDBInstance } = require('@duckdb/node-api') as typeof import('@duckdb/node-api');
  const format = process.env.DUCK_FORMAT as Format;
  const tool = process.env.DUCK_TOOL as Tool;
  const [filesA, filesB] = [process.env.DUCK_A, process.env.DUCK_B].map((v) => JSON.parse(v ?? '[]'));
  const fetched = process.env.DUCK_FETCH ? (JSON.parse(process.env.DUCK_FETCH) as [string, string][]) : [];
  const started = performance.now();
  const cpu = process.cpuUsage();
  await fetchAll(fetched);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const changed =
    'a.key IS NOT NULL AND b.key IS NOT NULL AND (a.size IS DISTINCT FROM b.size OR ' +
    'a.last_modified IS DISTINCT FROM b.last_modified OR a.e_tag IS DISTINCT FROM b.e_tag)';
  const sql =
    `WITH a AS (${readerOf(format, filesA)}), b AS (${readerOf(format, filesB)}) SELECT ` +
    'count(a.key) AS a_files, coalesce(sum(a.size), 0) AS a_bytes, count(b.key) AS b_files, coalesce(sum(b.size), 0) AS b_bytes, ' +
    'count(*) FILTER (WHERE a.key IS NULL) AS added, coalesce(sum(b.size) FILTER (WHERE a.key IS NULL), 0) AS added_bytes, ' +
    'count(*) FILTER (WHERE b.key IS NULL) AS removed, coalesce(sum(a.size) FILTER (WHERE b.key IS NULL), 0) AS removed_bytes, ' +
    `count(*) FILTER (WHERE ${changed}) AS changed, coalesce(sum(b.size) FILTER (WHERE ${changed}), 0) AS changed_bytes ` +
    'FROM a FULL OUTER JOIN b ON a.key = b.key';
  const reader = await connection.runAndReadAll(sql);
  const row = reader.getRowObjectsJson()[0] as Record<string, string | number>;
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const n = (name: string) => Number(row[name]);
  const answer: SnapshotAnswer =
    tool === 'diff_snapshots'
      ? {
          aFiles: n('a_files'),
          aBytes: n('a_bytes'),
          bFiles: n('b_files'),
          bBytes: n('b_bytes'),
          added: n('added'),
          addedBytes: n('added_bytes'),
          removed: n('removed'),
          removedBytes: n('removed_bytes'),
          changed: n('changed'),
          changedBytes: n('changed_bytes'),
        }
      : {
          aFiles: n('a_files'),
          aBytes: n('a_bytes'),
          bFiles: n('b_files'),
          bBytes: n('b_bytes'),
          added: n('added'),
          addedBytes: n('added_bytes') + n('changed_bytes'),
          removed: n('removed'),
          removedBytes: null,
          changed: n('changed'),
          changedBytes: 0,
        };
  connection.closeSync();
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    peakRssBytes: peakRssBytes(),
    answer,
  };
}

if (require.main === module) {
  measureDuckDb()
    .then((figures) => process.send?.(figures, () => process.disconnect?.()))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
      process.disconnect?.();
    });
}
