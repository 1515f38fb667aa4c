/**
 * The files of a new REST connector tool (`etp dev new-tool <connector>_<what> --kind rest`),
 * written over the REST connector framework of functions/runtime/http
 * (docs/rest-connectors.md): the connector's declaration (`defineRestConnector`,
 * `bearerAuth`, a token bucket) when its folder does not exist yet, or, for a
 * folder that declares one (`github`), the new endpoint's row in that
 * connector's scope table; the tool's spec, a handler reading every page with
 * `paginate` and `linkHeaderPaginator` within a page and byte budget, and a test
 * against a loopback fake of the API (`listenOnLoopback`, `callRestTool`) seeded
 * with the connector's own example secret (`declaration.secret.example`). The
 * tool lists the records of one endpoint, so it works as written.
 */
import * as path from 'node:path';
import { InvalidArgsError } from '../../functions/runtime/errors';
import type { ToolFiles } from './aws-tool-template';
import { existingConnector } from './rest-connector-folder';
import type { ToolNames } from './tool-names';

/** The connector a generated tool's code and test name. */
interface ConnectorUse {
  /** The export of `./connector` (`github`). */
  readonly exportName: string;
  readonly secretName: string;
  /** Its service, as errors report it (`github`). */
  readonly service: string;
  /** The scope system of its table (`github`). */
  readonly scopeSystem: string;
}

/**
 * The connector's declaration (a new connector), the tool's spec, implementation
 * and test, and for an existing connector its scope table with the endpoint's row.
 *
 * @throws InvalidArgsError when the folder exists without a connector.ts, its
 *   table lists the endpoint already, or its base URL is not read from `<CONNECTOR>_API_URL`.
 */
export function restToolFiles(names: ToolNames, root: string): ToolFiles {
  const connector = names.folder;
  const existing = existingConnector(names, root, endpointOf(names), scopeOf(names));
  if (existing) assertBaseUrlVariable(names, root, existing.exportName);
  const use: ConnectorUse = existing ?? {
    exportName: connector,
    secretName: `${connector}_default`,
    service: connector,
    scopeSystem: connector,
  };
  return {
    created: [
      ...(existing
        ? []
        : [
            {
              path: `functions/tools/${connector}/connector.ts`,
              content: connectorDeclaration(connector, names),
            },
          ]),
      { path: `functions/tools/${connector}/${names.file}.meta.ts`, content: spec(names, use) },
      { path: `functions/tools/${connector}/${names.file}.ts`, content: implementation(names, use) },
      { path: `test/unit/tools/${connector}/${names.file}.test.ts`, content: test(names, use) },
    ],
    edited: existing ? [existing.scopeTable] : [],
  };
}

const envOf = (connector: string) => `${connector.toUpperCase()}_API_URL`;
const endpointOf = (names: ToolNames) => `/${names.file}`;

/** The token scope the generated endpoint needs, in the connector's own scope system. */
const scopeOf = (names: ToolNames) => `${names.file}:read`;

/**
 * The generated test points the connector at its fake with `<CONNECTOR>_API_URL`,
 * as every shipped connector reads its base URL (`GITHUB_API_URL`).
 *
 * @throws InvalidArgsError when the connector's base URL ignores that variable.
 */
function assertBaseUrlVariable(names: ToolNames, root: string, exportName: string): void {
  const file = path.join(root, 'functions/tools', names.folder, 'connector.ts');
  const { declaration } = require(file)[exportName] as {
    declaration: { baseUrl(secret: unknown): string; secret: { example: unknown } };
  };
  const variable = envOf(names.folder);
  const before = process.env[variable];
  process.env[variable] = 'http://127.0.0.1:9';
  try {
    if (!declaration.baseUrl(declaration.secret.example).startsWith('http://127.0.0.1:9')) {
      throw new InvalidArgsError(
        `The ${names.folder} connector's base URL does not follow ${variable}, which the generated test sets: make its baseUrl read it`,
      );
    }
  } finally {
    if (before === undefined) delete process.env[variable];
    else process.env[variable] = before;
  }
}

function connectorDeclaration(connector: string, names: ToolNames): string {
  return `import * as z from 'zod/mini';
import { bearerAuth } from '../../runtime/http/auth';
import { defineRestConnector } from '../../runtime/http/connector';

/** The tenant's ${connector} secret: a bearer token. */
export type ${pascalOf(connector)}Secret = { readonly token: string };

/**
 * The ${connector} API as its tools call it (docs/rest-connectors.md): a bearer
 * token from the tenant's \`${connector}_default\` secret, the API's base URL
 * (\`${envOf(connector)}\` points a loaded tool at a test server), a token bucket per
 * tenant and host, and the token scopes of each endpoint its tools call. Replace
 * the base URL, the rate limit (cite the API's limits page), the scopes (cite each
 * endpoint's reference page) and the error table with the API's own.
 */
export const ${connector} = defineRestConnector({
  service: '${connector}',
  label: '${connector}',
  secret: {
    name: '${connector}_default',
    label: '${connector}',
    service: '${connector}',
    schema: z.object({ token: z.string().check(z.minLength(8)) }),
    accepted: '{ "token": "…" }',
    // Made up: what tests seed as the tenant's secret.
    example: { token: 'example-token-0123' },
  },
  baseUrl: () => process.env.${envOf(connector)} || 'https://api.${connector}.example',
  authenticator: () => bearerAuth((secret: ${pascalOf(connector)}Secret) => secret.token),
  headers: { accept: 'application/json' },
  rateLimit: { burst: 10, perSecond: 5 },
  // Every endpoint a tool calls, with the scopes the API's reference says it needs
  // (functions/runtime/http/scopes.ts); a tool's test fails on a request not listed.
  scopes: [
    {
      method: 'GET',
      path: '${endpointOf(names)}',
      needs: { ${connector}: ['${scopeOf(names)}'] },
      source: 'https://api.${connector}.example/docs${endpointOf(names)}',
    },
  ],
  errors: {
    message: ({ body }) => (body as { message?: string } | undefined)?.message,
  },
});
`;
}

function pascalOf(word: string): string {
  return `${word[0]?.toUpperCase()}${word.slice(1)}`;
}

function spec(names: ToolNames, use: ConnectorUse): string {
  const connector = names.folder;
  return `import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';

/** \`${names.tool}\`: the records of ${connector}'s ${endpointOf(names)}, page by page. */
export const ${names.camel}Spec = defineToolSpec({
  name: '${names.tool}',
  description:
    "Lists the records of the ${connector} API's ${endpointOf(names)} endpoint (id and name), reading at most 5 " +
    'pages (1 MB) a call. When more remain, next_cursor resumes the listing: pass it back as cursor. Read-only.',
  inputSchema: () =>
    z.strictObject({
      cursor: z.optional(
        z.string().check(z.maxLength(2048), z.describe('next_cursor of an earlier call, to read on from there.')),
      ),
    }),
  tags: ['${connector}', 'read_only'],
  service: '${use.service}',
  requiresSecrets: ['${use.secretName}'],
  // What the tenant's token must be granted: every request's scopes, as the connector's \`scopes\` name them.
  tokenScopes: { ${use.scopeSystem}: ['${scopeOf(names)}'] },
  sideEffects: 'none',
  iam: [],
});
`;
}

function implementation(names: ToolNames, use: ConnectorUse): string {
  const connector = use.exportName;
  return `import { linkHeaderPaginator, paginate } from '../../runtime/http/pagination';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { ${connector} } from './connector';
import { ${names.camel}Spec } from './${names.file}.meta';

/** One record as the tool returns it. */
export interface ${names.pascal}Record {
  readonly id: string;
  readonly name: string | null;
}

/** What a page of ${endpointOf(names)} holds: a JSON array of records. */
function recordsOf(body: unknown): ${names.pascal}Record[] {
  return (Array.isArray(body) ? body : []).map((item: { id?: unknown; name?: unknown }) => ({
    id: String(item.id),
    name: typeof item.name === 'string' ? item.name : null,
  }));
}

/** \`${names.tool}\` with its handler: the pages of ${endpointOf(names)} within the budget, and where to go on. */
export const ${names.camel}Tool = defineTool(${names.camel}Spec, async (ctx, args) => {
  const read = await paginate(
    ${connector}.session(ctx),
    { method: 'GET', path: '${endpointOf(names)}' },
    {
      paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: 100 }),
      select: recordsOf,
      budget: { maxPages: 5, maxBytes: 1_000_000 },
      ...(args.cursor ? { resume: args.cursor } : {}),
    },
    ctx.deadline,
  );
  return {
    value: { records: read.records, next_cursor: read.next, stoppedBy: read.stoppedBy },
    truncated: !read.complete,
    summary: \`\${read.records.length} records in \${read.pages} pages\${read.complete ? '' : '; more: pass next_cursor'}\`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(${names.camel}Tool);
`;
}

function test(names: ToolNames, use: ConnectorUse): string {
  const folder = names.folder;
  const connector = use.exportName;
  const env = envOf(folder);
  return `import { ${connector} } from '../../../../functions/tools/${folder}/connector';
import { ${names.camel}Tool } from '../../../../functions/tools/${folder}/${names.file}';
import { type ListeningServer, listenOnLoopback, sendJson } from '../../../helpers/loopback-server';
import type { RequestCase, RequestCaseWorld } from '../../../helpers/request-case';
import { authorizationOf, callRestTool, restSecrets, useQuietRestCalls } from '../../../helpers/rest-tool';

/** The tenant's secret: the connector's own example of its form. */
const SECRET = ${connector}.declaration.secret;
const SECRETS = { [SECRET.name]: SECRET.example };

/** The requests the fakes received, in order. */
const seen: { path: string; authorization: unknown }[] = [];

/** Whether the fake refuses every token (a revoked one). */
let refusing = false;

/** A loopback fake of ${endpointOf(names)}: 150 records, 100 a page, the next page in a Link header (RFC 8288). */
async function startFake(): Promise<ListeningServer> {
  // What the connector sends with the example secret (its own authenticator's header).
  const authorization = await authorizationOf(${connector}, SECRET.example);
  const fake: ListeningServer = await listenOnLoopback((request, response) => {
    seen.push({ path: request.path, authorization: request.headers.authorization });
    if (refusing || request.headers.authorization !== authorization) {
      sendJson(response, 401, { message: 'Bad credentials' });
      return;
    }
    const page = Number(new URL(response.req.url ?? '/', fake.url).searchParams.get('page') ?? '1');
    const records = Array.from({ length: page === 1 ? 100 : 50 }, (_, i) => ({
      id: (page - 1) * 100 + i + 1,
      name: \`record \${(page - 1) * 100 + i + 1}\`,
    }));
    const next: Record<string, string> =
      page === 1 ? { link: \`<\${fake.url}${endpointOf(names)}?per_page=100&page=2>; rel="next"\` } : {};
    sendJson(response, 200, records, next);
  });
  return fake;
}

/** The fake for one request case, the connector's base URL pointed at it. */
async function requestCaseWorld(): Promise<RequestCaseWorld> {
  const fake = await startFake();
  process.env.${env} = fake.url;
  return {
    secrets: SECRETS,
    stop: async () => {
      delete process.env.${env};
      await fake.stop();
    },
  };
}

/** The tool's typical call and its request ceiling (\`npm run bench\`, "API requests per call"). */
// biome-ignore lint/suspicious/noExportsInTest: the tool's request cases, read by bench/rest-request-cases.ts
export const requestCases: readonly RequestCase[] = [
  {
    tool: '${names.tool}',
    call: '150 records in 2 pages',
    args: {},
    ceiling: 5,
    ceilingSource: 'at most 5 pages a call (functions/tools/${folder}/${names.file}.ts, budget.maxPages)',
    start: requestCaseWorld,
  },
];

let server: ListeningServer;

beforeAll(async () => {
  server = await startFake();
  process.env.${env} = server.url;
});

afterAll(async () => {
  delete process.env.${env};
  await server.stop();
});

useQuietRestCalls();

beforeEach(() => {
  seen.length = 0;
  refusing = false;
});

describe('${names.tool}', () => {
  it('reads every page with the tenant token and returns the records', async () => {
    // Act
    const result = await callRestTool(${names.camel}Tool, {}, restSecrets(SECRETS));

    // Assess
    expect(result).toMatchObject({ ok: true, truncated: false, summary: '150 records in 2 pages' });
    const value = (result as { value: { records: { id: string }[]; next_cursor: string | null } }).value;
    expect(value.records).toHaveLength(150);
    expect(value.records[0]).toEqual({ id: '1', name: 'record 1' });
    expect(value.next_cursor).toBeNull();
    expect(seen.map((request) => request.path)).toEqual(['${endpointOf(names)}', '${endpointOf(names)}']);
  });

  it('fails with auth_failed when the API refuses the token', async () => {
    // Prepare
    refusing = true;

    // Act
    const result = await callRestTool(${names.camel}Tool, {}, restSecrets(SECRETS));

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'auth_failed', service: ${connector}.declaration.service },
    });
  });

  it('refuses arguments outside its schema before any request', async () => {
    // Act
    const result = await callRestTool(${names.camel}Tool, { cursor: 7 }, restSecrets(SECRETS));

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(seen).toEqual([]);
  });
});
`;
}
