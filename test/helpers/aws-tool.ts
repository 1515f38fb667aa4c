/**
 * What the AWS tools' unit tests run a tool with: tool-host services whose
 * tenant `default` reaches AWS through its `aws_default` secret, one call of a
 * tool through the harness as its function makes it, and the checks that the
 * call succeeded or failed. The SDK clients are mocked in each test file, so no
 * credential is ever sent.
 */
import type { ToolContextServices } from '../../functions/runtime/context';
import { type Deadline, deadlineIn } from '../../functions/runtime/deadline';
import { runTool } from '../../functions/runtime/harness';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import type { Tool } from '../../functions/runtime/spec';
import { toolHostServices } from '../../functions/runtime/tool-host';
import { toolInvocation } from './events';

/**
 * An `aws_default` payload of static keys: the access-key example of the AWS docs
 * (IAM User Guide, "Managing access keys for IAM users"), home region eu-west-1.
 * Static keys resolve without STS or a credential chain.
 */
export const EXAMPLE_AWS_SECRET = {
  access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'eu-west-1',
} as const;

/** The variable the `aws_default` reference names, set in a private environment (never `process.env`). */
const SECRET_VARIABLE = 'TEST_AWS_DEFAULT';

/**
 * Tool-host services whose tenant `default` has `aws_default` = `secret`, read
 * through an `env` reference from a private environment.
 *
 * @param secret - the payload, any of the three `aws_*` shapes (static keys,
 *   `role_arn`, `{ region }` alone for the function's own role). @default {@link EXAMPLE_AWS_SECRET}
 *
 * @example
 * runAwsTool(ec2InventoryTool, {}, { services: awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' }) });
 */
export function awsToolServices(secret: Record<string, unknown> = EXAMPLE_AWS_SECRET): ToolContextServices {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: SECRET_VARIABLE },
  ]);
  const env = new EnvSecretProvider({ [SECRET_VARIABLE]: JSON.stringify(secret) });
  return toolHostServices(new SecretResolver(store, { providers: { ...defaultProviders(), env } }));
}

/**
 * Tool-host services with no `aws_default` reference and the local-run fallback
 * on: the tool uses the default credential chain, which the mocked clients never call.
 */
export function defaultChainToolServices(): ToolContextServices {
  return toolHostServices(new SecretResolver(new InMemorySecretReferenceStore([])), {
    awsFallbackToDefaultChain: true,
  });
}

/** Options of {@link runAwsTool}. */
export interface RunAwsToolOptions {
  /** @default awsToolServices() (fresh for the call) */
  readonly services?: ToolContextServices;
  /** @default 60 s from the call */
  readonly deadline?: Deadline;
}

/**
 * One call of `tool` through `runTool`, with the invocation of the `aws_pulse`
 * collect level's first call ({@link toolInvocation}: tenant `default`, its run
 * id, call id `collect/0`) and `args` as the model sent them.
 */
export function runAwsTool(tool: Tool, args: unknown, options: RunAwsToolOptions = {}): Promise<ToolResult> {
  return runTool(
    tool,
    toolInvocation({ tool: tool.name, args }),
    options.deadline ?? deadlineIn(60_000),
    options.services ?? awsToolServices(),
  );
}

/** Asserts that the call succeeded; returns the success with its value typed `V`. */
export function expectSuccess<V>(result: ToolResult): ToolSuccess<V> {
  expect(result).toMatchObject({ ok: true });
  return result as ToolSuccess<V>;
}

/** Asserts that the call failed; returns the failure. */
export function expectFailure(result: ToolResult): ToolFailure {
  expect(result).toMatchObject({ ok: false });
  return result as ToolFailure;
}

/**
 * Fakes only `Date`, set to `now`, for tools whose periods count from today: the
 * SDK mocks, the deadline and the harness keep real timers. Undo with
 * `jest.useRealTimers()`.
 */
export function fakeToday(now: Date): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
