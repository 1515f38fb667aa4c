/**
 * The local runner of the snapshot tools' Athena route: the SAME query text
 * (functions/tools/snapshots/athena/inventory-sql.ts) executed by DuckDB
 * (`@duckdb/node-api`, a devDependency) over the generated inventory data files.
 *
 * Athena's table reads, for each `dt` partition, the data files that
 * `hive/dt=…/symlink.txt` lists — the files of that report's manifest. Here the
 * table `"<database>"."<table>"` is a DuckDB view over the same files, written
 * from the local S3 server to a temporary folder: CSV columns with the types of
 * the Athena CSV table (`columnType`: `string` as VARCHAR, the three flags
 * BOOLEAN), Parquet with its own types, plus `dt`. {@link DuckInventoryEngine}
 * is the route's `InventoryQueryEngine` on it, for the tools themselves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type {
  AthenaQueryStats,
  InventoryQueryEngine,
} from '../../functions/tools/snapshots/athena/athena-runner';
import type {
  InventoryTableRef,
  InventoryTableSpec,
} from '../../functions/tools/snapshots/athena/inventory-sql';
import {
  columnType,
  glueName,
  inventoryTableName,
  partitionOf,
} from '../../functions/tools/snapshots/athena/inventory-sql';
import type { FigureRow } from '../../functions/tools/snapshots/athena/query-figures';
import { isManifestKey } from '../../functions/tools/snapshots/inventory/layout';
import { type InventoryManifest, schemaColumns } from '../../functions/tools/snapshots/inventory/manifest';
import type { LocalS3Server } from './inventory-s3-server';

/** One report of the local table. */
export interface LocalReport {
  readonly reportTime: string;
  readonly manifest: InventoryManifest;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function reportSelect(report: LocalReport, files: readonly string[]): string {
  const list = `[${files.map(literal).join(', ')}]`;
  const dt = literal(partitionOf(report.reportTime));
  const columns = report.manifest.columns;
  if (report.manifest.fileFormat === 'CSV') {
    const declared = columns
      .map((c) => `${literal(c)}: '${columnType('CSV', c) === 'boolean' ? 'BOOLEAN' : 'VARCHAR'}'`)
      .join(', ');
    return (
      `SELECT *, ${dt} AS dt FROM read_csv(${list}, header = false, auto_detect = false, ` +
      `quote = '"', escape = '"', compression = 'gzip', columns = {${declared}})`
    );
  }
  return `SELECT ${columns.map((c) => `"${c}"`).join(', ')}, ${dt} AS dt FROM read_parquet(${list})`;
}

/** Copies an object of `server` into `dir`; returns the local path. */
function serverCopies(server: LocalS3Server, bucket: string, dir: string): (key: string) => string {
  return (key) => {
    const bytes = server.objectBytes(bucket, key);
    if (!bytes) throw new Error(`No ${key} in ${bucket}`);
    const local = path.join(dir, path.basename(key));
    writeFileSync(local, bytes);
    return local;
  };
}

/** A DuckDB database holding inventory tables (views) over local copies of their data files. */
export class DuckInventoryTable {
  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly dir: string | undefined,
  ) {}

  /**
   * Creates the view `ref` over each report's data files, found locally by
   * `localFile(key)`; `dir`, when given, is removed by {@link close}.
   */
  static async create(
    ref: InventoryTableRef,
    reports: readonly LocalReport[],
    localFile: (key: string) => string,
    dir?: string,
  ): Promise<DuckInventoryTable> {
    const instance = await DuckDBInstance.create(':memory:');
    const table = new DuckInventoryTable(await instance.connect(), dir);
    await table.addView(ref, reports, localFile);
    return table;
  }

  /** Adds (or replaces) the view `ref` in this database. */
  async addView(
    ref: InventoryTableRef,
    reports: readonly LocalReport[],
    localFile: (key: string) => string,
  ): Promise<void> {
    const selects = reports.map((report) =>
      reportSelect(
        report,
        report.manifest.files.map((file) => localFile(file.key)),
      ),
    );
    const database = glueName('database', ref.database);
    await this.connection.run(`CREATE SCHEMA IF NOT EXISTS "${database}"`);
    await this.connection.run(
      `CREATE OR REPLACE VIEW "${database}"."${glueName('table', ref.table)}" AS ${selects.join(' UNION ALL BY NAME ')}`,
    );
  }

  /** {@link create} over copies of the data files held in memory by `server`. */
  static async fromServer(
    server: LocalS3Server,
    destinationBucket: string,
    ref: InventoryTableRef,
    reports: readonly LocalReport[],
  ): Promise<DuckInventoryTable> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'duck-inventory-'));
    return DuckInventoryTable.create(ref, reports, serverCopies(server, destinationBucket, dir), dir);
  }

  /** Runs a query, every value as text (as Athena's GetQueryResults gives them). */
  async query(sql: string): Promise<FigureRow[]> {
    const reader = await this.connection.runAndReadAll(sql);
    return reader
      .getRowObjectsJson()
      .map(
        (row) =>
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, v === null ? '' : String(v)]),
          ) as FigureRow,
      );
  }

  close(): void {
    this.connection.closeSync();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The Athena route's engine on DuckDB: `ensureTable` makes the layout's view
 * over every report of that layout the local S3 server holds (what the table's
 * `symlink.txt` files would list: each manifest's files), `query` runs the
 * route's SQL unchanged. Counts its statements as Athena requests (one each:
 * nothing to poll).
 */
export class DuckInventoryEngine implements InventoryQueryEngine {
  /** Every statement run: `CREATE VIEW …` for each table made, then the queries. */
  readonly statements: string[] = [];
  readonly #dir = mkdtempSync(path.join(os.tmpdir(), 'duck-engine-'));
  #database: DuckInventoryTable | undefined;

  constructor(
    private readonly server: LocalS3Server,
    private readonly database = 'etp_snapshots',
  ) {}

  async ensureTable(spec: InventoryTableSpec) {
    const table = { database: this.database, table: inventoryTableName(spec) };
    const reports: LocalReport[] = [];
    for (const key of this.server.keys(spec.destinationBucket)) {
      if (!isManifestKey(spec.base, key)) continue;
      const manifest = JSON.parse(String(this.server.objectBytes(spec.destinationBucket, key))) as {
        fileFormat: string;
        fileSchema: string;
        files: { key: string; size: number; MD5checksum: string }[];
      };
      const columns = schemaColumns(manifest.fileFormat, manifest.fileSchema);
      if (manifest.fileFormat !== spec.format || JSON.stringify(columns) !== JSON.stringify(spec.columns))
        continue;
      const files = manifest.files.map((f) => ({ key: f.key, size: f.size, md5: f.MD5checksum }));
      reports.push({
        reportTime: key.slice(spec.base.length, key.length - '/manifest.json'.length),
        manifest: {
          sourceBucket: '',
          destinationBucket: spec.destinationBucket,
          createdAtMs: 0,
          fileFormat: manifest.fileFormat,
          columns,
          files,
          reportBytes: files.reduce((sum, f) => sum + f.size, 0),
        },
      });
    }
    const copies = serverCopies(this.server, spec.destinationBucket, this.#dir);
    if (this.#database) await this.#database.addView(table, reports, copies);
    else this.#database = await DuckInventoryTable.create(table, reports, copies);
    this.statements.push(`CREATE VIEW ${table.database}.${table.table}`);
    return { table, stats: this.#stats() };
  }

  async query(sql: string) {
    if (!this.#database) throw new Error('DuckInventoryEngine: a query before any table');
    this.statements.push(sql);
    return { rows: await this.#database.query(sql), stats: this.#stats() };
  }

  #stats(): AthenaQueryStats {
    return {
      queryExecutionId: `duckdb-${this.statements.length}`,
      dataScannedBytes: 0,
      engineMs: 0,
      requests: 1,
    };
  }

  close(): void {
    this.#database?.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
