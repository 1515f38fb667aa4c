/**
 * Every REST tool's request case (test/helpers/request-case.ts), for counting the
 * HTTP requests one typical call makes (bench/rest-requests.ts, and
 * test/integration/http/rest-request-cases.test.ts, which holds each count to its
 * ceiling). A REST tool is a catalog function tool of a REST connector's folder
 * ({@link restTools}: GitHub, PagerDuty, CRM, ATS); its cases are exported by its
 * connector's test ({@link requestCaseFile}), read with the test framework's
 * functions silenced, so adding a tool adds no line here.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { FunctionToolEntry, ToolCatalog } from '../functions/runtime/catalog';
import { toolCatalog } from '../functions/tools/catalog';
import { requireTestExports } from '../test/helpers/api-call-case';
import type { RequestCase } from '../test/helpers/request-case';

export type { RequestCase } from '../test/helpers/request-case';

/** The repository's root. */
const ROOT = path.resolve(__dirname, '..');

/** The files that make a tool folder a REST connector's (docs/adding-a-tool.md, "A REST connector tool"). */
const CONNECTOR_FILES = ['connector.ts', 'scopes.ts'];

/**
 * The catalog's REST tools: function tools that declare token scopes, or live in
 * a REST connector's folder (one holding its `connector.ts` or its scope table
 * `scopes.ts`, as `github_org_facts`, which reads public data, does).
 */
export function restTools(catalog: ToolCatalog = toolCatalog): FunctionToolEntry[] {
  return catalog
    .functionTools()
    .filter(
      (entry) =>
        entry.spec.tokenScopes !== undefined ||
        CONNECTOR_FILES.some((file) =>
          existsSync(path.join(ROOT, 'functions/tools', connectorOf(entry), file)),
        ),
    );
}

/** The connector folder of a tool (`github` for `github/merged-pulls`). */
function connectorOf(entry: FunctionToolEntry): string {
  return entry.implementation.split('/')[0] as string;
}

/**
 * The tests that may export a REST tool's request cases, relative to the
 * repository root: its connector's integration test (the shipped connectors'),
 * then the tool's own test (what `etp dev new-tool --kind rest` writes).
 */
export function requestCaseFiles(entry: FunctionToolEntry): readonly string[] {
  const connector = connectorOf(entry);
  return [
    `test/integration/${connector}/${connector}-tools.test.ts`,
    `test/unit/tools/${entry.implementation}.test.ts`,
  ];
}

function isRequestCase(value: unknown): value is RequestCase {
  const item = value as Partial<RequestCase> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.tool === 'string' &&
    typeof item.call === 'string' &&
    typeof item.ceiling === 'number' &&
    typeof item.ceilingSource === 'string' &&
    typeof item.start === 'function'
  );
}

/** What {@link loadRequestCases} found. */
export interface LoadedRequestCases {
  readonly cases: readonly RequestCase[];
  /** One sentence per REST tool without a case: which file to add it to, and what it exports. */
  readonly problems: readonly string[];
}

/**
 * Reads the request cases of every REST tool of `catalog` from the tests of
 * {@link requestCaseFiles} that exist. A tool none of them holds a case of gets
 * a problem naming the file to export it from: the first of those tests that
 * exists, else the tool's own test to write (and is left out of `cases`).
 */
export function loadRequestCases(catalog: ToolCatalog = toolCatalog): LoadedRequestCases {
  const cases: RequestCase[] = [];
  const problems: string[] = [];
  const exportsOf = new Map<string, unknown>();
  const exported = (file: string): unknown => {
    if (!exportsOf.has(file)) exportsOf.set(file, requireTestExports(path.join(ROOT, file)).requestCases);
    return exportsOf.get(file);
  };
  const how =
    '`requestCases: readonly RequestCase[]` (test/helpers/request-case.ts; test/integration/pagerduty/pagerduty-tools.test.ts is an example)';
  for (const entry of restTools(catalog)) {
    const files = requestCaseFiles(entry).filter((file) => existsSync(path.join(ROOT, file)));
    const own = files.flatMap((file) => {
      const items = exported(file);
      return Array.isArray(items)
        ? items.filter((item): item is RequestCase => isRequestCase(item) && item.tool === entry.spec.name)
        : [];
    });
    if (own.length > 0) {
      cases.push(...own);
      continue;
    }
    const [file] = files;
    problems.push(
      file
        ? `${entry.spec.name} has no request case of its own in ${file}: export from it ${how}`
        : `${entry.spec.name} has no test with its request case: add ${requestCaseFiles(entry).at(-1)} exporting ${how}`,
    );
  }
  return { cases, problems };
}
