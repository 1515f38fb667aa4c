/**
 * Running a Slack tool the way its function does, against the local Slack
 * (test/helpers/slack-server.ts): the tenant's `slack_default` secret read from
 * a test environment through a real SecretResolver (so a fresh re-read after an
 * auth failure is exercised), the harness (`runTool`), the platform logger.
 */
import { deadlineIn } from '../../functions/runtime/deadline';
import { runTool } from '../../functions/runtime/harness';
import { sharedRateLimiter } from '../../functions/runtime/http/rate-limit';
import type { ToolInvocation } from '../../functions/runtime/invocation';
import { logger } from '../../functions/runtime/logger';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import type { Tool } from '../../functions/runtime/spec';
import { toolInvocation } from './events';
import { type LocalSlack, type SlackServerOptions, startSlackServer } from './slack-server';

/** Tenants whose `slack_default` the helper's secret store knows, and their variables. */
const TENANT_VARIABLES: Readonly<Record<string, string>> = {
  default: 'TEST_SLACK_DEFAULT',
  acme: 'TEST_SLACK_ACME',
};

/** The secrets of a test: each tenant's raw `slack_default` value, changeable between calls (a rotation). */
export interface SlackSecrets {
  readonly resolver: SecretResolver;
  /** Sets tenant's raw secret value (`undefined`: no value). */
  set(value: string | undefined, tenant?: string): void;
}

/**
 * A resolver with a `slack_default` reference for tenants `default` and `acme`,
 * values from an in-test environment (cached like deployed secrets).
 *
 * @example const secrets = slackSecrets(JSON.stringify({ bot_token: slack.botToken }));
 */
export function slackSecrets(value?: string): SlackSecrets {
  const env: Record<string, string | undefined> = {};
  const store = new InMemorySecretReferenceStore(
    Object.entries(TENANT_VARIABLES).map(([tenant_id, ref_value]) => ({
      tenant_id,
      secret_name: 'slack_default',
      ref_kind: 'env' as const,
      ref_value,
    })),
  );
  const resolver = new SecretResolver(store, {
    providers: { ...defaultProviders(), env: new EnvSecretProvider(env) },
  });
  const set = (raw: string | undefined, tenant = 'default') => {
    env[TENANT_VARIABLES[tenant] as string] = raw;
  };
  set(value);
  return { resolver, set };
}

/** Where and how long a call runs. */
export interface SlackCallOptions extends Partial<ToolInvocation> {
  /** The call's budget, ms (Lambda's remaining time). @default 30_000 */
  readonly budgetMs?: number;
}

/** The invocation of a Slack tool call in the `aws_pulse` report level. */
export function slackInvocation(tool: Tool, args: unknown, options: SlackCallOptions = {}): ToolInvocation {
  const { budgetMs: _budget, ...overrides } = options;
  return toolInvocation({ tool: tool.name, level: 'report', callId: 'report/0', args, ...overrides });
}

/** One call of `tool` through the harness. */
export function callSlackTool(
  tool: Tool,
  args: unknown,
  secrets: SlackSecrets,
  options: SlackCallOptions = {},
): Promise<ToolResult> {
  return runTool(tool, slackInvocation(tool, args, options), deadlineIn(options.budgetMs ?? 30_000), {
    logger,
    secrets: secrets.resolver,
  });
}

/** The result as a success, or a test failure showing the error. */
export function success(result: ToolResult): ToolSuccess<Record<string, unknown>> {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result as ToolSuccess<Record<string, unknown>>;
}

/** The result as a failure, or a test failure showing the value. */
export function failure(result: ToolResult): ToolFailure {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

/** The local Slack of the running test ({@link useLocalSlack}). */
export interface LocalSlackPerTest {
  /** The current test's server. @throws Error outside a test */
  current(): LocalSlack;
  /** Replaces the current test's server by one started with `options` (a rotated token, truncation…). */
  restart(options: SlackServerOptions): Promise<LocalSlack>;
}

/**
 * A fresh local Slack for each test of the calling file (Jest hooks): full
 * per-channel rate buckets (they are per container, like a warm Lambda's),
 * `SLACK_API_URL` pointing at it, the harness's failure logs kept out of the
 * output; stopped after the test.
 *
 * @example const slack = useLocalSlack(); … slack.current().messages
 */
export function useLocalSlack(options?: SlackServerOptions): LocalSlackPerTest {
  let slack: LocalSlack | undefined;
  const start = async (with_?: SlackServerOptions) => {
    slack = await startSlackServer(with_);
    process.env.SLACK_API_URL = slack.apiUrl;
    return slack;
  };
  beforeEach(async () => {
    sharedRateLimiter.clear();
    await start(options);
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    delete process.env.SLACK_API_URL;
    await slack?.stop();
    slack = undefined;
  });
  return {
    current: () => {
      if (!slack) throw new Error('useLocalSlack: no test is running');
      return slack;
    },
    restart: async (with_) => {
      await slack?.stop();
      return start(with_);
    },
  };
}
