/**
 * Stack traces of a real function bundle (esbuild, the platform's options,
 * functions/runtime/source-map-stacks-install.ts injected) without
 * `--enable-source-maps`: no source map is read when the bundle is required, and
 * the first stack formatted names the TypeScript file, line and column.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { LAMBDA_BUILD_OPTIONS, PROJECT_ROOT } from '../../../bench/bundles';
import { RECORD_MAP_READS } from '../../helpers/map-reads';

/** The function's entry: a throw on a known line, after enough code that the minified column is far from it. */
const ENTRY_SOURCE = [
  'export class Ledger {',
  '  private readonly rows: number[] = [];',
  '  add(value: number): number {',
  '    this.rows.push(value);',
  '    return this.rows.reduce((sum, row) => sum + row, 0);',
  '  }',
  '}',
  '',
  'export function fail(): never {',
  "  throw new TypeError('probe');",
  '}',
  '',
  'export function stackOf(): string {',
  '  try {',
  '    fail();',
  '  } catch (error) {',
  '    return (error as Error).stack ?? "";',
  '  }',
  '}',
  '',
].join('\n');

/**
 * Runs in a fresh node (no flags): records every `.map` path the process opens
 * through `fs`, requires the bundle, then formats two stacks and a Node error's.
 */
const CHILD_SOURCE = `${RECORD_MAP_READS}const bundle = require(process.argv[2]);
const readAtLoad = [...reads];
const first = bundle.stackOf();
const second = bundle.stackOf();
let nodeError = '';
try { fs.readFileSync('/etp-no-such-file'); } catch (error) { nodeError = error.stack; }
process.stdout.write(JSON.stringify({ readAtLoad, reads, first, second, nodeError }));
`;

interface ChildReport {
  readonly readAtLoad: string[];
  readonly reads: string[];
  readonly first: string;
  readonly second: string;
  readonly nodeError: string;
}

/** The 1-based line and column where `text` starts in the entry source. */
function positionOf(text: string): { line: number; column: number } {
  const lines = ENTRY_SOURCE.split('\n');
  const line = lines.findIndex((l) => l.includes(text));
  return { line: line + 1, column: (lines[line] ?? '').indexOf(text) + 1 };
}

describe('stack traces mapped on the first stack formatted', () => {
  let dir: string;
  let entry: string;
  let bundleFile: string;
  let child: string;
  let report: ChildReport;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'etp-source-map-stacks-'));
    entry = path.join(dir, 'entry.ts');
    bundleFile = path.join(dir, 'out', 'index.js');
    child = path.join(dir, 'child.js');
    writeFileSync(entry, ENTRY_SOURCE);
    writeFileSync(child, CHILD_SOURCE);
    await build({
      ...LAMBDA_BUILD_OPTIONS,
      entryPoints: [entry],
      outfile: bundleFile,
      absWorkingDir: PROJECT_ROOT,
    });
    const env = { PATH: process.env.PATH };
    report = JSON.parse(
      execFileSync(process.execPath, [child, bundleFile], { env }).toString(),
    ) as ChildReport;
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bundles a minified file whose map is linked, not inlined', () => {
    // Prepare, Act
    const code = readFileSync(bundleFile, 'utf8');

    // Assess
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.js\.map\s*$/);
    expect(code).not.toContain('sourceMappingURL=data:');
  });

  it('reads no source map when the bundle is required', () => {
    expect(report.readAtLoad).toEqual([]);
  });

  it('names the TypeScript file, line and column in the first stack formatted', () => {
    // Prepare
    const thrown = positionOf("new TypeError('probe')");
    const called = positionOf('fail();');

    // Act
    const lines = report.first.split('\n');

    // Assess
    expect(lines[0]).toBe('TypeError: probe');
    expect(lines[1]).toBe(`    at fail (${entry}:${thrown.line}:${thrown.column})`);
    expect(lines[2]).toBe(`    at Object.stackOf (${entry}:${called.line}:${called.column})`);
    // The child's own file has no map: its frame stays as V8 prints it.
    expect(lines[3]).toMatch(new RegExp(`^    at Object\\.<anonymous> \\(${child}:\\d+:\\d+\\)$`));
    expect(report.first).not.toContain(bundleFile);
  });

  it('reads each map once, then formats from memory', () => {
    // The same frames (the child's own line differs: a second call site).
    expect(report.second.split('\n').slice(0, 3)).toEqual(report.first.split('\n').slice(0, 3));
    expect(report.reads).toEqual([`${bundleFile}.map`, `${child}.map`]);
  });

  it('keeps the header Node writes for its own errors', () => {
    expect(report.nodeError.split('\n')[0]).toBe(
      "Error: ENOENT: no such file or directory, open '/etp-no-such-file'",
    );
  });
});
