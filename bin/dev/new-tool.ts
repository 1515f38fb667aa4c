import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { readOptionFile } from '../local/option-file';
import { awsToolFiles, type ToolFiles } from './aws-tool-template';
import { fileToolFiles } from './file-tool-template';
import { TOOLS_DIR, toolFolders } from './rest-connector-folder';
import { restToolFiles } from './rest-tool-template';
import { type ToolKind, type ToolNames, toolNames } from './tool-names';

/** The catalog, relative to the repository root. */
export const CATALOG_FILE = 'functions/tools/catalog.ts';

/** What {@link newTool} wrote. */
export interface NewTool {
  readonly names: ToolNames;
  /** Every file written, relative to the root: the new ones, then those changed (a connector's scope table, the catalog last). */
  readonly written: readonly string[];
}

/** The files of a tool of `kind` (the catalog's line apart): new ones, and existing ones changed. */
function filesOf(names: ToolNames, kind: ToolKind, root: string): ToolFiles {
  if (kind === 'aws') return { created: awsToolFiles(names), edited: [] };
  if (kind === 'file') {
    assertNoFolderPrefix(names, root);
    return { created: fileToolFiles(names), edited: [] };
  }
  return restToolFiles(names, root);
}

/**
 * A file tool's name does not start with a tool folder's name (`github_`,
 * `slack_`): those names are that folder's tools.
 *
 * @throws InvalidArgsError naming the folders.
 */
function assertNoFolderPrefix(names: ToolNames, root: string): void {
  const folders = toolFolders(root).filter((folder) => folder !== 'files');
  const first = names.tool.split('_')[0] as string;
  if (folders.includes(first)) {
    throw new InvalidArgsError(
      `Tool name "${names.tool}" does not fit --kind file: ${first}_ names are the tools of ${TOOLS_DIR}/${first}/; ` +
        `a file tool's name starts with none of ${folders.map((folder) => `${folder}_`).join(', ')} (count_lines)`,
    );
  }
}

/**
 * Writes a new tool into the repository at `root`: its spec, implementation,
 * test (an AWS audit's test exports its API-call case, a REST tool's its request
 * case), and its one line in functions/tools/catalog.ts with its import, kept in
 * the catalog's order; a REST tool of an existing connector also gets its
 * endpoint's row in that connector's scope table. The written tool passes its
 * test, the type check and the lint as it is.
 *
 * @throws InvalidArgsError for a bad name or one that does not fit the kind, a
 *   name the catalog already has, or a file that already exists (nothing is written then).
 */
export function newTool(name: string, kind: ToolKind, root: string): NewTool {
  const names = toolNames(name, kind);
  const catalogPath = path.join(root, CATALOG_FILE);
  const catalog = readOptionFile(
    '--root',
    catalogPath,
    'a checkout of this repository (it holds functions/tools/catalog.ts)',
  ).toString('utf8');
  // A function tool is registered by its implementation's path, a file tool by its module's import.
  const registered = [
    `'${names.implementation}'`,
    `/${names.implementation}.meta'`,
    `'./${names.implementation}'`,
  ];
  if (registered.some((text) => catalog.includes(text))) {
    throw new InvalidArgsError(
      `${names.tool} is already a tool (${CATALOG_FILE} registers ${names.implementation})`,
    );
  }
  const { created: files, edited } = filesOf(names, kind, root);
  const existing = files.filter((file) => existsSync(path.join(root, file.path)));
  if (existing.length > 0) {
    throw new InvalidArgsError(
      `Not overwriting ${existing.map((file) => file.path).join(', ')}: choose another name or remove them`,
    );
  }
  const updated = withCatalogLine(catalog, names, kind);
  for (const file of [...files, ...edited]) {
    mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    writeFileSync(path.join(root, file.path), file.content);
  }
  writeFileSync(catalogPath, updated);
  const written = [...files.map((file) => file.path), ...edited.map((file) => file.path), CATALOG_FILE];
  formatWithLint(root, written);
  return { names, written };
}

/**
 * Lets the project's own lint (Biome) order the imports and format the written
 * files, as `npx biome check --write` would: the templates' import order depends
 * on the tool's name, and the lint is the one authority on it.
 *
 * @throws Error when Biome is not installed in `root` or finds a problem it cannot fix.
 */
function formatWithLint(root: string, files: readonly string[]): void {
  const biome = path.join(root, 'node_modules', '.bin', 'biome');
  if (!existsSync(biome))
    throw new Error(`${biome} not found: run npm ci in ${root}, then npx biome check --write`);
  execFileSync(biome, ['check', '--write', '--no-errors-on-unmatched', ...files], {
    cwd: root,
    stdio: 'pipe',
  });
}

/**
 * The catalog's text with the tool's import (among the imports, in path order as
 * the lint sorts them) and its entry (after the last entry of its folder, or of
 * its kind).
 */
export function withCatalogLine(catalog: string, names: ToolNames, kind: ToolKind): string {
  const isFile = kind === 'file';
  const source = isFile ? `./${names.implementation}` : `./${names.implementation}.meta`;
  const symbol = isFile ? `${names.camel}Tool` : `${names.camel}Spec`;
  const entry = isFile ? `  fileTool(${symbol}),` : `  functionTool(${symbol}, '${names.implementation}'),`;

  const lines = catalog.split('\n');
  const importLine = `import { ${symbol} } from '${source}';`;
  const imports = lines
    .map((line, index) => ({ line, index, from: /from '(\.[^']+)';$/.exec(line)?.[1] }))
    .filter((item) => item.from !== undefined && item.line.startsWith('import {'));
  const after = imports.find((item) => (item.from as string) > source);
  const importAt = after ? after.index : (imports.at(-1)?.index ?? -1) + 1;
  lines.splice(importAt, 0, importLine);

  const entries = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => /^ {2}(functionTool|fileTool)\(/.test(line));
  const sameFolder = entries.filter(({ line }) =>
    isFile ? line.startsWith('  fileTool(') : line.includes(`'${names.folder}/`),
  );
  const sameKind = entries.filter(({ line }) => line.startsWith(isFile ? '  fileTool(' : '  functionTool('));
  const last = sameFolder.at(-1) ?? sameKind.at(-1) ?? entries.at(-1);
  if (!last)
    throw new InvalidArgsError(`${CATALOG_FILE} has no functionTool(…) or fileTool(…) entry to follow`);
  lines.splice(last.index + 1, 0, entry);
  return lines.join('\n');
}
