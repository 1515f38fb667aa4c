/**
 * The modules a TypeScript file loads at run time, read with the TypeScript
 * compiler's parser: value imports only (`import type` and type-only
 * specifiers are erased by the bundler), re-exports, `require()` and
 * `import()`, followed through relative paths across the repository.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** One module's facts. */
export interface ModuleFacts {
  /** Absolute path. */
  readonly file: string;
  /** Value names imported, by module specifier (`*` for a namespace, re-export or require). */
  readonly imports: Map<string, string[]>;
  readonly source: ts.SourceFile;
}

/** The facts of one file. */
export function moduleFacts(file: string): ModuleFacts {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2023, true);
  const imports = new Map<string, string[]>();
  const note = (specifier: string, names: string[]) => {
    imports.set(specifier, [...(imports.get(specifier) ?? []), ...names]);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (!clause)
        names.push('*'); // a side-effect import loads the module
      else if (!clause.isTypeOnly) {
        if (clause.name) names.push(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            if (!element.isTypeOnly) names.push((element.propertyName ?? element.name).text);
          }
        } else if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
      }
      if (names.length > 0) note(node.moduleSpecifier.text, names);
    }
    if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      note(node.moduleSpecifier.text, ['*']);
    }
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (
        (ts.isIdentifier(callee) && callee.text === 'require') ||
        callee.kind === ts.SyntaxKind.ImportKeyword
      ) {
        note(node.arguments[0].text, ['*']);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, imports, source };
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      // try the next form
    }
  }
  return undefined;
}

/** Every repository module loaded from `entries`, following relative value imports. */
export function reachableModules(entries: readonly string[]): ModuleFacts[] {
  const seen = new Map<string, ModuleFacts>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const facts = moduleFacts(file);
    seen.set(file, facts);
    for (const specifier of facts.imports.keys()) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target) queue.push(target);
    }
  }
  return [...seen.values()];
}
