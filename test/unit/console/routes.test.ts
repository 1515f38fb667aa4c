import { groupsOfClaim, tenantGroupName, tenantsOfGroups } from '../../../functions/console/authz';
import type { ConsoleBackend } from '../../../functions/console/backend';
import { consoleCatalog } from '../../../functions/console/catalog-view';
import { CONSOLE_ROUTES, type ConsoleRoute, handleConsoleRequest } from '../../../functions/console/routes';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import type { Workspace } from '../../../functions/runtime/workspace';
import { toolCatalog } from '../../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../../lib/scenarios/loader';

const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
const SCENARIO = scenarios[0]?.name ?? '';

/** A backend whose every store records what it was asked: a refused request must ask nothing. */
function recordingBackend() {
  const touched: string[] = [];
  const note =
    <T>(what: string, value: T) =>
    async () => {
      touched.push(what);
      return value;
    };
  const references = new InMemorySecretReferenceStore([
    { tenant_id: 'acme', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'ETP_SLACK_ACME' },
    { tenant_id: 'globex', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'ETP_SLACK_GLOBEX' },
  ]);
  const workspace: Workspace = {
    uri: 'file:///runs/',
    read: async (path: string) => {
      touched.push(`read ${path}`);
      return { path, content: '{}', offset: 0, bytes: 2, totalBytes: 2 };
    },
    write: async () => {
      throw new Error('the console never writes a workspace');
    },
    list: note('list', [
      { path: 'levels/collect/results.json', bytes: 2, lastModified: '2026-11-01T00:00:00.000Z' },
    ]),
  } as unknown as Workspace;
  const backend: ConsoleBackend = {
    mode: 'deployed',
    catalog: consoleCatalog(toolCatalog, scenarios),
    references: {
      get: async (t, n) => {
        touched.push(`get ${t}`);
        return references.get(t, n);
      },
      list: async (t) => {
        touched.push(`list ${t}`);
        return references.list(t);
      },
      put: async (row) => {
        touched.push(`put ${row.tenant_id}`);
        return references.put(row);
      },
      delete: async (t, n) => {
        touched.push(`delete ${t}`);
        return references.delete(t, n);
      },
    },
    secretTags: note('tags', { status: 'tagged' as const }),
    runs: { scenarios: note('scenarios', [SCENARIO]), runIds: note('runIds', ['run-20261101T000000Z-a']) },
    workspaces: (scope) => {
      touched.push(`workspace ${scope.tenant}`);
      return workspace;
    },
    questions: { open: note('questions', []), answer: note('answer', undefined) },
    starter: { start: note('start', { runId: 'run-new' }) },
    history: note('history', undefined),
    knownTenants: note('tenants', ['acme', 'globex']),
  };
  return { backend, touched };
}

/** A path of `route` for `tenant`, every other parameter filled with a well-formed value. */
function pathOf(route: ConsoleRoute, tenant: string): string {
  const values: Record<string, string> = {
    tenant,
    name: 'slack_default',
    scenario: SCENARIO,
    runId: 'run-1',
  };
  return route.pattern.replace(/:([a-zA-Z]+)/g, (_, name: string) => values[name] ?? 'x');
}

/** A body each route accepts, by method and pattern. */
const BODIES: Record<string, unknown> = {
  'PUT /api/tenants/:tenant/secrets/:name': { ref_kind: 'env', ref_value: 'ETP_SLACK_X', notes: 'n' },
  'POST /api/tenants/:tenant/runs': { scenario: SCENARIO, input: {} },
  'POST /api/tenants/:tenant/questions/:runId/answer': { text: 'yes' },
};
const bodyOf = (route: ConsoleRoute) => BODIES[`${route.method} ${route.pattern}`];

const tenantRoutes = CONSOLE_ROUTES.filter((route) => route.pattern.includes('/:tenant'));
const acmeUser = { name: 'alice', tenants: ['acme'] };

describe('console API authorization', () => {
  it('has tenant routes to check', () => {
    expect(tenantRoutes.length).toBeGreaterThan(0);
  });

  it.each(tenantRoutes.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    'answers 403 to a user of tenant acme for tenant globex on %s, reading nothing',
    async (_label, route) => {
      // Prepare
      const { backend, touched } = recordingBackend();

      // Act
      const response = await handleConsoleRequest(
        {
          method: route.method,
          path: pathOf(route, 'globex'),
          query: { path: 'summary.json' },
          body: bodyOf(route),
          user: acmeUser,
        },
        backend,
      );

      // Assess
      expect(response).toEqual({
        status: 403,
        body: { error: { code: 'access_denied', message: 'Your groups do not name this tenant' } },
      });
      expect(touched).toEqual([]);
    },
  );

  it.each(tenantRoutes.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    "serves the user's own tenant on %s",
    async (_label, route) => {
      // Prepare
      const { backend, touched } = recordingBackend();

      // Act
      const response = await handleConsoleRequest(
        {
          method: route.method,
          path: pathOf(route, 'acme'),
          query: { path: 'summary.json' },
          body: bodyOf(route),
          user: acmeUser,
        },
        backend,
      );

      // Assess: not refused, and every store it touched was asked for acme only
      expect(response.status).toBeLessThan(300);
      expect(touched.filter((what) => what.includes('globex'))).toEqual([]);
    },
  );

  it.each(tenantRoutes.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    "deployed, serves %s with the tenant's own backend (its tenant-tagged session), opened after the group check",
    async (_label, route) => {
      // Prepare: the root backend's stores must not be read; the tenant's are
      const root = recordingBackend();
      const scoped = recordingBackend();
      const opened: string[] = [];
      const backend: ConsoleBackend = {
        ...root.backend,
        forTenant: (tenant) => {
          opened.push(tenant);
          return scoped.backend;
        },
      };
      const request = (tenant: string) =>
        handleConsoleRequest(
          {
            method: route.method,
            path: pathOf(route, tenant),
            query: { path: 'summary.json' },
            body: bodyOf(route),
            user: acmeUser,
          },
          backend,
        );

      // Act
      const refused = await request('globex');
      const served = await request('acme');

      // Assess
      expect(refused.status).toBe(403);
      expect(served.status).toBeLessThan(300);
      expect(opened).toEqual(['acme']);
      expect(root.touched).toEqual([]);
      expect(scoped.touched.filter((what) => what.includes('globex'))).toEqual([]);
    },
  );

  it('refuses another tenant before it looks at the rest of the path or the method', async () => {
    // Prepare
    const { backend, touched } = recordingBackend();

    // Act
    const badParam = await handleConsoleRequest(
      { method: 'GET', path: '/api/tenants/globex/runs/NOT_A_NAME/..', query: {}, user: acmeUser },
      backend,
    );
    const badMethod = await handleConsoleRequest(
      { method: 'PATCH', path: '/api/tenants/globex/secrets', query: {}, user: acmeUser },
      backend,
    );

    // Assess
    expect([badParam.status, badMethod.status]).toEqual([403, 403]);
    expect(touched).toEqual([]);
  });

  it('lists only the tenants the groups name in the session', async () => {
    // Prepare
    const { backend } = recordingBackend();

    // Act
    const response = await handleConsoleRequest(
      { method: 'GET', path: '/api/session', query: {}, user: { name: 'bob', tenants: ['globex', 'acme'] } },
      backend,
    );

    // Assess
    expect(response).toEqual({
      status: 200,
      body: { user: 'bob', mode: 'deployed', tenants: ['acme', 'globex'], canStartRuns: true },
    });
  });

  it('rejects malformed parameters and bodies with what is accepted', async () => {
    // Prepare
    const { backend } = recordingBackend();
    const user = { name: 'local', tenants: '*' as const };

    // Act
    const badName = await handleConsoleRequest(
      {
        method: 'PUT',
        path: '/api/tenants/acme/secrets/..',
        query: {},
        body: BODIES['PUT /api/tenants/:tenant/secrets/:name'],
        user,
      },
      backend,
    );
    const badKind = await handleConsoleRequest(
      {
        method: 'PUT',
        path: '/api/tenants/acme/secrets/slack_x',
        query: {},
        body: { ref_kind: 'file' },
        user,
      },
      backend,
    );
    const badInline = await handleConsoleRequest(
      {
        method: 'PUT',
        path: '/api/tenants/acme/secrets/slack_x',
        query: {},
        body: { ref_kind: 'inline', ref_value: 'xoxb-1111-2222-abcdefabcdef' },
        user,
      },
      backend,
    );
    const secretValue = await handleConsoleRequest(
      {
        method: 'PUT',
        path: '/api/tenants/acme/secrets/slack_x',
        query: {},
        body: { ref_kind: 'env', ref_value: 'xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx' },
        user,
      },
      backend,
    );
    const unknown = await handleConsoleRequest(
      { method: 'GET', path: '/api/nope', query: {}, user },
      backend,
    );

    // Assess
    expect(badName.status).toBe(400);
    expect(JSON.stringify(badName.body)).toContain('secret name');
    expect(badKind).toEqual({
      status: 400,
      body: { error: { code: 'invalid_args', message: 'ref_kind: expected one of env, secrets_manager' } },
    });
    expect(badInline.status).toBe(400);
    expect(JSON.stringify(badInline.body)).toContain('the console never handles secret values');
    expect(secretValue.status).toBe(400);
    expect(JSON.stringify(secretValue.body)).not.toContain('xoxb-123456789012');
    expect(unknown.status).toBe(404);
  });
});

describe('console API bodies', () => {
  const bodyRoutes = CONSOLE_ROUTES.filter((route) => route.method === 'PUT' || route.method === 'POST');

  it('has a body for every route that takes one', () => {
    expect(bodyRoutes.map((route) => `${route.method} ${route.pattern}`).sort()).toEqual(
      Object.keys(BODIES).sort(),
    );
  });

  it.each(bodyRoutes.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    'refuses a field %s does not know, naming it and the accepted ones, writing nothing',
    async (_label, route) => {
      // Prepare: a misspelt field beside the accepted ones, and a token pasted as a key
      const { backend, touched } = recordingBackend();
      const accepted = Object.keys(bodyOf(route) as object);
      const token = 'xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx';

      // Act
      const response = await handleConsoleRequest(
        {
          method: route.method,
          path: pathOf(route, 'acme'),
          query: {},
          body: { ...(bodyOf(route) as object), note: 'typo', [token]: 1 },
          user: acmeUser,
        },
        backend,
      );

      // Assess
      expect(response).toEqual({
        status: 400,
        body: {
          error: {
            code: 'invalid_args',
            message: `the body: unknown fields "note", "<redacted>"; accepted: ${accepted.join(', ')}`,
          },
        },
      });
      expect(touched.filter((what) => /^(put|start|answer)/.test(what))).toEqual([]);
    },
  );

  it.each([[[]], [null], ['{}'], [5]])('refuses a run input %j that is not a JSON object', async (input) => {
    // Prepare
    const { backend, touched } = recordingBackend();

    // Act
    const response = await handleConsoleRequest(
      {
        method: 'POST',
        path: '/api/tenants/acme/runs',
        query: {},
        body: { scenario: SCENARIO, input },
        user: acmeUser,
      },
      backend,
    );

    // Assess
    expect(response).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_args',
          message: `input: expected a JSON object of the scenario's inputs, such as {"regions":["eu-west-1"]}`,
        },
      },
    });
    expect(touched).not.toContain('start');
  });
});

describe('tenant groups', () => {
  it('grants the tenants named by tenant-<id> groups only', () => {
    expect(
      tenantsOfGroups(['tenant-acme', 'admins', 'tenant-', 'tenant-../x', 'tenant-acme', 'tenant-globex']),
    ).toEqual(['acme', 'globex']);
  });

  it('reads the cognito:groups claim as an array or as its flattened string forms', () => {
    expect(groupsOfClaim(['tenant-a', 7])).toEqual(['tenant-a']);
    expect(groupsOfClaim('[tenant-a tenant-b]')).toEqual(['tenant-a', 'tenant-b']);
    expect(groupsOfClaim('tenant-a,tenant-b')).toEqual(['tenant-a', 'tenant-b']);
    expect(groupsOfClaim(undefined)).toEqual([]);
  });

  it('names a group per tenant and refuses what Cognito or the tenant rule would not take', () => {
    expect(tenantGroupName('acme')).toBe('tenant-acme');
    expect(() => tenantGroupName('a/b')).toThrow('is not a tenant id');
    expect(() => tenantGroupName('a'.repeat(125))).toThrow("exceeds Cognito's 128 characters");
  });
});
