/**
 * The no-content rail, proved over the code: no module a snapshot tool loads
 * imports an operation that returns object or block content, GetObject is
 * imported only by the guarded inventory reader and the workspace findings
 * store, and the guarded reader sends it only for keys its checks returned.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import ts from 'typescript';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { configurationView } from '../../../../functions/tools/snapshots/inventory/configuration';
import { InventoryObjectReader } from '../../../../functions/tools/snapshots/inventory/guarded-reader';
import { parseManifest } from '../../../../functions/tools/snapshots/inventory/manifest';
import { type ModuleFacts, reachableModules } from '../../../helpers/import-graph';

const ROOT = path.resolve(__dirname, '../../../..');
const SNAPSHOTS = path.join(ROOT, 'functions/tools/snapshots');
const TOOL_MODULES = [
  'list-snapshots',
  'snapshot-stats',
  'diff-snapshots',
  'inspect-finding',
  'scan-snapshots',
  'runner',
];

/** Operations that return object or block content, or hand out a way to read it. */
const CONTENT_OPERATIONS = new Set([
  'GetSnapshotBlockCommand',
  'SelectObjectContentCommand',
  'GetObjectTorrentCommand',
  'RestoreObjectCommand',
  'CopyObjectCommand',
  'UploadPartCopyCommand',
  'WriteGetObjectResponseCommand',
  'GetObjectAttributesCommand',
  'CreateSessionCommand',
]);
/** Packages that read or expose content by other means (presigned URLs, managed transfers, raw HTTP). */
const CONTENT_PACKAGES = [
  '@aws-sdk/s3-request-presigner',
  '@aws-sdk/lib-storage',
  '@aws-sdk/s3-presigned-post',
  'undici',
  'node:http',
  'node:https',
  'http',
  'https',
  'axios',
];
/**
 * SDK packages with an operation that returns content: a whole-module load of one
 * is allowed only to the lazy SDK loaders, whose exposed names are checked below.
 * The runtime's lazy loads (DynamoDB, STS, the credential chain) have none.
 */
const CONTENT_CAPABLE_PACKAGES = new Set(['@aws-sdk/client-s3', '@aws-sdk/client-ebs']);
/**
 * The one runtime module besides the lazy SDK loaders that loads the S3 SDK
 * whole: the client of the platform's own run workspaces, which a plan call's
 * claim-check (functions/runtime/tool-callback.ts) writes to `RUN_BUCKET` with
 * the vended run-data session, never a customer's bucket (proved below).
 */
const RUN_WORKSPACE_CLIENT = 'functions/runtime/workspace-s3.ts';
/** The only modules that may import GetObjectCommand, and what for. */
const GET_OBJECT_MODULES = new Set([
  'functions/tools/snapshots/inventory/guarded-reader.ts', // inventory manifests and data files only
  'functions/tools/snapshots/findings/s3-store.ts', // the run's own findings document in the platform's workspace
]);

function allSnapshotModules(dir = SNAPSHOTS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? allSnapshotModules(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

const modules = reachableModules([
  ...TOOL_MODULES.map((name) => path.join(SNAPSHOTS, `${name}.ts`)),
  ...allSnapshotModules(),
]);
const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

describe('the no-content rail, in code', () => {
  it('follows the tools into their modules (runtime included)', () => {
    const files = modules.map((m) => rel(m.file));

    expect(files).toEqual(
      expect.arrayContaining([
        'functions/tools/snapshots/inventory/guarded-reader.ts',
        'functions/tools/snapshots/ebs.ts',
        'functions/runtime/harness.ts',
        'functions/runtime/aws/region-fan-out.ts',
        'functions/runtime/aws/credentials.ts',
      ]),
    );
  });

  it('imports no operation that returns object or block content, anywhere a tool reaches', () => {
    const offending = modules.flatMap((m) =>
      [...m.imports].flatMap(([specifier, names]) => [
        ...(CONTENT_PACKAGES.includes(specifier) ? [`${rel(m.file)} imports ${specifier}`] : []),
        ...(specifier.startsWith('@aws-sdk/')
          ? names
              .filter(
                (n) =>
                  CONTENT_OPERATIONS.has(n) ||
                  (n === '*' &&
                    CONTENT_CAPABLE_PACKAGES.has(specifier) &&
                    !rel(m.file).endsWith('/lazy-sdk.ts') &&
                    rel(m.file) !== RUN_WORKSPACE_CLIENT),
              )
              .map((n) => `${rel(m.file)} imports ${n} from ${specifier}`)
          : []),
      ]),
    );

    expect(offending).toEqual([]);
  });

  it("reaches the run workspaces' client only from the claim-check, on RUN_BUCKET with the run-data session", () => {
    const importers = modules
      .filter((m) => [...m.imports.keys()].some((specifier) => specifier.endsWith('/workspace-s3')))
      .map((m) => rel(m.file));
    const callback = modules
      .find((m) => rel(m.file) === 'functions/runtime/tool-callback.ts')
      ?.source.getText();

    expect(importers).toEqual(['functions/runtime/tool-callback.ts']);
    expect(callback).toMatch(
      /const bucket = process\.env\.RUN_BUCKET;[\s\S]*s3WorkspaceProvider\(\s*bucket,\s*undefined,\s*\(tenant\) => vended\.credentials\(tenant, RUN_DATA_SESSION\),/,
    );
  });

  it('imports GetObjectCommand only in the guarded inventory reader and the workspace findings store', () => {
    const importers = modules
      .filter((m) => (m.imports.get('@aws-sdk/client-s3') ?? []).includes('GetObjectCommand'))
      .map((m) => rel(m.file))
      .sort();

    expect(importers).toEqual([...GET_OBJECT_MODULES].sort());
  });

  it('loads EC2, the EBS direct APIs and Athena lazily, exposing only snapshot metadata, the two block list calls and the query calls', () => {
    const loader = modules.find((m) => rel(m.file).endsWith('/lazy-sdk.ts')) as ModuleFacts;
    const exposed = (sdk: string) =>
      new RegExp(`Pick<\\s*typeof ${sdk},\\s*([^>]+)>`).exec(loader.source.getText())?.[1]?.match(/\w+/g);
    const valueImports = (pkg: string) =>
      modules.flatMap((m) => (m === loader ? [] : (m.imports.get(pkg) ?? [])));

    expect([...loader.imports.keys()].sort()).toEqual([
      '@aws-sdk/client-athena',
      '@aws-sdk/client-ebs',
      '@aws-sdk/client-ec2',
    ]);
    expect(exposed('Athena')).toEqual([
      'AthenaClient',
      'StartQueryExecutionCommand',
      'GetQueryExecutionCommand',
      'paginateGetQueryResults',
    ]);
    expect(valueImports('@aws-sdk/client-athena')).toEqual([]);
    expect(exposed('Ec2')).toEqual(['EC2Client', 'DescribeSnapshotsCommand', 'paginateDescribeSnapshots']);
    expect(exposed('Ebs')).toEqual(['EBSClient', 'paginateListSnapshotBlocks', 'paginateListChangedBlocks']);
    expect(valueImports('@aws-sdk/client-ebs')).toEqual([]);
  });

  it('has the guarded reader build GetObject in one place, only for keys its checks returned', () => {
    const reader = modules.find((m) => rel(m.file).endsWith('guarded-reader.ts')) as ModuleFacts;
    const constructions: string[] = [];
    const getCalls: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText() === 'GetObjectCommand')
        constructions.push(node.getText());
      if (ts.isCallExpression(node) && node.expression.getText() === 'this.get')
        getCalls.push(node.arguments[0]?.getText() ?? '');
      ts.forEachChild(node, visit);
    };
    visit(reader.source);

    expect(constructions).toHaveLength(1);
    expect(getCalls).toEqual(['this.checkManifest(key)', 'this.checkDataFile(key)']);
  });
});

describe('the guarded reader', () => {
  const configuration = configurationView('photos', {
    Id: 'daily',
    IsEnabled: true,
    IncludedObjectVersions: 'Current',
    Schedule: { Frequency: 'Daily' },
    Destination: {
      S3BucketDestination: { Bucket: 'arn:aws:s3:::inventory-dest', Format: 'CSV', Prefix: 'inv' },
    },
  });
  const s3 = new S3Client({ region: 'us-east-1' });
  const send = jest.spyOn(s3, 'send').mockImplementation(() => {
    throw new Error('no request may be sent for a refused key');
  });
  const reader = new InventoryObjectReader(s3, configuration, deadlineIn(10_000));

  it.each([
    'inv/photos/daily/data/finance-q3.csv.gz',
    'inv/photos/other/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz',
    'photos/daily/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz',
    'inv/photos/daily/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.docx',
    'inv/photos/daily/data/../../../secrets/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz',
    'inv/photos/daily/2026-03-01T01-00Z/manifest.json',
  ])('refuses to open %s as a data file, sending nothing', async (key) => {
    await expect(reader.openDataFile(key)).rejects.toMatchObject({
      code: 'upstream_error',
      details: { rail: 'no_content' },
    });
    expect(send).not.toHaveBeenCalled();
  });

  it('refuses a manifest that lists a file outside the inventory', () => {
    const manifest = {
      sourceBucket: 'photos',
      destinationBucket: 'arn:aws:s3:::inventory-dest',
      version: '2016-11-30',
      creationTimestamp: '1772326800000',
      fileFormat: 'CSV',
      fileSchema: 'Bucket, Key, Size, LastModifiedDate, ETag',
      files: [
        { key: 'photos/payroll/2026-03.csv.gz', size: 10, MD5checksum: 'f11166069f1990abeb9c97ace9cdfabc' },
      ],
    };

    expect(() => parseManifest(Buffer.from(JSON.stringify(manifest)), configuration, 'report')).toThrow(
      expect.objectContaining({
        code: 'upstream_error',
        details: expect.objectContaining({ rail: 'no_content' }),
      }),
    );
  });
});
