import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { newTool } from '../../../bin/dev/new-tool';
import { TOOL_KINDS, type ToolKind } from '../../../bin/dev/tool-names';
import { runEtpProcess } from '../../helpers/etp-process';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/** What a copy of the repository needs to lint, type-check and test: the sources, the configs, node_modules linked. */
const COPIED = [
  'bin',
  'bench',
  'functions',
  'lib',
  'test',
  'biome.json',
  'jest.config.js',
  'package.json',
  'tsconfig.json',
];

/** One tool of each kind the generator writes today, and the checks of the suite that must accept it. */
const GENERATED: readonly {
  readonly name: string;
  readonly kind: ToolKind;
  readonly suiteTests: string[];
}[] = [
  {
    name: 'aws_vpc_probe',
    kind: 'aws',
    suiteTests: ['test/unit/tools/catalog.test.ts', 'test/unit/tools/aws/iam-covers-calls.test.ts'],
  },
  { name: 'count_probe_lines', kind: 'file', suiteTests: ['test/unit/tools/catalog.test.ts'] },
  {
    name: 'acme_probe_items',
    kind: 'rest',
    suiteTests: [
      'test/unit/tools/catalog.test.ts',
      'test/unit/tools/rest-token-scopes.test.ts',
      'test/integration/http/rest-request-cases.test.ts',
    ],
  },
];

let copy: string;

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'etp-new-tool-'));
  for (const entry of COPIED) cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe('etp dev new-tool', () => {
  it.each(GENERATED)(
    'writes $kind tool $name whose test, the suite checks, the lint and the type check pass untouched',
    async ({ name, kind, suiteTests }) => {
      // Act
      const created = newTool(name, kind, copy);

      // Assess: the files, the catalog line
      const catalog = readFileSync(path.join(copy, 'functions/tools/catalog.ts'), 'utf8');
      expect(catalog).toContain(
        kind === 'file'
          ? `fileTool(${created.names.camel}Tool)`
          : `functionTool(${created.names.camel}Spec, '${created.names.implementation}')`,
      );
      const tests = created.written.filter((file) => file.endsWith('.test.ts'));
      expect(tests).toHaveLength(1);
      // A tool is its spec, its code, its test and the catalog line (a new REST connector adds its declaration).
      expect(created.written.filter((file) => !file.endsWith('/connector.ts'))).toEqual([
        expect.stringMatching(/\.meta\.ts$/),
        expect.stringMatching(/\.ts$/),
        expect.stringMatching(/\.test\.ts$/),
        'functions/tools/catalog.ts',
      ]);
      // …the lint
      const bin = (tool: string) => path.join(copy, 'node_modules', '.bin', tool);
      await run(bin('biome'), ['check', ...created.written], { cwd: copy });
      // …the type check of the written files and all they import
      const tsconfig = path.join(copy, `tsconfig.${name}.json`);
      writeFileSync(tsconfig, JSON.stringify({ extends: './tsconfig.json', include: created.written }));
      await run(bin('tsc'), ['--noEmit', '-p', tsconfig], { cwd: copy });
      // …the generated test and the suite's checks over every tool
      const jest = await run(
        bin('jest'),
        ['--selectProjects', 'unit', 'integration', '--ci', '--runTestsByPath', ...tests, ...suiteTests],
        { cwd: copy, env: { ...process.env, CI: '1' } },
      ).catch((err: { stdout?: string; stderr?: string }) => {
        throw new Error(`jest failed in the copy:\n${err.stderr ?? ''}${err.stdout ?? ''}`);
      });
      expect(jest.stderr).toMatch(/Tests: +\d+ passed, \d+ total/);
    },
    300_000,
  );

  it('refuses a tool the catalog already has, and an aws tool not named aws_…, writing nothing', () => {
    // Act / Assess
    expect(() => newTool('aws_vpc_probe', 'aws', copy)).toThrow(
      'aws_vpc_probe is already a tool (functions/tools/catalog.ts registers aws/vpc-probe)',
    );
    expect(() => newTool('vpc_probe', 'aws', copy)).toThrow(/an aws tool's name starts with aws_/);
    expect(() => newTool('Bad-Name', 'file', copy)).toThrow(/expected snake_case/);
  });

  it('is the etp command: --kind is required and says what it accepts', async () => {
    // Act
    const outcome = await runEtpProcess(['dev', 'new-tool', 'aws_x_y', '--kind', 'soap', '--root', copy]);

    // Assess
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(TOOL_KINDS.join(', '));
  }, 60_000);
});
