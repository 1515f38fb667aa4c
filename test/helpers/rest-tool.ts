/**
 * Running a REST connector's tool the way its function does, against a loopback
 * fake of its API: the tenant's secret read from a test environment through a
 * real SecretResolver (so a fresh re-read after a 401 is exercised), the harness
 * (`runTool`, or `runToolOnce` with an in-memory idempotency store for writes),
 * the platform logger. Every call is also the tool's token-scope check: a
 * request its spec's `tokenScopes` do not cover fails the call's test with the
 * missing scope named ({@link tokenScopeProblems}).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { deadlineIn } from '../../functions/runtime/deadline';
import { runTool } from '../../functions/runtime/harness';
import { createHttpClient } from '../../functions/runtime/http/client';
import { clearQuotaStates, type RestConnector } from '../../functions/runtime/http/connector';
import { sharedRateLimiter } from '../../functions/runtime/http/rate-limit';
import {
  endpointScopes,
  REST_REQUEST_CHANNEL,
  type RestRequestMessage,
  uncoveredScopes,
} from '../../functions/runtime/http/scopes';
import { runToolOnce } from '../../functions/runtime/idempotency';
import type { IdempotencyLayerFactory } from '../../functions/runtime/idempotency-layers';
import type { ToolInvocation } from '../../functions/runtime/invocation';
import { logger } from '../../functions/runtime/logger';
import type { ToolResult } from '../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import type { Tool } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import { toolInvocation } from './events';

/** Tenants the helper's secret store knows. */
export const REST_TEST_TENANTS = ['default', 'acme'] as const;

/** The secrets of a test: each tenant's raw value of each secret name, changeable between calls (a rotation). */
export interface RestSecrets {
  readonly resolver: SecretResolver;
  /** Sets a tenant's raw secret value (`undefined`: no value); objects are written as JSON. */
  set(name: string, value: unknown, tenant?: string): void;
}

function variable(tenant: string, name: string): string {
  return `TEST_${tenant}_${name}`.toUpperCase();
}

/**
 * A resolver with references for `names` for tenants `default` and `acme`,
 * values from an in-test environment (cached like deployed secrets).
 *
 * @example const secrets = restSecrets({ github_default: { token: github.token } });
 */
export function restSecrets(values: Readonly<Record<string, unknown>>): RestSecrets {
  const env: Record<string, string | undefined> = {};
  const names = Object.keys(values);
  const store = new InMemorySecretReferenceStore(
    REST_TEST_TENANTS.flatMap((tenant_id) =>
      names.map((secret_name) => ({
        tenant_id,
        secret_name,
        ref_kind: 'env' as const,
        ref_value: variable(tenant_id, secret_name),
      })),
    ),
  );
  const resolver = new SecretResolver(store, {
    providers: { ...defaultProviders(), env: new EnvSecretProvider(env) },
  });
  const set = (name: string, value: unknown, tenant = 'default') => {
    env[variable(tenant, name)] =
      value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
  };
  for (const [name, value] of Object.entries(values)) set(name, value);
  return { resolver, set };
}

/** Where and how long a call runs. */
export interface RestCallOptions extends Partial<ToolInvocation> {
  /** The call's budget, ms. @default 30_000 */
  readonly budgetMs?: number;
  /** For write tools: the exactly-once records (`new InMemoryIdempotencyStore().layer`). */
  readonly idempotency?: IdempotencyLayerFactory;
}

/**
 * What is wrong with the requests `tool` sent, against its connector's scope
 * table and its spec's `tokenScopes`: one sentence per request whose endpoint
 * the table does not list or whose scopes the spec lacks, saying what to add
 * where; empty when every request is covered. The REST analogue of
 * test/unit/tools/aws/iam-covers-calls.test.ts.
 */
export function tokenScopeProblems(tool: Tool, sent: readonly RestRequestMessage[]): string[] {
  const problems = new Set<string>();
  for (const request of sent) {
    const what = `${tool.name} sends ${request.method} ${request.path}`;
    if (!request.scopes) {
      // A connector the framework's own tests declare ad hoc has no table; a catalog tool's must.
      if (!toolCatalog.functionTools().some((entry) => entry.spec.name === tool.name)) continue;
      problems.add(
        `${what}, but the ${request.service} connector declares no scope table: add \`scopes\` (functions/runtime/http/scopes.ts) to its defineRestConnector`,
      );
      continue;
    }
    const endpoint = endpointScopes(request.scopes, request.method, request.path);
    if (!endpoint) {
      problems.add(
        `${what}, which the ${request.service} connector's scope table does not list: add it to the connector's \`scopes\` with the scopes the API reference names`,
      );
      continue;
    }
    const missing = uncoveredScopes(endpoint.needs, tool.tokenScopes);
    if (missing.length > 0) {
      problems.add(
        `${tool.name} sends ${endpoint.method} ${endpoint.path}, which needs ${missing.join(', ')}, but its spec's tokenScopes lack it: add it to the tool's .meta.ts`,
      );
    }
  }
  return [...problems];
}

/**
 * One call of `tool` through the harness (and, given `idempotency`, through its
 * exactly-once record).
 *
 * @throws Error naming every token-scope problem of the requests the call sent
 *   ({@link tokenScopeProblems}), after the call ended.
 */
export async function callRestTool(
  tool: Tool,
  args: unknown,
  secrets: RestSecrets,
  options: RestCallOptions = {},
): Promise<ToolResult> {
  const sent: RestRequestMessage[] = [];
  const record = (message: unknown) => {
    if ((message as RestRequestMessage).tool === tool.name) sent.push(message as RestRequestMessage);
  };
  subscribe(REST_REQUEST_CHANNEL.name, record);
  try {
    const result = await runRestCall(tool, args, secrets, options);
    const problems = tokenScopeProblems(tool, sent);
    if (problems.length > 0) throw new Error(`token scopes:\n${problems.join('\n')}`);
    return result;
  } finally {
    unsubscribe(REST_REQUEST_CHANNEL.name, record);
  }
}

function runRestCall(
  tool: Tool,
  args: unknown,
  secrets: RestSecrets,
  options: RestCallOptions,
): Promise<ToolResult> {
  const { budgetMs, idempotency, ...overrides } = options;
  const invocation = toolInvocation({
    tool: tool.name,
    scenario: 'incident_response',
    level: 'gather',
    callId: 'gather/0',
    args,
    ...overrides,
  });
  const deadline = deadlineIn(budgetMs ?? 30_000);
  const services = { logger, secrets: secrets.resolver };
  return idempotency
    ? runToolOnce(tool, invocation, deadline, services, idempotency)
    : runTool(tool, invocation, deadline, services);
}

/**
 * The `authorization` header `connector` sends with `secret`: its own
 * authenticator's (a bearer token, PagerDuty's `Token token=…`, Basic), for a
 * fake that checks it as the API would. An authenticator that exchanges the
 * secret first (a GitHub App) would send its exchange through a real client
 * bounded by 10 s; give it a token form instead.
 *
 * @example const authorization = await authorizationOf(github, github.declaration.secret.example);
 */
export async function authorizationOf<S>(
  connector: RestConnector<S>,
  secret: S,
): Promise<string | undefined> {
  const { declaration } = connector;
  const deadline = deadlineIn(10_000);
  const headers = await declaration.authenticator(secret).authorize(secret, {
    tenant: REST_TEST_TENANTS[0],
    baseUrl: declaration.baseUrl(secret),
    http: createHttpClient({ deadline, service: declaration.service, rateLimit: false }),
    deadline,
  });
  return headers.authorization;
}

/** Fresh rate-limit buckets and quota states, and the harness's failure logs kept out of the output (Jest hooks). */
export function useQuietRestCalls(): { logs(): string } {
  let written: string[] = [];
  beforeEach(() => {
    sharedRateLimiter.clear();
    clearQuotaStates();
    written = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  return { logs: () => written.join('') };
}
