/**
 * The local runner of the snapshot tools' Athena route: the SAME query text
 * (functions/tools/snapshots/athena/inventory-sql.ts) executed by DuckDB
 * (`@duckdb/node-api`, a devDependency) over the generated inventory data files.
 *
 * Athena's table reads, for each `dt` partition, the data files that
 * `hive/dt=…/symlink.txt` lists — the files of that report's manifest. Here the
 * table `"<database>"."<table>"` is a DuckDB view over the same files, written
 * from the local S3 server to a temporary folder, every column cast to the type
 * the Athena table declares for its format (`columnType`), plus `dt`: CSV read
 * as those types; a Parquet column first checked to be of the file type Athena
 * reads under the declared one, so a DDL type that does not fit the report fails
 * here as it would fail on Athena. ORC cannot be read here (DuckDB has no ORC
 * reader): its DDL is held to the S3 User Guide's template by the unit tests
 * only (docs/snapshot-tools.md). Timestamps are UTC, as Athena's.
 * {@link DuckInventoryEngine} is the route's `InventoryQueryEngine` on it, for
 * the tools themselves.
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
  athenaFormat,
  columnType,
  glueName,
  INVENTORY_COLUMN_TYPES,
  inventoryTableName,
  partitionOf,
  tableColumns,
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

/** DuckDB's name of each type the Athena tables declare (`columnType`). */
const DUCK_TYPES: Readonly<Record<string, string>> = {
  string: 'VARCHAR',
  boolean: 'BOOLEAN',
  bigint: 'BIGINT',
  timestamp: 'TIMESTAMP',
};

/**
 * The Parquet column types, as DuckDB reads them, accepted under each declared
 * type: the file's own type only (INT64 `TIMESTAMP(MILLIS)` is a TIMESTAMP, with
 * or without time zone as its UTC flag says). Stricter than Athena, never looser:
 * each pair is one Athena reads.
 */
const PARQUET_READS: Readonly<Record<string, readonly string[]>> = {
  VARCHAR: ['VARCHAR'],
  BOOLEAN: ['BOOLEAN'],
  BIGINT: ['BIGINT'],
  TIMESTAMP: ['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE'],
};

/** The DuckDB type of `column` in the Athena table of `report`'s format. */
function declaredType(report: LocalReport, column: string): string {
  return DUCK_TYPES[columnType(athenaFormat(report.manifest), column)] as string;
}

/**
 * Each Parquet column's type in `source`, checked against the table's declared type.
 *
 * @throws Error naming the column, the file's type and the declared one.
 */
async function checkParquetTypes(
  connection: DuckDBConnection,
  report: LocalReport,
  source: string,
): Promise<void> {
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
  const fileTypes = new Map(
    described.getRowObjectsJson().map((row) => [String(row.column_name), String(row.column_type)]),
  );
  // A field the tools do not know is declared by position and read as NULL (tableColumns): not checked.
  for (const column of report.manifest.columns.filter((c) => Object.hasOwn(INVENTORY_COLUMN_TYPES, c))) {
    const declared = declaredType(report, column);
    const found = fileTypes.get(column);
    if (!found || !PARQUET_READS[declared]?.includes(found)) {
      throw new Error(
        `Parquet column ${column} is ${found ?? 'missing'} in ${report.reportTime}'s files, ` +
          `but the table declares it ${columnType('Parquet', column)}: Athena would not read it`,
      );
    }
  }
}

/** One report's rows, every column as the Athena table declares it, plus `dt`. */
async function reportSelect(
  connection: DuckDBConnection,
  report: LocalReport,
  files: readonly string[],
): Promise<string> {
  const list = `[${files.map(literal).join(', ')}]`;
  const dt = literal(partitionOf(report.reportTime));
  // As the Athena table declares them: a field the tools do not know under its placeholder name.
  const columns = tableColumns(report.manifest.columns);
  if (files.length === 0) {
    // A manifest listing no data file: Athena reads the partition's empty symlink.txt as no rows,
    // where DuckDB's readers refuse an empty list.
    const typed = columns.map((c) => `CAST(NULL AS ${declaredType(report, c)}) AS "${c}"`);
    return `SELECT ${typed.join(', ')}, ${dt} AS dt WHERE false`;
  }
  if (report.manifest.fileFormat === 'CSV') {
    const declared = columns.map((c) => `${literal(c)}: '${declaredType(report, c)}'`).join(', ');
    return (
      `SELECT *, ${dt} AS dt FROM read_csv(${list}, header = false, auto_detect = false, ` +
      `quote = '"', escape = '"', compression = 'gzip', columns = {${declared}})`
    );
  }
  if (report.manifest.fileFormat !== 'Parquet') {
    throw new Error(
      `DuckDB has no ${report.manifest.fileFormat} reader: that table is checked by its DDL only (docs/snapshot-tools.md)`,
    );
  }
  const source = `read_parquet(${list})`;
  await checkParquetTypes(connection, report, source);
  // A placeholder column is not in the file: Athena reads a Parquet column by name, so it reads NULL.
  const cast = columns
    .map((c, i) =>
      c === report.manifest.columns[i]
        ? `CAST("${c}" AS ${declaredType(report, c)}) AS "${c}"`
        : `CAST(NULL AS VARCHAR) AS "${c}"`,
    )
    .join(', ');
  return `SELECT ${cast}, ${dt} AS dt FROM ${source}`;
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
    const connection = await instance.connect();
    // Athena reads and compares timestamps in UTC; so does a TIMESTAMPTZ cast here.
    await connection.run("SET TimeZone = 'UTC'");
    const table = new DuckInventoryTable(connection, dir);
    try {
      await table.addView(ref, reports, localFile);
    } catch (error) {
      table.close();
      throw error;
    }
    return table;
  }

  /** Adds (or replaces) the view `ref` in this database. */
  async addView(
    ref: InventoryTableRef,
    reports: readonly LocalReport[],
    localFile: (key: string) => string,
  ): Promise<void> {
    const selects: string[] = [];
    for (const report of reports) {
      selects.push(
        await reportSelect(
          this.connection,
          report,
          report.manifest.files.map((file) => localFile(file.key)),
        ),
      );
    }
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
      // The layouts whose table this is: the same declared columns (unknown fields by position).
      if (
        manifest.fileFormat !== spec.format ||
        JSON.stringify(tableColumns(columns)) !== JSON.stringify(tableColumns(spec.columns))
      )
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
