/**
 * The files of a new file tool (`etp dev new-tool <name> --kind file`): a tool
 * the dispatcher runs itself, allowed at every level, over the run's workspace
 * (`requireWorkspace`, `workspacePathArg`). The generated tool counts the lines,
 * words and bytes of a workspace file, so it works as written.
 */
import type { GeneratedFile } from './aws-tool-template';
import type { ToolNames } from './tool-names';

/** The spec, implementation and test of a file tool named by `names`. */
export function fileToolFiles(names: ToolNames): GeneratedFile[] {
  const { tool, file, camel } = names;
  return [
    { path: `functions/tools/files/${file}.meta.ts`, content: spec(tool, camel) },
    { path: `functions/tools/files/${file}.ts`, content: implementation(tool, file, camel) },
    { path: `test/unit/tools/files/${file}.test.ts`, content: test(tool, file, camel) },
  ];
}

function spec(tool: string, camel: string): string {
  return `import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { workspacePathArg } from './workspace-args';

/** \`${tool}\`: the lines, words and bytes of a file of the run's workspace. A file tool: always allowed. */
export const ${camel}Spec = defineToolSpec({
  name: '${tool}',
  description:
    "Counts the lines, words and bytes of one file of this run's workspace (a result under results/, a file " +
    'written with write_file). Free: no remote service is called. A missing file is not_found.',
  inputSchema: () =>
    z.strictObject({
      path: workspacePathArg('The file to count, such as reports/pulse.md.'),
    }),
  tags: ['workspace', 'read_only'],
  service: 's3',
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
`;
}

function implementation(tool: string, file: string, camel: string): string {
  return `import { defineTool } from '../../runtime/spec';
import { ${camel}Spec } from './${file}.meta';
import { requireWorkspace } from './workspace-args';

/** \`${tool}\` with its handler: reads the file from the workspace and counts it. */
export const ${camel}Tool = defineTool(${camel}Spec, async (ctx, args) => {
  const file = await requireWorkspace(ctx).read(args.path);
  const lines = file.content === '' ? 0 : file.content.split('\\n').length - (file.content.endsWith('\\n') ? 1 : 0);
  const words = file.content.split(/\\s+/).filter((word) => word !== '').length;
  return {
    value: { path: file.path, lines, words, bytes: file.totalBytes },
    summary: \`\${file.path}: \${lines} lines, \${words} words, \${file.totalBytes} bytes\`,
  };
});
`;
}

function test(tool: string, file: string, camel: string): string {
  return `import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { localWorkspaceProvider } from '../../../../bin/local/local-workspace';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { runTool } from '../../../../functions/runtime/harness';
import { logger } from '../../../../functions/runtime/logger';
import { ${camel}Tool } from '../../../../functions/tools/files/${file}';
import { toolInvocation } from '../../../helpers/events';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'etp-${file}-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One call of the tool in the aws_pulse run of {@link toolInvocation}, its workspace a local directory. */
async function call(args: Record<string, unknown>) {
  const invocation = toolInvocation({ tool: '${tool}', args });
  const services = { logger, workspaces: localWorkspaceProvider(dir) };
  return runTool(${camel}Tool, invocation, deadlineIn(10_000), services);
}

/** Writes a file into the workspace of the run {@link call} uses. */
async function given(filePath: string, content: string): Promise<void> {
  const { tenant, scenario, runId } = toolInvocation();
  await localWorkspaceProvider(dir)({ tenant, scenario, runId }).write(filePath, content);
}

describe('${tool}', () => {
  it('counts the lines, words and bytes of a workspace file', async () => {
    // Prepare
    await given('reports/pulse.md', 'AWS Pulse\\nAll clear, 0 findings.\\n');

    // Act
    const result = await call({ path: 'reports/pulse.md' });

    // Assess
    expect(result).toMatchObject({
      ok: true,
      value: { path: 'reports/pulse.md', lines: 2, words: 6, bytes: 33 },
      summary: 'reports/pulse.md: 2 lines, 6 words, 33 bytes',
    });
  });

  it('answers not_found for a file that is not there', async () => {
    // Act
    const result = await call({ path: 'reports/missing.md' });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses a path leaving the workspace before reading anything', async () => {
    // Act
    const result = await call({ path: '../other-run/notes.md' });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });
});
`;
}
