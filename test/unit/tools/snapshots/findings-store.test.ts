import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
  it('place a document in its run folder', () => {
    expect(findingsKey(RUN)).toBe('acme/snapshot_forensics/run-2026-03-10/snapshots/findings.json');
  });

  it('refuse run keys that could leave the folder', () => {
    expect(() => findingsKey({ ...RUN, runId: '../other' })).toThrow('run id');
    expect(() => findingsKey({ ...RUN, tenant: '../x' })).toThrow('tenant id');
    expect(() => findingsKey({ ...RUN, scenario: 'A/B' })).toThrow('snake_case');
  });

  it('use "adhoc" for calls made outside a scenario', () => {
    expect(runKeyOf({ tenant: 'acme', runId: 'r1' })).toEqual({
      tenant: 'acme',
      scenario: 'adhoc',
      runId: 'r1',
    });
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
  it('uses the workspace bucket when set, else the local directory, else fails naming both', () => {
    expect(findingsStoreFromEnvironment({ RUN_WORKSPACE_BUCKET: 'etp-workspace' })).toBeInstanceOf(
      S3FindingsStore,
    );
    expect(findingsStoreFromEnvironment({ ETP_WORKSPACE_DIR: tempDir() })).toBeInstanceOf(
      LocalDirFindingsStore,
    );
    expect(() => findingsStoreFromEnvironment({})).toThrow(
      'RUN_WORKSPACE_BUCKET (deployed) or ETP_WORKSPACE_DIR',
    );
  });
});
