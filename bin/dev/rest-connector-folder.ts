/**
 * The connector a `--kind rest` tool is written against: a new one (its folder
 * does not exist yet: the generator writes its `connector.ts`), or the one the
 * folder's `connector.ts` declares (`github`, `pagerduty`), whose scope table
 * gets the new endpoint's row. A folder without a `connector.ts` (a vendor family
 * such as `crm`, or `aws`, `slack`, `files`) is refused: its tools are not one
 * connector's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { InvalidArgsError } from '../../functions/runtime/errors';
import type { RestConnector } from '../../functions/runtime/http/connector';
import type { GeneratedFile } from './aws-tool-template';
import type { ToolNames } from './tool-names';

/** Where the tool folders are, relative to the repository root. */
export const TOOLS_DIR = 'functions/tools';

/** A connector declared in `functions/tools/<folder>/connector.ts`, as the generated tool uses it. */
export interface ExistingConnector {
  /** The module's export holding the connector (`github`). */
  readonly exportName: string;
  /** The secret its tools read (`github_default`). */
  readonly secretName: string;
  /** Its service, as errors report it (`github`). */
  readonly service: string;
  /** The scope system the generated row and spec name (`github`): the connector's service when its table uses it. */
  readonly scopeSystem: string;
  /** Its scope table with the new endpoint's row (the file, relative to the root, and its new text). */
  readonly scopeTable: GeneratedFile;
}

/** The folders of functions/tools declaring one REST connector (`connector.ts`), sorted. */
export function connectorFolders(root: string): string[] {
  return toolFolders(root).filter((folder) => existsSync(path.join(root, TOOLS_DIR, folder, 'connector.ts')));
}

/** Every folder of functions/tools, sorted. */
export function toolFolders(root: string): string[] {
  const dir = path.join(root, TOOLS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The existing connector of a `rest` tool's folder, or undefined when the folder
 * does not exist (a new connector).
 *
 * @param endpoint - the generated tool's `GET` path (`/list-issues`), whose row is appended.
 * @param scope - the scope the row and the spec name (`list-issues:read`).
 * @throws InvalidArgsError when the folder exists without a `connector.ts` (saying
 *   which folders have one), or its scope table lists the endpoint already.
 */
export function existingConnector(
  names: ToolNames,
  root: string,
  endpoint: string,
  scope: string,
): ExistingConnector | undefined {
  const folder = names.folder;
  const folderPath = path.join(root, TOOLS_DIR, folder);
  if (!existsSync(folderPath)) return undefined;
  const declarationFile = path.join(folderPath, 'connector.ts');
  if (!existsSync(declarationFile)) {
    // A vendor family (crm, ats) says its shape in family.ts, which each provider module maps.
    const family = existsSync(path.join(folderPath, 'family.ts'))
      ? ` (${folder} is a vendor family: a ${folder}_ tool is written by hand over ${TOOLS_DIR}/${folder}/family.ts and each provider's module, docs/adding-a-tool.md)`
      : '';
    throw new InvalidArgsError(
      `Tool name "${names.tool}": ${TOOLS_DIR}/${folder}/ declares no single REST connector (no connector.ts), so --kind rest cannot add a tool to it${family}; ` +
        `a rest tool's name is <connector>_<what> for a connector folder (${connectorFolders(root).join(', ') || 'none yet'}) or a new connector's name`,
    );
  }
  const [exportName, connector] = connectorExport(declarationFile);
  const table = connector.declaration.scopes ?? [];
  if (table.some((row) => row.method === 'GET' && row.path === endpoint)) {
    throw new InvalidArgsError(
      `Tool name "${names.tool}": the ${folder} connector's scope table already lists GET ${endpoint}; choose another name`,
    );
  }
  const systems = [...new Set(table.flatMap((row) => Object.keys(row.needs)))];
  const service = connector.declaration.service;
  const scopeSystem = systems.includes(service) || systems.length === 0 ? service : (systems[0] as string);
  return {
    exportName,
    secretName: connector.declaration.secret.name,
    service,
    scopeSystem,
    scopeTable: withScopeRow(root, declarationFile, {
      comment: `Written by etp dev new-tool for ${names.tool}: replace with the real endpoint, its scopes and its reference page.`,
      endpoint,
      needs: `{ ${scopeSystem}: ['${scope}'] }`,
      source: `https://api.${folder}.example/docs${endpoint}`,
    }),
  };
}

/** The module's one export that is a REST connector (`defineRestConnector`), with its name. */
function connectorExport(file: string): [string, RestConnector<unknown>] {
  const exported: Record<string, unknown> = require(file);
  const found = Object.entries(exported).filter(
    ([, value]) => (value as Partial<RestConnector<unknown>> | null)?.declaration?.secret !== undefined,
  );
  if (found.length !== 1) {
    throw new InvalidArgsError(
      `${path.basename(path.dirname(file))}/connector.ts exports ${found.length} REST connectors; --kind rest adds a tool to a folder whose connector.ts exports one`,
    );
  }
  return found[0] as [string, RestConnector<unknown>];
}

/** One row of a scope table, as its source text. */
interface ScopeRow {
  readonly comment: string;
  readonly endpoint: string;
  /** An object literal's text (`{ github: ['list-issues:read'] }`). */
  readonly needs: string;
  readonly source: string;
}

/**
 * The file holding the connector's scope table, with `row` appended: the table
 * is the `scopes` of the `defineRestConnector({…})` call in `connector.ts`,
 * either an array written there or a constant it imports (`GITHUB_SCOPES` from
 * `./scopes`). The row is written as the table's other rows are (the lint formats it).
 *
 * @throws InvalidArgsError when no array of scopes is found.
 */
function withScopeRow(root: string, declarationFile: string, row: ScopeRow): GeneratedFile {
  const found = scopeArray(declarationFile);
  const text = readFileSync(found.file, 'utf8');
  const array = found.array;
  const last = array.elements.at(-1);
  // After the last row (its own comma, if any, replaced), else just inside the brackets.
  const at = last ? last.getEnd() : array.getStart() + 1;
  const written =
    `${last ? ',' : ''}\n  {\n    // ${row.comment}\n    method: 'GET',\n    path: '${row.endpoint}',\n` +
    `    needs: ${row.needs},\n    source: '${row.source}',\n  },\n`;
  const content = `${text.slice(0, at)}${written}${text.slice(at).replace(/^,?\s*/, '')}`;
  return { path: path.relative(root, found.file), content };
}

/** The array literal of the connector's scope table and the file it is in. */
function scopeArray(declarationFile: string): { file: string; array: ts.ArrayLiteralExpression } {
  const source = parse(declarationFile);
  let scopes: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.getText(source) === 'defineRestConnector' &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0])
    ) {
      for (const property of node.arguments[0].properties) {
        if (property.name?.getText(source) !== 'scopes') continue;
        if (ts.isPropertyAssignment(property)) scopes = property.initializer;
        if (ts.isShorthandPropertyAssignment(property)) scopes = property.name;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (scopes && ts.isArrayLiteralExpression(scopes)) return { file: declarationFile, array: scopes };
  if (scopes && ts.isIdentifier(scopes)) {
    const name = scopes.text;
    const local = constantArray(source, name);
    if (local) return { file: declarationFile, array: local };
    const from = importedFrom(source, name);
    if (from) {
      const file = `${path.resolve(path.dirname(declarationFile), from)}.ts`;
      const array = existsSync(file) ? constantArray(parse(file), name) : undefined;
      if (array) return { file, array };
    }
  }
  throw new InvalidArgsError(
    `${path.relative(process.cwd(), declarationFile)}: found no scope table (defineRestConnector's scopes as an array, or a constant array it imports)`,
  );
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The array literal a top-level `const <name> = [...]` (typed or not) holds. */
function constantArray(source: ts.SourceFile, name: string): ts.ArrayLiteralExpression | undefined {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.name.getText(source) !== name || !declaration.initializer) continue;
      let value: ts.Expression = declaration.initializer;
      while (ts.isAsExpression(value) || ts.isSatisfiesExpression(value)) value = value.expression;
      if (ts.isArrayLiteralExpression(value)) return value;
    }
  }
  return undefined;
}

/** The relative module `name` is imported from (`./scopes`), if any. */
function importedFrom(source: ts.SourceFile, name: string): string | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    if (bindings.elements.some((element) => element.name.text === name)) {
      const from = statement.moduleSpecifier.text;
      return from.startsWith('.') ? from : undefined;
    }
  }
  return undefined;
}
