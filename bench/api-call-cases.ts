/**
 * Every AWS audit tool's representative run, for counting its AWS API calls
 * (bench/api-calls.ts), proving its IAM actions against the calls it sends
 * (test/unit/tools/aws/iam-covers-calls.test.ts) and answering whole aws_pulse
 * runs (the e2e tests, bench/scenario-run.ts). A tool's cases are exported by
 * its test, `test/unit/tools/<implementation>.test.ts` ({@link apiCallCaseFile}),
 * read with the test framework's functions silenced ({@link requireTestExports});
 * this module finds them from the catalog, so adding a tool adds no line here.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { FunctionToolEntry, ToolCatalog } from '../functions/runtime/catalog';
import { toolCatalog } from '../functions/tools/catalog';
import { isOrganizationTool } from '../lib/aws-tool-grants';
import {
  type ApiCallCase,
  type ClientClass,
  requireTestExports,
  clientStubs as stubsOf,
} from '../test/helpers/api-call-case';

export type { ApiCallCase, ClientClass, StubOf } from '../test/helpers/api-call-case';

/** The repository's root. */
const ROOT = path.resolve(__dirname, '..');

/** The catalog folder whose tools must each have an API-call case: the AWS audits. */
const AWS_AUDITS_FOLDER = 'aws/';

/** The test exporting a tool's API-call cases, relative to the repository root. */
export function apiCallCaseFile(entry: FunctionToolEntry): string {
  return `test/unit/tools/${entry.implementation}.test.ts`;
}

/**
 * The catalog's AWS audit tools: the function tools under `functions/tools/aws/`
 * but the organization tools (`aws_org_accounts`: it lists accounts with the
 * organization role and audits none; its own test proves its calls and IAM).
 */
export function awsAuditTools(catalog: ToolCatalog = toolCatalog): FunctionToolEntry[] {
  return catalog
    .functionTools()
    .filter((entry) => entry.implementation.startsWith(AWS_AUDITS_FOLDER) && !isOrganizationTool(entry.spec));
}

function isApiCallCase(value: unknown): value is ApiCallCase {
  const item = value as Partial<ApiCallCase> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.tool === 'string' &&
    typeof item.account === 'string' &&
    typeof item.arrange === 'function' &&
    Array.isArray(item.clients)
  );
}

/** What {@link loadApiCallCases} found. */
export interface LoadedApiCallCases {
  readonly cases: readonly ApiCallCase[];
  /** One sentence per AWS audit tool without cases: which file to add, and what it exports. */
  readonly problems: readonly string[];
}

/**
 * Reads the API-call cases of every AWS audit tool of `catalog`. A tool whose
 * file is missing, exports no `apiCallCases`, or holds no case of its own gets a
 * problem naming the file to write (and the tool is left out of `cases`).
 */
export function loadApiCallCases(catalog: ToolCatalog = toolCatalog): LoadedApiCallCases {
  const cases: ApiCallCase[] = [];
  const problems: string[] = [];
  for (const entry of awsAuditTools(catalog)) {
    const file = apiCallCaseFile(entry);
    const how = `\`apiCallCases: readonly ApiCallCase[]\` (test/helpers/api-call-case.ts; \`etp dev new-tool\` writes one, test/unit/tools/aws/eips-audit.test.ts is an example)`;
    if (!existsSync(path.join(ROOT, file))) {
      problems.push(`${entry.spec.name} has no test with its API-call case: add ${file} exporting ${how}`);
      continue;
    }
    const exported: unknown = requireTestExports(path.join(ROOT, file)).apiCallCases;
    const own = Array.isArray(exported)
      ? exported.filter((item): item is ApiCallCase => isApiCallCase(item) && item.tool === entry.spec.name)
      : [];
    if (own.length === 0) {
      problems.push(`${entry.spec.name} has no API-call case of its own in ${file}: export from it ${how}`);
      continue;
    }
    cases.push(...own);
  }
  return { cases, problems };
}

/** Every AWS audit tool's cases, in catalog order (tools without a file are left out: see {@link loadApiCallCases}). */
export const API_CALL_CASES: readonly ApiCallCase[] = loadApiCallCases().cases;

/** Every SDK client the AWS audit tools use: what a run of all of them stubs. */
export const AUDIT_CLIENTS: readonly ClientClass[] = [
  ...new Set(API_CALL_CASES.flatMap((testCase) => testCase.clients)),
];

/**
 * Stubs of SDK client classes (aws-sdk-client-mock): `clients` stubbed at once,
 * so no call of theirs can leave the process, any other on first `stubOf`.
 *
 * @param clients - stubbed at once. @default AUDIT_CLIENTS
 */
export function clientStubs(clients: readonly ClientClass[] = AUDIT_CLIENTS): ReturnType<typeof stubsOf> {
  return stubsOf(clients);
}
