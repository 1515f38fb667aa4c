/**
 * `etp tools docs --write <file>` writes the file whole or not at all: a write that fails
 * part-way (here the process's file size limit, `ulimit -f`, as a full disk would) leaves
 * the previous file as it was and no partial or temporary file behind.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { toolCatalogMarkdown } from '../../../bin/cli/tool-docs';
import { toolCatalog } from '../../../functions/tools/catalog';

const BIN = path.join(__dirname, '../../../bin/etp.js');

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'etp-docs-write-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `etp tools docs --write <file>` in a shell whose file size limit is `blocks` × 1 KiB (bash's ulimit -f). */
function writeDocs(file: string, blocks?: number) {
  const limit = blocks === undefined ? '' : `ulimit -f ${blocks}; `;
  const outcome = spawnSync(
    'bash',
    ['-c', `${limit}exec "$0" "$1" tools docs --write "$2"`, process.execPath, BIN, file],
    {
      encoding: 'utf8',
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
      timeout: 60_000,
    },
  );
  return { code: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr };
}

describe('etp tools docs --write', () => {
  it('leaves the previous file whole, and nothing else, when the write fails part-way', () => {
    // Prepare: the catalog is far larger than the 8 KiB limit
    const file = path.join(dir, 'tools.md');
    writeFileSync(file, 'the previous catalog\n');
    expect(Buffer.byteLength(toolCatalogMarkdown(toolCatalog.list()))).toBeGreaterThan(8 * 1024);

    // Act
    const outcome = writeDocs(file, 8);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --write ${file}: cannot write it (EFBIG); give a file in a directory you can write\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('the previous catalog\n');
    expect(readdirSync(dir)).toEqual(['tools.md']);
  }, 60_000);

  it('replaces the file with the whole catalog, through a symbolic link too, leaving no temporary file', () => {
    // Prepare
    const file = path.join(dir, 'tools.md');
    writeFileSync(file, 'the previous catalog\n');
    symlinkSync(file, path.join(dir, 'link.md'));

    // Act
    const outcome = writeDocs(path.join(dir, 'link.md'));

    // Assess
    expect(outcome.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(toolCatalogMarkdown(toolCatalog.list()));
    expect(readdirSync(dir).sort()).toEqual(['link.md', 'tools.md']);
  }, 60_000);
});
