import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadTool, TOOLS_DIR } from '../../../bin/local/load-tool';
import { toJsonSchema } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';

/** Every `<tool>.meta.ts` under functions/tools, relative to it without the extension. */
function metaModules(dir = TOOLS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return metaModules(full);
    return entry.name.endsWith('.meta.ts') ? [path.relative(TOOLS_DIR, full).replace(/\.ts$/, '')] : [];
  });
}

/** IAM actions that only read (Describe/List/Get, and IAM's credential report generation). */
const READ_ACTION = /^[a-z0-9-]+:(?:Describe|List|Get)[A-Za-z0-9]*$|^iam:GenerateCredentialReport$/;

describe('the tool catalog', () => {
  it('runs the tools of functions/tools/files in the dispatcher, every other tool in its own function', () => {
    // Prepare: the file tools are the spec files of the files/ folder
    const inFilesFolder = metaModules()
      .filter((module) => module.startsWith('files/'))
      .map((module) =>
        module
          .replace(/^files\//, '')
          .replace(/\.meta$/, '')
          .replace(/-/g, '_'),
      );

    // Assess
    expect(toolCatalog.fileToolNames()).toEqual(inFilesFolder.sort());
    expect(toolCatalog.fileToolNames()).toContain('finish');
    for (const entry of toolCatalog.functionTools())
      expect(entry.implementation.startsWith('files/')).toBe(false);
    expect(
      [...toolCatalog.fileToolNames(), ...toolCatalog.functionTools().map((e) => e.spec.name)].sort(),
    ).toEqual([...toolCatalog.names()].sort());
  });

  it('registers every spec file, each once, and nothing else imports one', () => {
    // Prepare
    const catalogSource = readFileSync(path.join(TOOLS_DIR, 'catalog.ts'), 'utf8');

    // Act
    const imported = [...catalogSource.matchAll(/from '\.\/([^']+\.meta)'/g)].map((match) => match[1]);

    // Assess: a spec file the catalog forgets would be a tool nobody can call
    const withHandlers = toolCatalog.fileTools().map((tool) => tool.name);
    const metaOf = (name: string) => `files/${name.replace(/_/g, '-')}.meta`;
    expect([...imported, ...withHandlers.map(metaOf)].sort()).toEqual(metaModules().sort());
  });

  it.each(toolCatalog.functionTools().map((entry) => [entry.spec.name, entry]))(
    'loads %s from its implementation module, with the very spec the catalog holds',
    (name, entry) => {
      // Act
      const tool = loadTool(toolCatalog, name);

      // Assess
      expect(existsSync(path.join(TOOLS_DIR, `${entry.implementation}.ts`))).toBe(true);
      expect(tool.inputSchema).toBe(entry.spec.inputSchema);
      expect(tool.iam).toEqual(entry.spec.iam);
      expect(toJsonSchema(tool.inputSchema).additionalProperties).toBe(false);
    },
  );

  it.each(toolCatalog.list().filter((spec) => spec.tags.includes('aws')))(
    "$name needs the aws_default secret (an organization tool: aws_org_default) and writes nothing in the account it reads but the Athena route's own tables",
    (spec) => {
      expect(spec.requiresSecrets).toEqual([
        spec.service === 'organizations' ? 'aws_org_default' : 'aws_default',
      ]);
      // The one AWS tool with a side effect writes the platform's own run workspace, never the customer's account.
      if (spec.sideEffects === 'write') {
        expect(spec.tags).toContain('workspace_write');
        expect(spec.workspaceAccess?.access).toBe('read_write');
      } else {
        expect(spec.tags).toContain('read_only');
      }
      // No write in the customer's account, but for the Athena route's query and table creation, each
      // a decision written down (IamGrant.wildcardReason) on the platform's own etp-*/etp_* resources.
      const writes = spec.iam.flatMap((grant) =>
        grant.actions
          .filter((action) => !READ_ACTION.test(action))
          .map((action) => ({
            action,
            reason: Boolean(grant.wildcardReason),
            resources: grant.resources ?? ['*'],
          })),
      );
      for (const write of writes) {
        expect(write).toEqual({
          action: expect.stringMatching(/^(athena:StartQueryExecution|glue:CreateTable)$/),
          reason: true,
          resources: expect.arrayContaining([
            expect.stringMatching(/:(workgroup\/etp-\*|table\/etp_\*\/inventory_\*)$/),
          ]),
        });
        // Besides the account's Glue catalog (CreateTable needs it), only the platform's own names.
        expect(
          write.resources.filter(
            (resource) =>
              !/(:catalog|workgroup\/etp-\*|database\/etp_\*|table\/etp_\*\/inventory_\*)$/.test(resource),
          ),
        ).toEqual([]);
      }
    },
  );
});
