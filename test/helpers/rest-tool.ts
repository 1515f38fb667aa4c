/**
 * Running a REST connector's tool the way its function does, against a loopback
 * fake of its API: the tenant's secret read from a test environment through a
 * real SecretResolver (so a fresh re-read after a 401 is exercised), the harness
 * (`runTool`, or `runToolOnce` with an in-memory idempotency store for writes),
 * the platform logger.
 */
import { deadlineIn } from '../../functions/runtime/deadline';
import { runTool } from '../../functions/runtime/harness';
import { clearQuotaStates } from '../../functions/runtime/http/connector';
import { sharedRateLimiter } from '../../functions/runtime/http/rate-limit';
import { type IdempotencyLayerFactory, runToolOnce } from '../../functions/runtime/idempotency';
import type { ToolInvocation } from '../../functions/runtime/invocation';
import { logger } from '../../functions/runtime/logger';
import type { ToolResult } from '../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import type { Tool } from '../../functions/runtime/spec';
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

/** One call of `tool` through the harness (and, given `idempotency`, through its exactly-once record). */
export function callRestTool(
  tool: Tool,
  args: unknown,
  secrets: RestSecrets,
  options: RestCallOptions = {},
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
