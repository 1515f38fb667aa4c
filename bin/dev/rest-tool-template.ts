/**
 * The files of a new REST connector tool (`etp dev new-tool <connector>_<what> --kind rest`),
 * written over the REST connector framework of functions/runtime/http
 * (docs/rest-connectors.md): the connector's declaration (`defineRestConnector`,
 * `bearerAuth`, a token bucket) when its folder has none yet, the tool's spec,
 * a handler reading every page with `paginate` and `linkHeaderPaginator` within a
 * page and byte budget, and a test against a loopback fake of the API
 * (`listenOnLoopback`, `callRestTool`). The tool lists the records of one
 * endpoint, so it works as written.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { GeneratedFile } from './aws-tool-template';
import type { ToolNames } from './tool-names';

/** The connector's declaration, its tool's spec, implementation and test. */
export function restToolFiles(names: ToolNames, root: string): GeneratedFile[] {
  const connector = names.folder;
  const declaration = `functions/tools/${connector}/connector.ts`;
  return [
    ...(existsSync(path.join(root, declaration))
      ? []
      : [{ path: declaration, content: connectorDeclaration(connector, names) }]),
    { path: `functions/tools/${connector}/${names.file}.meta.ts`, content: spec(names) },
    { path: `functions/tools/${connector}/${names.file}.ts`, content: implementation(names) },
    { path: `test/unit/tools/${connector}/${names.file}.test.ts`, content: test(names) },
  ];
}

const envOf = (connector: string) => `${connector.toUpperCase()}_API_URL`;
const endpointOf = (names: ToolNames) => `/${names.file}`;

/** The token scope the generated endpoint needs, in the connector's own scope system. */
const scopeOf = (names: ToolNames) => `${names.file}:read`;

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

function spec(names: ToolNames): string {
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
  service: '${connector}',
  requiresSecrets: ['${connector}_default'],
  // What the tenant's token must be granted: every request's scopes, as the connector's \`scopes\` name them.
  tokenScopes: { ${connector}: ['${scopeOf(names)}'] },
  sideEffects: 'none',
  iam: [],
});
`;
}

function implementation(names: ToolNames): string {
  const connector = names.folder;
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

function test(names: ToolNames): string {
  const connector = names.folder;
  const env = envOf(connector);
  return `import { ${names.camel}Tool } from '../../../../functions/tools/${connector}/${names.file}';
import { type ListeningServer, listenOnLoopback, sendJson } from '../../../helpers/loopback-server';
import type { RequestCase, RequestCaseWorld } from '../../../helpers/request-case';
import { callRestTool, restSecrets, useQuietRestCalls } from '../../../helpers/rest-tool';

const TOKEN = 'test-token-0123456789';

/** The requests the fakes received, in order. */
const seen: { path: string; authorization: unknown }[] = [];

/** A loopback fake of ${endpointOf(names)}: 150 records, 100 a page, the next page in a Link header (RFC 8288). */
async function startFake(): Promise<ListeningServer> {
  const fake: ListeningServer = await listenOnLoopback((request, response) => {
    seen.push({ path: request.path, authorization: request.headers.authorization });
    if (request.headers.authorization !== \`Bearer \${TOKEN}\`) {
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
    secrets: { ${connector}_default: { token: TOKEN } },
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
    ceilingSource: 'at most 5 pages a call (functions/tools/${connector}/${names.file}.ts, budget.maxPages)',
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
});

describe('${names.tool}', () => {
  it('reads every page with the tenant token and returns the records', async () => {
    // Act
    const result = await callRestTool(${names.camel}Tool, {}, restSecrets({ ${connector}_default: { token: TOKEN } }));

    // Assess
    expect(result).toMatchObject({ ok: true, truncated: false, summary: '150 records in 2 pages' });
    const value = (result as { value: { records: { id: string }[]; next_cursor: string | null } }).value;
    expect(value.records).toHaveLength(150);
    expect(value.records[0]).toEqual({ id: '1', name: 'record 1' });
    expect(value.next_cursor).toBeNull();
    expect(seen.map((request) => request.path)).toEqual(['${endpointOf(names)}', '${endpointOf(names)}']);
  });

  it('fails with auth_failed when the API refuses the token', async () => {
    // Act
    const result = await callRestTool(
      ${names.camel}Tool,
      {},
      restSecrets({ ${connector}_default: { token: 'revoked-token-000' } }),
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'auth_failed', service: '${connector}' } });
  });

  it('refuses arguments outside its schema before any request', async () => {
    // Act
    const result = await callRestTool(
      ${names.camel}Tool,
      { cursor: 7 },
      restSecrets({ ${connector}_default: { token: TOKEN } }),
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(seen).toEqual([]);
  });
});
`;
}
