import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import {
  findingsStoreFromEnvironment,
  runKeyOf,
} from '../../../../functions/tools/snapshots/findings/environment';
import type { FindingsDocument, RunKey } from '../../../../functions/tools/snapshots/findings/model';
import { S3FindingsStore } from '../../../../functions/tools/snapshots/findings/s3-store';
import {
  type FindingsStore,
  findingsKey,
  LocalDirFindingsStore,
  MemoryFindingsStore,
} from '../../../../functions/tools/snapshots/findings/store';
import { DEFAULT_THRESHOLDS } from '../../../../functions/tools/snapshots/findings/thresholds';

const RUN: RunKey = { tenant: 'acme', scenario: 'snapshot_forensics', runId: 'run-2026-03-10' };
const RUN_R1: RunKey = { tenant: 'acme', scenario: 'snapshot_forensics', runId: 'r1' };

/** A document with one finding, marked by `label`. */
function documentOf(label: string, run: RunKey = RUN): FindingsDocument {
  return {
    version: 1,
    run,
    createdAt: '2026-03-10T02:00:00.000Z',
    callId: 'scan/0',
    scope: { since: '2026-03-07T02:00:00.000Z', sources: ['s3_inventory:photos/daily'], truncated: false },
    thresholds: DEFAULT_THRESHOLDS,
    sources: [
      {
        source: 's3_inventory:photos/daily',
        ok: true,
        snapshotsExamined: 3,
        snapshotsRead: 11,
        findings: 1,
        notes: [],
      },
    ],
    findings: [
      {
        id: 'change_spike:0123456789abcdef',
        check: 'change_spike',
        severity: 'high',
        source: 's3_inventory:photos/daily',
        snapshot: 's3_inventory:photos/daily/2026-03-09T01-00Z',
        title: label,
        evidence: { newBytes: 1 },
        verify: ['step'],
      },
    ],
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-findings-'));
  dirs.push(dir);
  return dir;
}

describe.each([
  ['memory', () => new MemoryFindingsStore()],
  ['local directory', () => new LocalDirFindingsStore(tempDir())],
] as const)('%s findings store', (_name, make: () => FindingsStore) => {
  it('has nothing for a run before a scan', async () => {
    await expect(make().get(RUN)).resolves.toBeUndefined();
  });

  it('keeps the first document of a run: a second put gets the first back', async () => {
    const store = make();

    const first = await store.put(RUN, documentOf('first'));
    const second = await store.put(RUN, documentOf('second'));

    expect(first).toEqual({ document: documentOf('first'), created: true });
    expect(second).toEqual({ document: documentOf('first'), created: false });
    await expect(store.get(RUN)).resolves.toEqual(documentOf('first'));
  });

  it('keeps runs, scenarios and tenants apart', async () => {
    const store = make();
    await store.put(RUN, documentOf('acme'));

    await expect(store.get({ ...RUN, tenant: 'globex' })).resolves.toBeUndefined();
    await expect(store.get({ ...RUN, runId: 'run-other' })).resolves.toBeUndefined();
    await expect(store.get({ ...RUN, scenario: 'adhoc' })).resolves.toBeUndefined();
  });

  it('is not changed by mutating the document after a put', async () => {
    const store = make();
    const document = documentOf('original');
    await store.put(RUN, document);

    (document.findings as unknown as { title: string }[])[0] = { title: 'mutated' };

    await expect(store.get(RUN)).resolves.toEqual(documentOf('original'));
  });
});

describe('findings keys', () => {
  it("place a document in its run's workspace, or the scratch space of a call outside a scenario", () => {
    expect(findingsKey(RUN)).toBe('runs/acme/snapshot_forensics/run-2026-03-10/snapshots/findings.json');
    expect(findingsKey({ tenant: 'acme', runId: 'r1' })).toBe('scratch/acme/r1/snapshots/findings.json');
  });

  it('refuse run keys that could leave the folder', () => {
    expect(() => findingsKey({ ...RUN, runId: '../other' })).toThrow('run id');
    expect(() => findingsKey({ ...RUN, tenant: '../x' })).toThrow('tenant id');
    expect(() => findingsKey({ ...RUN, scenario: 'A/B' })).toThrow('snake_case');
  });

  it('carry no scenario for calls made outside one', () => {
    expect(runKeyOf({ tenant: 'acme', runId: 'r1' })).toEqual({ tenant: 'acme', runId: 'r1' });
    expect(runKeyOf({ tenant: 'acme', runId: 'r1', scenario: 'snapshot_forensics' })).toEqual(RUN_R1);
  });

  it('are written where the local store says, as JSON', async () => {
    const dir = tempDir();
    await new LocalDirFindingsStore(dir).put(RUN, documentOf('on disk'));

    const file = path.join(
      dir,
      'runs',
      'acme',
      'snapshot_forensics',
      'run-2026-03-10',
      'snapshots',
      'findings.json',
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(documentOf('on disk'));
  });
});

describe('findingsStoreFromEnvironment', () => {
  it("uses the workspace bucket when set, else (outside Lambda) the local workspaces' directory", async () => {
    expect(findingsStoreFromEnvironment({ RUN_BUCKET: 'etp-workspace' })).toBeInstanceOf(S3FindingsStore);
    const dir = tempDir();
    const local = findingsStoreFromEnvironment({ ETP_LOCAL_DIR: dir });
    expect(local).toBeInstanceOf(LocalDirFindingsStore);
    await local.put(RUN, documentOf('local'));
    expect(readFileSync(path.join(dir, ...findingsKey(RUN).split('/')), 'utf8')).toContain('local');
  });

  it("reads and writes with the call's vended run-data session, in a store of the call's own", async () => {
    // Prepare: the session the dispatcher vended for this call (ctx.runData)
    const session = {
      accessKeyId: 'ASIARUNDATA',
      secretAccessKey: 'fake-run-data-secret',
      sessionToken: 'fake-run-data-token',
      expiration: new Date('2030-01-01T00:00:00Z'),
    };
    const credentials = jest.fn(async () => session);
    const env = { RUN_BUCKET: 'etp-workspace', AWS_REGION: 'eu-west-1' };

    // Act
    const first = findingsStoreFromEnvironment(env, credentials);
    const second = findingsStoreFromEnvironment(env, credentials);
    const own = findingsStoreFromEnvironment(env);
    const client = (first as unknown as { readonly s3: S3Client }).s3;

    // Assess: no store (and no session) outlives its call; the process's own store is kept apart
    expect(first).toBeInstanceOf(S3FindingsStore);
    expect(second).not.toBe(first);
    expect(own).not.toBe(first);
    expect(findingsStoreFromEnvironment(env)).toBe(own);
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'ASIARUNDATA' });
    expect(credentials).toHaveBeenCalled();
  });

  it('fails in a Lambda function without RUN_BUCKET instead of keeping findings in its /tmp', () => {
    expect(() => findingsStoreFromEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'etp-scan-snapshots' })).toThrow(
      'this function has no RUN_BUCKET',
    );
  });
});

describe('S3 findings store under a role that may list only the findings key', () => {
  const s3 = mockClient(S3Client);
  const accessDenied = () =>
    new S3ServiceException({
      name: 'AccessDenied',
      message: 'Access Denied',
      $fault: 'client',
      $metadata: {},
    });

  beforeEach(() => {
    s3.reset();
  });

  it('reads a 403 for a key the listing does not hold as no document yet, listing exactly that key', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(accessDenied());
    s3.on(ListObjectsV2Command).resolves({ Contents: [] });
    const store = new S3FindingsStore(new S3Client({ region: 'eu-west-1' }), { bucket: 'etp-runs' });

    // Act
    const found = await store.get(RUN);

    // Assess
    expect(found).toBeUndefined();
    expect(s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'etp-runs', Prefix: findingsKey(RUN), MaxKeys: 1 },
    ]);
  });

  it('keeps a 403 for a key that exists: the read was refused', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(accessDenied());
    s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: findingsKey(RUN) }] });
    const store = new S3FindingsStore(new S3Client({ region: 'eu-west-1' }), { bucket: 'etp-runs' });

    // Act, Assess
    await expect(store.get(RUN)).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});
