import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/**
 * The tools of each kind the generator writes today (REST tools of existing connectors, each with its
 * own authorization scheme, and of a new one), the existing files each changes, and the checks of the
 * suite that must accept them. The copy keeps every tool written, so a later case's suite checks cover
 * the earlier tools too.
 */
const GENERATED: readonly {
  readonly kind: ToolKind;
  readonly tools: readonly { readonly name: string; readonly edited?: readonly string[] }[];
  readonly suiteTests: string[];
}[] = [
  {
    kind: 'aws',
    tools: [{ name: 'aws_vpc_probe' }],
    suiteTests: ['test/unit/tools/catalog.test.ts', 'test/unit/tools/aws/iam-covers-calls.test.ts'],
  },
  { kind: 'file', tools: [{ name: 'count_probe_lines' }], suiteTests: ['test/unit/tools/catalog.test.ts'] },
  {
    kind: 'rest',
    // The guide's own example, and a PagerDuty tool (`Token token=…`): each connector's scope table gets the row.
    tools: [
      { name: 'github_list_issues', edited: ['functions/tools/github/scopes.ts'] },
      { name: 'pagerduty_list_probes', edited: ['functions/tools/pagerduty/scopes.ts'] },
    ],
    suiteTests: [],
  },
  {
    kind: 'rest',
    tools: [{ name: 'acme_probe_items' }],
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
  it.each(GENERATED.map((entry) => ({ ...entry, names: entry.tools.map((tool) => tool.name).join(', ') })))(
    'writes $kind tools $names whose tests, the suite checks, the lint and the type check pass untouched',
    async ({ kind, tools, suiteTests }) => {
      const written: string[] = [];
      for (const { name, edited = [] } of tools) {
        // Act
        const created = newTool(name, kind, copy);
        written.push(...created.written);

        // Assess: the files, the catalog line
        const catalog = readFileSync(path.join(copy, 'functions/tools/catalog.ts'), 'utf8');
        expect(catalog).toContain(
          kind === 'file'
            ? `fileTool(${created.names.camel}Tool)`
            : `functionTool(${created.names.camel}Spec, '${created.names.implementation}')`,
        );
        // A tool is its spec, its code, its test and the catalog line (a new REST connector adds its
        // declaration, a tool of an existing one its endpoint's row in the connector's scope table).
        expect(created.written.filter((file) => !file.endsWith('/connector.ts'))).toEqual([
          expect.stringMatching(/\.meta\.ts$/),
          expect.stringMatching(/\.ts$/),
          expect.stringMatching(/\.test\.ts$/),
          ...edited,
          'functions/tools/catalog.ts',
        ]);
        for (const file of edited) {
          expect(readFileSync(path.join(copy, file), 'utf8')).toContain(`path: '/${created.names.file}'`);
        }
      }
      const tests = written.filter((file) => file.endsWith('.test.ts'));
      expect(tests).toHaveLength(tools.length);
      const files = [...new Set(written)];
      // …the lint
      const bin = (tool: string) => path.join(copy, 'node_modules', '.bin', tool);
      await run(bin('biome'), ['check', ...files], { cwd: copy });
      // …the type check of the written files and all they import
      const tsconfig = path.join(copy, `tsconfig.${tools[0]?.name}.json`);
      writeFileSync(tsconfig, JSON.stringify({ extends: './tsconfig.json', include: files }));
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

  it('refuses a tool the catalog already has, and a name that does not fit its kind, writing nothing', () => {
    // Prepare
    const catalogBefore = readFileSync(path.join(copy, 'functions/tools/catalog.ts'), 'utf8');

    // Act / Assess
    expect(() => newTool('aws_vpc_probe', 'aws', copy)).toThrow(
      'aws_vpc_probe is already a tool (functions/tools/catalog.ts registers aws/vpc-probe)',
    );
    expect(() => newTool('vpc_probe', 'aws', copy)).toThrow(
      'Tool name "vpc_probe" does not fit --kind aws: an aws tool is aws_<what>, such as aws_lambda_inventory',
    );
    expect(() => newTool('aws_thing', 'rest', copy)).toThrow(
      'Tool name "aws_thing" does not fit --kind rest: a rest tool is <connector>_<what>, such as github_list_issues; aws_ names are AWS audits (--kind aws)',
    );
    expect(() => newTool('aws_count_lines', 'file', copy)).toThrow(
      'Tool name "aws_count_lines" does not fit --kind file: a file tool is any other snake_case name, such as count_lines; aws_ names are AWS audits (--kind aws)',
    );
    // A folder that is no single connector's (a vendor family), and a file tool named as a folder's tools.
    expect(() => newTool('crm_list_deals', 'rest', copy)).toThrow(
      'Tool name "crm_list_deals": functions/tools/crm/ declares no single REST connector (no connector.ts), so --kind rest ' +
        'cannot add a tool to it (crm is a vendor family: a crm_ tool is written by hand over functions/tools/crm/family.ts ' +
        "and each provider's module, docs/adding-a-tool.md)",
    );
    expect(() => newTool('slack_list_pins', 'rest', copy)).toThrow(
      /^Tool name "slack_list_pins": functions\/tools\/slack\/ declares no single REST connector \(no connector.ts\), so --kind rest cannot add a tool to it; a rest tool's name/,
    );
    expect(() => newTool('crm_list_deals', 'rest', copy)).toThrow(
      /for a connector folder \(acme, github, pagerduty\) or a new connector's name$/,
    );
    expect(() => newTool('github_count_lines', 'file', copy)).toThrow(
      /^Tool name "github_count_lines" does not fit --kind file: github_ names are the tools of functions\/tools\/github\/; a file tool's name starts with none of .*github_/,
    );
    expect(() => newTool('github_list_issues', 'rest', copy)).toThrow(
      'github_list_issues is already a tool (functions/tools/catalog.ts registers github/list-issues)',
    );
    expect(() => newTool('Bad-Name', 'file', copy)).toThrow(/expected snake_case/);
    expect(readFileSync(path.join(copy, 'functions/tools/catalog.ts'), 'utf8')).toBe(catalogBefore);
    expect(existsSync(path.join(copy, 'functions/tools/aws/thing.ts'))).toBe(false);
  });

  it('is the etp command: --kind and the name say what they accept, exit 2', async () => {
    // Act
    const soap = await runEtpProcess(['dev', 'new-tool', 'aws_x_y', '--kind', 'soap', '--root', copy]);
    const empty = await runEtpProcess(['dev', 'new-tool', '', '--kind', 'file', '--root', copy]);
    const mismatch = await runEtpProcess(['dev', 'new-tool', 'aws_thing', '--kind', 'rest', '--root', copy]);

    // Assess
    expect(soap.code).toBe(2);
    expect(soap.stderr).toContain(TOOL_KINDS.join(', '));
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({
      code: 2,
      stderr:
        "error: <name> is empty; give the new tool's snake_case name: an aws tool is aws_<what>, such as aws_lambda_inventory; " +
        'a rest tool is <connector>_<what>, such as github_list_issues; a file tool is any other snake_case name, such as count_lines\n',
    });
    expect({ code: mismatch.code, stdout: mismatch.stdout }).toEqual({ code: 2, stdout: '' });
    expect(mismatch.stderr).toContain('aws_ names are AWS audits (--kind aws)');
  }, 60_000);
});
