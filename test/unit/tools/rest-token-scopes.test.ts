import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { RestConnector } from '../../../functions/runtime/http/connector';
import {
  describeScopes,
  endpointScopes,
  pathBelow,
  type RestRequestMessage,
  type ScopeTable,
  scopesNeeded,
  uncoveredScopes,
} from '../../../functions/runtime/http/scopes';
import { parseSecretPayload } from '../../../functions/runtime/secrets/secret-payload';
import type { Tool } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';
import { githubMergedPullsTool } from '../../../functions/tools/github/merged-pulls';
import { GITHUB_SCOPES } from '../../../functions/tools/github/scopes';
import { tokenScopeProblems } from '../../helpers/rest-tool';

const TOOLS = path.resolve(__dirname, '../../../functions/tools');

/**
 * The scope tables of every REST connector declared in a tool folder: the
 * `scopes` of each `defineRestConnector` a module of `functions/tools/<folder>/`
 * exports, by folder.
 */
function scopeTablesByFolder(): Map<string, ScopeTable[]> {
  const tables = new Map<string, ScopeTable[]>();
  for (const { folder, connector } of connectorsByFolder()) {
    const scopes = connector.declaration.scopes;
    if (scopes) tables.set(folder, [...(tables.get(folder) ?? []), scopes]);
  }
  return tables;
}

/** Every REST connector (`defineRestConnector`) a module of `functions/tools/<folder>/` exports, with its folder. */
function connectorsByFolder(): { folder: string; connector: RestConnector<unknown> }[] {
  const found: { folder: string; connector: RestConnector<unknown> }[] = [];
  for (const folder of readdirSync(TOOLS, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of readdirSync(path.join(TOOLS, folder.name))) {
      if (!file.endsWith('.ts') || file.endsWith('.meta.ts')) continue;
      const exported: Record<string, unknown> = require(path.join(TOOLS, folder.name, file));
      for (const value of Object.values(exported)) {
        const connector = value as Partial<RestConnector<unknown>> | null;
        if (connector?.declaration?.secret)
          found.push({ folder: folder.name, connector: connector as RestConnector<unknown> });
      }
    }
  }
  return found;
}

const sent = (
  method: RestRequestMessage['method'],
  requestPath: string,
  scopes?: ScopeTable,
): RestRequestMessage => ({
  tool: 'github_merged_pulls',
  service: 'github',
  method,
  path: requestPath,
  scopes,
});

describe('the REST tools, against the scopes their endpoints need', () => {
  it('declare only scopes some endpoint of their connector folder needs (a misspelt scope is named)', () => {
    // Prepare
    const tables = scopeTablesByFolder();
    const unknown: string[] = [];
    let declared = 0;

    // Act
    for (const entry of toolCatalog.functionTools()) {
      const scopes = entry.spec.tokenScopes;
      if (!scopes) continue;
      const folder = entry.implementation.split('/')[0] as string;
      const known = new Set(
        (tables.get(folder) ?? [])
          .flat()
          .flatMap((endpoint) =>
            Object.entries(endpoint.needs).flatMap(([system, names]) =>
              names.map((name) => `${system}:${name}`),
            ),
          ),
      );
      for (const [system, names] of Object.entries(scopes)) {
        for (const name of names) {
          declared++;
          if (!known.has(`${system}:${name}`)) {
            unknown.push(
              `${entry.spec.name} declares ${system}:${name}, which no endpoint of a connector of functions/tools/${folder}/ needs`,
            );
          }
        }
      }
    }

    // Assess
    expect(unknown).toEqual([]);
    expect(declared).toBeGreaterThan(0);
  });

  it("every connector's secret example is a payload its own schema accepts (what generated tests seed)", () => {
    // Prepare
    const connectors = connectorsByFolder();

    // Act / Assess
    expect(connectors.length).toBeGreaterThan(0);
    for (const { folder, connector } of connectors) {
      const secret = connector.declaration.secret;
      expect({
        folder,
        parsed: parseSecretPayload(secret.example as Record<string, unknown>, secret),
      }).toEqual({
        folder,
        parsed: secret.example,
      });
    }
  });

  it('every scope table names its source page and matches no endpoint twice', () => {
    for (const [folder, tables] of scopeTablesByFolder()) {
      for (const endpoint of tables.flat()) {
        expect({ folder, endpoint: `${endpoint.method} ${endpoint.path}`, source: endpoint.source }).toEqual({
          folder,
          endpoint: `${endpoint.method} ${endpoint.path}`,
          source: expect.stringMatching(/^https:\/\//),
        });
        const concrete = endpoint.path.replace(/\{[^}]+\}/g, 'x1');
        expect(
          tables.flat().filter((other) => endpointScopes([other], endpoint.method, concrete)),
        ).toHaveLength(1);
      }
    }
  });
});

describe('tokenScopeProblems (the check callRestTool runs after every call)', () => {
  it('passes a tool whose requests its tokenScopes cover', () => {
    // Act
    const problems = tokenScopeProblems(githubMergedPullsTool as unknown as Tool, [
      sent('GET', '/repos/octocat/Hello-World/pulls', GITHUB_SCOPES),
      sent('GET', '/search/issues', GITHUB_SCOPES),
    ]);

    // Assess
    expect(problems).toEqual([]);
  });

  it('names the scope a tool lacks, in its system, and where to add it', () => {
    // Prepare: the real spec without its fine-grained permission
    const tool = { ...githubMergedPullsTool, tokenScopes: { github_classic: ['repo'] } } as unknown as Tool;

    // Act
    const problems = tokenScopeProblems(tool, [
      sent('GET', '/repos/octocat/Hello-World/pulls', GITHUB_SCOPES),
    ]);

    // Assess
    expect(problems).toEqual([
      "github_merged_pulls sends GET /repos/{owner}/{repo}/pulls, which needs github:pull_requests=read, but its spec's tokenScopes lack it: add it to the tool's .meta.ts",
    ]);
  });

  it('names an endpoint the scope table does not list, and a catalog tool whose connector has no table', () => {
    // Act
    const problems = tokenScopeProblems(githubMergedPullsTool as unknown as Tool, [
      sent('DELETE', '/repos/octocat/Hello-World', GITHUB_SCOPES),
      sent('GET', '/repos/octocat/Hello-World/pulls'),
    ]);

    // Assess
    expect(problems).toEqual([
      "github_merged_pulls sends DELETE /repos/octocat/Hello-World, which the github connector's scope table does not list: add it to the connector's `scopes` with the scopes the API reference names",
      'github_merged_pulls sends GET /repos/octocat/Hello-World/pulls, but the github connector declares no scope table: add `scopes` (functions/runtime/http/scopes.ts) to its defineRestConnector',
    ]);
  });
});

describe('scope tables', () => {
  const table: ScopeTable = [
    {
      method: 'GET',
      path: '/repos/{owner}/{repo}/pulls',
      needs: { github: ['pull_requests=read'] },
      source: 'https://x',
    },
    {
      method: 'POST',
      path: '/v1/candidates/{id}/activity_feed/notes',
      needs: { greenhouse: ['POST: Add Note'] },
      source: 'https://x',
    },
  ];

  it.each([
    ['GET', '/repos/o/r/pulls', '/repos/{owner}/{repo}/pulls'],
    ['GET', '/repos/o%2Fx/r/pulls', '/repos/{owner}/{repo}/pulls'],
    ['POST', '/v1/candidates/42/activity_feed/notes', '/v1/candidates/{id}/activity_feed/notes'],
  ])('matches %s %s to %s', (method, requestPath, template) => {
    expect(endpointScopes(table, method, requestPath)?.path).toBe(template);
  });

  it.each([
    ['POST', '/repos/o/r/pulls'],
    ['GET', '/repos/o/r/x/pulls'],
    ['GET', '/repos/o/r/pulls/1'],
  ])('does not match %s %s (another method, or a segment more)', (method, requestPath) => {
    expect(endpointScopes(table, method, requestPath)).toBeUndefined();
  });

  it('reads a request path below the base URL, and names what a 403 lacks from the table', () => {
    expect(
      pathBelow('http://127.0.0.1:9/api/v3', new URL('http://127.0.0.1:9/api/v3/repos/o/r/pulls?x=1')),
    ).toBe('/repos/o/r/pulls');
    expect(pathBelow('https://api.github.com', new URL('https://api.github.com/search/issues'))).toBe(
      '/search/issues',
    );
    expect(scopesNeeded(table, 'GET', '/repos/o/r/pulls')).toBe('pull_requests=read (github)');
    expect(scopesNeeded(table, 'GET', '/elsewhere')).toBeUndefined();
    expect(scopesNeeded(undefined, 'GET', '/repos/o/r/pulls')).toBeUndefined();
  });

  it('lists what is uncovered as system:scope, and describes needs in words', () => {
    expect(
      uncoveredScopes({ github: ['a=read', 'b=write'], github_classic: ['repo'] }, { github: ['a=read'] }),
    ).toEqual(['github:b=write', 'github_classic:repo']);
    expect(uncoveredScopes({}, undefined)).toEqual([]);
    expect(describeScopes({ github: ['pull_requests=read'], github_classic: ['repo'] })).toBe(
      'pull_requests=read (github), repo (github_classic)',
    );
    expect(describeScopes({})).toBeUndefined();
  });
});
