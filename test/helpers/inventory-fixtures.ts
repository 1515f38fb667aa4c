/**
 * Generated S3 Inventory reports, as S3 writes them (S3 User Guide, "Amazon S3
 * Inventory", "Locating your inventory list", "Inventory manifest"): data files
 * named `<base>data/<uuid>.csv.gz` or `.parquet`, and
 * `<base><YYYY-MM-DDTHH-MMZ>/manifest.json` (plus `manifest.checksum`) listing
 * each file's key, size and MD5. CSV rows quote every field and URL-encode keys;
 * Parquet files carry S3's column names and types (`message s3.inventory {…}`).
 *
 * Also a deterministic history generator: a bucket over several days with
 * ordinary churn, optionally an encryption wave (files rewritten under a new
 * extension, a ransom note per folder) and a mass deletion.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { parquetWriteBuffer, parquetWriteFile } from 'hyparquet-writer';
import { InventoryRow } from '../../functions/tools/snapshots/inventory/rows';
import type { LocalS3Server } from './inventory-s3-server';

/** One listed object (or version, or delete marker). */
export interface InventoryObject {
  readonly key: string;
  readonly size: number;
  readonly lastModifiedMs: number;
  readonly eTag: string;
  readonly versionId?: string;
  readonly isLatest?: boolean;
  readonly isDeleteMarker?: boolean;
}

/** Where a report goes and what it holds. */
export interface ReportSpec {
  readonly sourceBucket: string;
  readonly configurationId: string;
  readonly destinationBucket: string;
  /** @default '' */
  readonly destinationPrefix?: string;
  /** `YYYY-MM-DDTHH-MMZ`. */
  readonly reportTime: string;
  readonly format: 'CSV' | 'Parquet' | 'ORC';
  readonly objects: readonly InventoryObject[];
  /** Lists VersionId, IsLatest, IsDeleteMarker (an inventory of every version). @default false */
  readonly versioned?: boolean;
  /** Rows per data file. @default 50,000 */
  readonly objectsPerFile?: number;
  /** Parquet rows per row group. @default 1,000 */
  readonly rowGroupSize?: number;
}

/** What a written report consists of. */
export interface WrittenReport {
  readonly manifestKey: string;
  readonly dataKeys: string[];
  readonly manifest: Record<string, unknown>;
}

/** The configuration folder in the destination: `[prefix/]source/config/`. */
export function reportBase(
  spec: Pick<ReportSpec, 'destinationPrefix' | 'sourceBucket' | 'configurationId'>,
): string {
  return `${spec.destinationPrefix ? `${spec.destinationPrefix}/` : ''}${spec.sourceBucket}/${spec.configurationId}/`;
}

/** A UUID-shaped name, the same for the same inputs. */
export function fixtureUuid(...parts: readonly (string | number)[]): string {
  const hex = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const CSV_FIELDS = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'ETag'];
const CSV_VERSION_FIELDS = [
  'Bucket',
  'Key',
  'VersionId',
  'IsLatest',
  'IsDeleteMarker',
  'Size',
  'LastModifiedDate',
  'ETag',
];

/** The manifest's `fileSchema` for a format. */
export function fileSchemaOf(format: ReportSpec['format'], versioned: boolean): string {
  if (format === 'CSV') return (versioned ? CSV_VERSION_FIELDS : CSV_FIELDS).join(', ');
  if (format === 'ORC') {
    return `struct<bucket:string,key:string,${versioned ? 'version_id:string,is_latest:boolean,is_delete_marker:boolean,' : ''}size:bigint,last_modified_date:timestamp,e_tag:string>`;
  }
  return (
    'message s3.inventory {  required binary bucket (STRING);  required binary key (STRING);' +
    (versioned
      ? '  optional binary version_id (STRING);  optional boolean is_latest;  optional boolean is_delete_marker;'
      : '') +
    '  optional int64 size;  optional int64 last_modified_date (TIMESTAMP(MILLIS,true));  optional binary e_tag (STRING);}'
  );
}

/** A key as CSV reports write it: form-URL-encoded (a space as `+`). */
export function csvEncodeKey(key: string): string {
  return encodeURIComponent(key).replace(/%20/g, '+');
}

/** One CSV line, every field quoted. */
export function csvLine(bucket: string, o: InventoryObject, versioned: boolean): string {
  const fields = versioned
    ? [
        bucket,
        csvEncodeKey(o.key),
        o.versionId ?? '',
        String(o.isLatest ?? true),
        String(o.isDeleteMarker ?? false),
        o.isDeleteMarker ? '' : String(o.size),
        new Date(o.lastModifiedMs).toISOString(),
        o.isDeleteMarker ? '' : o.eTag,
      ]
    : [bucket, csvEncodeKey(o.key), String(o.size), new Date(o.lastModifiedMs).toISOString(), o.eTag];
  return `"${fields.join('","')}"\n`;
}

/** A Parquet data file of `objects`, with S3's columns. */
export function parquetBytes(
  bucket: string,
  objects: readonly InventoryObject[],
  versioned: boolean,
  rowGroupSize = 1000,
  writer: ParquetWriterChoices = {},
): Buffer {
  const options = parquetOptions(bucket, objects, versioned, rowGroupSize);
  return Buffer.from(
    parquetWriteBuffer({
      ...options,
      ...(writer.codec ? { codec: writer.codec, compressors: { GZIP: (b: Uint8Array) => gzipSync(b) } } : {}),
      columnData: options.columnData.map((c) =>
        c.name === 'key' && writer.keyEncoding ? { ...c, encoding: writer.keyEncoding } : c,
      ),
    }),
  );
}

/** How {@link parquetBytes} writes: a codec other than Snappy, another encoding for the key column. */
export interface ParquetWriterChoices {
  readonly codec?: 'UNCOMPRESSED' | 'GZIP';
  readonly keyEncoding?: 'PLAIN' | 'DELTA_BYTE_ARRAY' | 'DELTA_LENGTH_BYTE_ARRAY';
}

function parquetOptions(
  bucket: string,
  objects: readonly InventoryObject[],
  versioned: boolean,
  rowGroupSize: number,
) {
  const text = (name: string, repetition: 'REQUIRED' | 'OPTIONAL') => ({
    name,
    type: 'BYTE_ARRAY' as const,
    converted_type: 'UTF8' as const,
    repetition_type: repetition,
  });
  const schema = [
    { name: 'schema', num_children: versioned ? 8 : 5 },
    text('bucket', 'REQUIRED'),
    text('key', 'REQUIRED'),
    ...(versioned
      ? [
          text('version_id', 'OPTIONAL'),
          { name: 'is_latest', type: 'BOOLEAN' as const, repetition_type: 'OPTIONAL' as const },
          { name: 'is_delete_marker', type: 'BOOLEAN' as const, repetition_type: 'OPTIONAL' as const },
        ]
      : []),
    { name: 'size', type: 'INT64' as const, repetition_type: 'OPTIONAL' as const },
    {
      name: 'last_modified_date',
      type: 'INT64' as const,
      converted_type: 'TIMESTAMP_MILLIS' as const,
      repetition_type: 'OPTIONAL' as const,
    },
    text('e_tag', 'OPTIONAL'),
  ];
  const column = <T>(name: string, pick: (o: InventoryObject) => T) => ({ name, data: objects.map(pick) });
  const columnData = [
    column('bucket', () => bucket),
    column('key', (o) => o.key),
    ...(versioned
      ? [
          column('version_id', (o) => o.versionId ?? null),
          column('is_latest', (o) => o.isLatest ?? true),
          column('is_delete_marker', (o) => o.isDeleteMarker ?? false),
        ]
      : []),
    column('size', (o) => (o.isDeleteMarker ? null : BigInt(o.size))),
    column('last_modified_date', (o) => BigInt(o.lastModifiedMs)),
    column('e_tag', (o) => (o.isDeleteMarker ? null : o.eTag)),
  ];
  return { columnData, schema, rowGroupSize };
}

function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('hex');
}

function manifestOf(
  spec: Omit<ReportSpec, 'objects'>,
  files: { key: string; size: number; MD5checksum: string }[],
): Record<string, unknown> {
  return {
    sourceBucket: spec.sourceBucket,
    destinationBucket: `arn:aws:s3:::${spec.destinationBucket}`,
    version: '2016-11-30',
    creationTimestamp: String(
      Date.parse(
        `${spec.reportTime.slice(0, 10)}T${spec.reportTime.slice(11, 13)}:${spec.reportTime.slice(14, 16)}:00Z`,
      ),
    ),
    fileFormat: spec.format,
    fileSchema: fileSchemaOf(spec.format, spec.versioned ?? false),
    files,
  };
}

function putManifest(
  server: LocalS3Server,
  spec: Omit<ReportSpec, 'objects'>,
  manifest: Record<string, unknown>,
): string {
  const key = `${reportBase(spec)}${spec.reportTime}/manifest.json`;
  const bytes = Buffer.from(JSON.stringify(manifest, null, 2));
  server.putObject(spec.destinationBucket, key, bytes);
  server.putObject(
    spec.destinationBucket,
    `${reportBase(spec)}${spec.reportTime}/manifest.checksum`,
    Buffer.from(md5(bytes)),
  );
  return key;
}

/** Writes a report (data files and manifest) into the server's destination bucket, in memory. */
export function writeReport(server: LocalS3Server, spec: ReportSpec): WrittenReport {
  const perFile = spec.objectsPerFile ?? 50_000;
  const versioned = spec.versioned ?? false;
  const files: { key: string; size: number; MD5checksum: string }[] = [];
  const extension = spec.format === 'CSV' ? 'csv.gz' : spec.format === 'Parquet' ? 'parquet' : 'orc';
  for (let start = 0, index = 0; start < Math.max(1, spec.objects.length); start += perFile, index++) {
    const slice = spec.objects.slice(start, start + perFile);
    const body =
      spec.format === 'CSV'
        ? gzipSync(Buffer.from(slice.map((o) => csvLine(spec.sourceBucket, o, versioned)).join('')))
        : spec.format === 'Parquet'
          ? parquetBytes(spec.sourceBucket, slice, versioned, spec.rowGroupSize)
          : Buffer.from('ORC-not-really');
    const key = `${reportBase(spec)}data/${fixtureUuid(spec.sourceBucket, spec.configurationId, spec.reportTime, index)}.${extension}`;
    server.putObject(spec.destinationBucket, key, body);
    files.push({ key, size: body.length, MD5checksum: md5(body) });
  }
  const manifest = manifestOf(spec, files);
  return { manifestKey: putManifest(server, spec, manifest), dataKeys: files.map((f) => f.key), manifest };
}

/**
 * Writes a large report's data files to `dir` (the bench's million-object
 * reports), streaming CSV through gzip; the server then serves them from disk.
 */
export async function writeReportToDisk(
  server: LocalS3Server,
  spec: Omit<ReportSpec, 'objects'> & {
    readonly count: number;
    readonly objectAt: (i: number) => InventoryObject;
  },
  dir: string,
): Promise<WrittenReport> {
  const perFile = spec.objectsPerFile ?? 250_000;
  const versioned = spec.versioned ?? false;
  const files: { key: string; size: number; MD5checksum: string }[] = [];
  for (let start = 0, index = 0; start < spec.count; start += perFile, index++) {
    const end = Math.min(spec.count, start + perFile);
    const uuid = fixtureUuid(spec.sourceBucket, spec.configurationId, spec.reportTime, index);
    const path = `${dir}/${uuid}.${spec.format === 'CSV' ? 'csv.gz' : 'parquet'}`;
    if (spec.format === 'CSV') {
      const gzip = createGzip();
      const out = createWriteStream(path);
      gzip.pipe(out);
      let batch = '';
      for (let i = start; i < end; i++) {
        batch += csvLine(spec.sourceBucket, spec.objectAt(i), versioned);
        if (batch.length > 1 << 20) {
          if (!gzip.write(batch)) await once(gzip, 'drain');
          batch = '';
        }
      }
      gzip.end(batch);
      await once(out, 'finish');
    } else {
      const objects = Array.from({ length: end - start }, (_, i) => spec.objectAt(start + i));
      parquetWriteFile({
        filename: path,
        ...parquetOptions(spec.sourceBucket, objects, versioned, spec.rowGroupSize ?? 100_000),
      });
    }
    const bytes = await readFile(path);
    const key = `${reportBase(spec)}data/${uuid}.${spec.format === 'CSV' ? 'csv.gz' : 'parquet'}`;
    server.putObject(spec.destinationBucket, key, { file: path });
    files.push({ key, size: bytes.length, MD5checksum: md5(bytes) });
  }
  const manifest = manifestOf(spec, files);
  return { manifestKey: putManifest(server, spec, manifest), dataKeys: files.map((f) => f.key), manifest };
}

/** A small, seeded PRNG (mulberry32): the same history on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Extensions of generated files and their weights. */
const EXTENSIONS: readonly (readonly [string, number])[] = [
  ['pdf', 30],
  ['docx', 20],
  ['jpg', 25],
  ['xlsx', 10],
  ['txt', 10],
  ['csv', 5],
];

/** Options of {@link generateHistory}. */
export interface HistoryOptions {
  readonly days: number;
  /** The first report's day, `YYYY-MM-DD`; reports are at 01:00 UTC. */
  readonly firstDay: string;
  readonly initialObjects: number;
  /** Ordinary churn per day. */
  readonly dailyAdds: number;
  readonly dailyChanges: number;
  readonly dailyDeletes: number;
  /** Day index (0-based) of an encryption wave: files rewritten as `<key>.<extension>`, a ransom note per folder. */
  readonly encryptionWave?: { readonly day: number; readonly files: number; readonly extension: string };
  /** Day index of a mass deletion. */
  readonly massDeletion?: { readonly day: number; readonly files: number };
  /** @default 7 */
  readonly seed?: number;
}

/** One generated day: its report time and the objects listed, sorted by key (as S3 lists them). */
export interface HistoryDay {
  readonly reportTime: string;
  readonly objects: InventoryObject[];
}

function dayTime(firstDay: string, day: number): { reportTime: string; ms: number } {
  const ms = Date.parse(`${firstDay}T01:00:00Z`) + day * 86_400_000;
  const iso = new Date(ms).toISOString();
  return { reportTime: `${iso.slice(0, 10)}T01-00Z`, ms };
}

/**
 * A bucket's objects day by day: `initialObjects` on day 0, then each day
 * `dailyAdds` new files, `dailyChanges` rewritten in place, `dailyDeletes`
 * deleted, plus the optional wave and deletion.
 */
export function generateHistory(options: HistoryOptions): HistoryDay[] {
  const random = seededRandom(options.seed ?? 7);
  const totalWeight = EXTENSIONS.reduce((sum, [, w]) => sum + w, 0);
  const pickExtension = () => {
    let r = random() * totalWeight;
    for (const [extension, weight] of EXTENSIONS) {
      r -= weight;
      if (r < 0) return extension;
    }
    return 'pdf';
  };
  let nextId = 0;
  const live = new Map<string, InventoryObject>();
  const create = (ms: number, key?: string): InventoryObject => {
    const id = nextId++;
    const name =
      key ?? `projects/team-${id % 20}/docs/file-${String(id).padStart(7, '0')}.${pickExtension()}`;
    return {
      key: name,
      size: 1024 + Math.floor(random() * 4 * 1024 * 1024),
      lastModifiedMs: ms - Math.floor(random() * 3_600_000),
      eTag: createHash('md5').update(`${name}|${id}`).digest('hex'),
    };
  };
  const pickKeys = (count: number) => {
    const keys = [...live.keys()];
    const chosen = new Set<string>();
    while (chosen.size < Math.min(count, keys.length))
      chosen.add(keys[Math.floor(random() * keys.length)] as string);
    return [...chosen];
  };
  const days: HistoryDay[] = [];
  for (let day = 0; day < options.days; day++) {
    const { reportTime, ms } = dayTime(options.firstDay, day);
    if (day === 0) {
      for (let i = 0; i < options.initialObjects; i++) {
        const o = create(ms - 86_400_000);
        live.set(o.key, o);
      }
    } else {
      for (const key of pickKeys(options.dailyDeletes)) live.delete(key);
      for (const key of pickKeys(options.dailyChanges)) live.set(key, { ...create(ms, key) });
      for (let i = 0; i < options.dailyAdds; i++) {
        const o = create(ms);
        live.set(o.key, o);
      }
    }
    const wave = options.encryptionWave;
    if (wave?.day === day) {
      const folders = new Set<string>();
      for (const key of pickKeys(wave.files)) {
        live.delete(key);
        const encrypted = create(ms, `${key}.${wave.extension}`);
        live.set(encrypted.key, encrypted);
        folders.add(key.slice(0, key.lastIndexOf('/') + 1));
      }
      for (const folder of folders) {
        const note = create(ms, `${folder}HOW_TO_DECRYPT_FILES.txt`);
        live.set(note.key, note);
      }
    }
    if (options.massDeletion?.day === day)
      for (const key of pickKeys(options.massDeletion.files)) live.delete(key);
    days.push({
      reportTime,
      objects: [...live.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    });
  }
  return days;
}

/** A fresh inventory row from text fields (what the CSV reader hands on), for tests of the index and samples. */
export function textRow(
  key: string,
  versionId: string,
  isDeleteMarker: boolean,
  size: number,
  lastModifiedMs: number,
  eTag: string,
): InventoryRow {
  return new InventoryRow().setText(key, versionId, isDeleteMarker, size, lastModifiedMs, eTag);
}
