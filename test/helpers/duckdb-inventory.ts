/**
 * The local runner of the snapshot tools' Athena route: the SAME query text
 * (functions/tools/snapshots/athena/inventory-sql.ts) executed by DuckDB
 * (`@duckdb/node-api`, a devDependency) over the generated inventory data files.
 *
 * Athena's table reads, for each `dt` partition, the data files that
 * `hive/dt=…/symlink.txt` lists — the files of that report's manifest. Here the
 * table `"<database>"."<table>"` is a DuckDB view over the same files, written
 * from the local S3 server to a temporary folder: CSV columns all `VARCHAR` (as
 * the Athena CSV table's `string`), Parquet with its own types, plus `dt`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { FigureRow, InventoryTableRef } from '../../functions/tools/snapshots/athena/inventory-sql';
import { glueName, partitionOf } from '../../functions/tools/snapshots/athena/inventory-sql';
import type { InventoryManifest } from '../../functions/tools/snapshots/inventory/manifest';
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
    const declared = columns.map((c) => `${literal(c)}: 'VARCHAR'`).join(', ');
    return (
      `SELECT *, ${dt} AS dt FROM read_csv(${list}, header = false, auto_detect = false, ` +
      `quote = '"', escape = '"', compression = 'gzip', columns = {${declared}})`
    );
  }
  return `SELECT ${columns.map((c) => `"${c}"`).join(', ')}, ${dt} AS dt FROM read_parquet(${list})`;
}

/** A DuckDB database holding one configuration's inventory table over local copies of its data files. */
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
    const selects = reports.map((report) =>
      reportSelect(
        report,
        report.manifest.files.map((file) => localFile(file.key)),
      ),
    );
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const database = glueName('database', ref.database);
    await connection.run(`CREATE SCHEMA "${database}"`);
    await connection.run(
      `CREATE VIEW "${database}"."${glueName('table', ref.table)}" AS ${selects.join(' UNION ALL BY NAME ')}`,
    );
    return new DuckInventoryTable(connection, dir);
  }

  /** {@link create} over copies of the data files held in memory by `server`. */
  static async fromServer(
    server: LocalS3Server,
    destinationBucket: string,
    ref: InventoryTableRef,
    reports: readonly LocalReport[],
  ): Promise<DuckInventoryTable> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'duck-inventory-'));
    return DuckInventoryTable.create(
      ref,
      reports,
      (key) => {
        const bytes = server.objectBytes(destinationBucket, key);
        if (!bytes) throw new Error(`No ${key} in ${destinationBucket}`);
        const local = path.join(dir, path.basename(key));
        writeFileSync(local, bytes);
        return local;
      },
      dir,
    );
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
