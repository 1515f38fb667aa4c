import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalDirectoryWorkspace } from '../../../bin/local/local-workspace';
import { InvalidArgsError } from '../../../functions/runtime/errors';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import type { Workspace, WorkspaceScope } from '../../../functions/runtime/workspace';
import { WorkspaceConflictError } from '../../../functions/runtime/workspace-content';
import { S3Workspace } from '../../../functions/runtime/workspace-s3';
import { startLocalS3 } from '../../helpers/s3-server';
import { filesUnder, WORKSPACE_BACKENDS, type WorkspaceBackend } from '../../helpers/workspace-backends';
import { WORKSPACE_ESCAPES } from '../../helpers/workspace-escapes';

const RUN: WorkspaceScope = { tenant: 'acme', scenario: 'aws_pulse', runId: 'run-1' };
const RUN_ROOT = 'runs/acme/aws_pulse/run-1/';
/** Files of other runs and tenants, planted before the escapes are tried: they must stay as they are. */
const VICTIMS: readonly (readonly [WorkspaceScope, string])[] = [
  [{ tenant: 'acme', scenario: 'aws_pulse', runId: 'other-run' }, 'notes.md'],
  [{ tenant: 'other-tenant', scenario: 'aws_pulse', runId: 'r9' }, 'x'],
  [{ tenant: 'acme', runId: 'r2' }, 'x'],
];
const VICTIM_KEYS = [
  'runs/acme/aws_pulse/other-run/notes.md',
  'runs/other-tenant/aws_pulse/r9/x',
  'scratch/acme/r2/x',
];

describe.each(WORKSPACE_BACKENDS)('%s workspace', (_name, start) => {
  let backend: WorkspaceBackend;
  let workspace: Workspace;

  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    await backend.stop();
  });
  beforeEach(() => {
    workspace = backend.open(RUN);
  });

  it('writes, reads back and lists files under the run prefix, with sizes and digests', async () => {
    // Act
    const written = await workspace.write('reports/pulse.md', '# Pulse\n12 instances\n', undefined, {
      metadata: { 'etp-call': 'report/0' },
    });
    await workspace.write('notes.md', 'n');
    const read = await workspace.read('reports/pulse.md');
    const listed = await workspace.list();

    // Assess
    expect(workspace.uri).toBe(`${backend.uriBase}${RUN_ROOT}`);
    expect(written).toMatchObject({
      path: 'reports/pulse.md',
      bytes: 21,
      sha256: createHash('sha256').update('# Pulse\n12 instances\n').digest('hex'),
    });
    expect(read).toMatchObject({
      path: 'reports/pulse.md',
      content: '# Pulse\n12 instances\n',
      offset: 0,
      bytes: 21,
      totalBytes: 21,
      metadata: { 'etp-call': 'report/0' },
    });
    expect(read.etag).toEqual(expect.any(String));
    expect(listed.map(({ path: file, bytes }) => [file, bytes])).toEqual([
      ['notes.md', 1],
      ['reports/pulse.md', 21],
    ]);
    expect(await backend.keys()).toEqual(
      expect.arrayContaining([`${RUN_ROOT}notes.md`, `${RUN_ROOT}reports/pulse.md`]),
    );
  });

  it('reads byte slices moved to whole UTF-8 characters, and an empty slice past the end', async () => {
    // Prepare: é is 2 bytes (1-2), ö 2 bytes (8-9), ✓ 3 bytes (14-16); 17 bytes in all.
    await workspace.write('utf8.txt', 'héllo wörld ✓');

    // Act
    const slices = await Promise.all([
      workspace.read('utf8.txt', { offset: 0, length: 2 }), // ends inside é: moved back before it
      workspace.read('utf8.txt', { offset: 2, length: 4 }), // starts inside é: moved forward
      workspace.read('utf8.txt', { offset: 14, length: 1 }), // shorter than ✓: the whole character
      workspace.read('utf8.txt', { offset: 6 }), // to the end
      workspace.read('utf8.txt', { offset: 99, length: 10 }), // past the end
    ]);

    // Assess
    expect(
      slices.map(({ content, offset, bytes, totalBytes }) => [content, offset, bytes, totalBytes]),
    ).toEqual([
      ['h', 0, 1, 17],
      ['llo', 3, 3, 17],
      ['✓', 14, 3, 17],
      [' wörld ✓', 6, 11, 17],
      ['', 17, 0, 17],
    ]);
  });

  it('answers not_found for a missing file, naming it', async () => {
    await expect(workspace.read('missing/file.md')).rejects.toMatchObject({
      code: 'not_found',
      message: 'No file "missing/file.md" in this run\'s workspace; list_files shows the files it holds',
    });
  });

  it('lists by prefix, in path order, at most the limit', async () => {
    // Prepare
    await Promise.all(['b.txt', 'a.txt', 'c/d.txt'].map((file) => workspace.write(`list/${file}`, file)));

    // Act
    const all = await workspace.list('list/');
    const firstTwo = await workspace.list('list/', { limit: 2 });
    const byName = await workspace.list('list/c');

    // Assess
    expect(all.map((file) => file.path)).toEqual(['list/a.txt', 'list/b.txt', 'list/c/d.txt']);
    expect(firstTwo.map((file) => file.path)).toEqual(['list/a.txt', 'list/b.txt']);
    expect(byName.map((file) => file.path)).toEqual(['list/c/d.txt']);
  });

  it('keeps scratch workspaces and other tenants apart', async () => {
    // Prepare
    const scratch = backend.open({ tenant: 'acme', runId: 'run-1' });
    const otherTenant = backend.open({ tenant: 'globex', scenario: 'aws_pulse', runId: 'run-1' });

    // Act
    await scratch.write('levels/cli/finish.json', '{}');

    // Assess
    expect(scratch.uri.endsWith('scratch/acme/run-1/')).toBe(true);
    expect(await otherTenant.list()).toEqual([]);
    expect(await backend.keys()).toContain('scratch/acme/run-1/levels/cli/finish.json');
  });

  describe('refuses every escape of the corpus, and writes nothing outside the run prefix', () => {
    beforeAll(async () => {
      for (const [scope, file] of VICTIMS) await backend.open(scope).write(file, 'victim');
    });

    it.each(WORKSPACE_ESCAPES.map((attempt) => [attempt.name, attempt]))('%s', async (_name, attempt) => {
      // Act
      const attempts = [
        workspace.write(attempt.path, 'overwritten'),
        workspace.read(attempt.path),
        ...(attempt.path === '' ? [] : [workspace.list(attempt.path)]),
      ];

      // Assess
      for (const call of attempts) {
        await expect(call).rejects.toThrow(InvalidArgsError);
      }
      await expect(workspace.write(attempt.path, 'x')).rejects.toThrow(attempt.reason);
    });

    it('left every other run and tenant as they were: all keys are under the run prefix or the victims', async () => {
      // Act
      const keys = await backend.keys();

      // Assess
      const outside = keys.filter(
        (key) => !key.startsWith(RUN_ROOT) && !key.startsWith('scratch/acme/run-1/'),
      );
      expect(outside).toEqual(VICTIM_KEYS);
      for (const [scope, file] of VICTIMS) {
        expect((await backend.open(scope).read(file)).content).toBe('victim');
      }
    });
  });
});

describe('local directory workspace: links and conditional writes', () => {
  let baseDir: string;
  let outside: string;

  beforeEach(async () => {
    baseDir = await mkdtemp(path.join(tmpdir(), 'etp-workspace-links-'));
    outside = await mkdtemp(path.join(tmpdir(), 'etp-workspace-outside-'));
    await writeFile(path.join(outside, 'secret.txt'), 'outside');
  });
  afterEach(async () => {
    await rm(baseDir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const open = (scope: WorkspaceScope = RUN) => new LocalDirectoryWorkspace({ baseDir, scope });

  it('creates its base directory private to its owner', async () => {
    // Prepare
    const nested = path.join(baseDir, 'nested');

    // Act
    await new LocalDirectoryWorkspace({ baseDir: nested, scope: RUN }).write('x.md', 'x');

    // Assess
    expect((await stat(nested)).mode & 0o777).toBe(0o700);
  });

  it('never follows a folder link out of the run: reads and writes through it are refused', async () => {
    // Prepare
    const workspace = open();
    await workspace.write('keep.md', 'k');
    await symlink(outside, path.join(baseDir, RUN_ROOT, 'link'));

    // Act
    const read = workspace.read('link/secret.txt');
    const write = workspace.write('link/planted.txt', 'planted');

    // Assess
    await expect(read).rejects.toThrow('goes through a symbolic link, which workspaces never follow');
    await expect(write).rejects.toThrow(InvalidArgsError);
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect((await workspace.list()).map((file) => file.path)).toEqual(['keep.md']);
  });

  it('never follows a file link: reading or replacing it is refused, its target untouched', async () => {
    // Prepare
    const workspace = open();
    await mkdir(path.join(baseDir, RUN_ROOT), { recursive: true });
    await symlink(path.join(outside, 'secret.txt'), path.join(baseDir, RUN_ROOT, 'secret.txt'));

    // Act
    const read = workspace.read('secret.txt');
    const write = workspace.write('secret.txt', 'overwritten');

    // Assess
    await expect(read).rejects.toThrow(InvalidArgsError);
    await expect(write).rejects.toThrow(InvalidArgsError);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside');
  });

  it('refuses a tenant folder swapped for a link to another place', async () => {
    // Prepare
    await mkdir(path.join(baseDir, 'runs'), { recursive: true });
    await symlink(outside, path.join(baseDir, 'runs', 'acme'));

    // Act
    const write = open().write('x.md', 'x');

    // Assess
    await expect(write).rejects.toThrow('goes through a symbolic link');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses a folder swapped for a link after earlier writes went through it (no check is skipped once a folder is known)', async () => {
    // Prepare: a first write makes and checks the folders; then the run's folder becomes a link
    const workspace = open();
    await workspace.write('notes/a.md', 'a');
    await rm(path.join(baseDir, RUN_ROOT, 'notes'), { recursive: true });
    await symlink(outside, path.join(baseDir, RUN_ROOT, 'notes'));

    // Act
    const write = open().write('notes/b.md', 'b');

    // Assess
    await expect(write).rejects.toThrow('goes through a symbolic link');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it("refuses a tenant folder swapped for a link to a copy of its folders (the file's folder exists, through the link)", async () => {
    // Prepare: the run's folders exist under `outside`, and runs/acme points there
    const relativeRun = path.relative(path.join('runs', 'acme'), RUN_ROOT);
    await mkdir(path.join(outside, relativeRun, 'notes'), { recursive: true });
    await mkdir(path.join(baseDir, 'runs'), { recursive: true });
    await symlink(outside, path.join(baseDir, 'runs', 'acme'));

    // Act
    const write = open().write('notes/planted.md', 'planted');
    const read = open().read('notes/planted.md');

    // Assess
    await expect(write).rejects.toThrow('goes through a symbolic link');
    await expect(read).rejects.toThrow('goes through a symbolic link');
    expect(await readdir(path.join(outside, relativeRun, 'notes'))).toEqual([]);
  });

  it('writes again after its temporary and metadata folders were removed by hand', async () => {
    // Prepare
    await open().write('a.md', 'a', undefined, { metadata: { 'etp-call': 'report/0' } });
    await rm(path.join(baseDir, '.tmp'), { recursive: true });
    await rm(path.join(baseDir, '.meta'), { recursive: true });

    // Act
    await open().write('b.md', 'b', undefined, { metadata: { 'etp-call': 'report/1' } });
    await open().write('a.md', 'a2');

    const b = await open().read('b.md');
    await open().write('b.md', 'b2');

    // Assess: b with its metadata, then rewritten without any, none of its earlier version's kept
    const [a, b2] = [await open().read('a.md'), await open().read('b.md')];
    expect([a.content, a.metadata, b.content, b.metadata, b2.content, b2.metadata]).toEqual([
      'a2',
      {},
      'b',
      { 'etp-call': 'report/1' },
      'b2',
      {},
    ]);
  });

  it('writes with ifMatch only over the version it names', async () => {
    // Prepare
    const workspace = open();
    await workspace.write('draft.md', 'v1');
    const { etag } = await workspace.read('draft.md');
    await workspace.write('draft.md', 'v2', undefined, { ifMatch: etag });

    // Act
    const stale = workspace.write('draft.md', 'v3', undefined, { ifMatch: etag });

    // Assess
    await expect(stale).rejects.toThrow(WorkspaceConflictError);
    expect((await workspace.read('draft.md')).content).toBe('v2');
    expect(await filesUnder(path.join(baseDir, '.tmp'))).toEqual([]);
  });
});

describe('S3 workspace and the call deadline', () => {
  it('sends no request once the call is past its deadline: an aborted signal fails as timeout', async () => {
    // Prepare
    const s3 = await startLocalS3();
    const controller = new AbortController();
    controller.abort();
    const workspace = new S3Workspace({
      bucket: s3.bucket,
      scope: RUN,
      signal: controller.signal,
      clientConfig: s3.clientConfig,
    });

    try {
      // Act
      const error = await workspace.write('late.md', 'late').catch((err: unknown) => err);

      // Assess
      expect(normalizeError('write_file', error, 's3')).toMatchObject({ code: 'timeout', retryable: true });
      expect(await s3.keys()).toEqual([]);
    } finally {
      await s3.stop();
    }
  });
});
