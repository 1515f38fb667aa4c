import { DEFAULT_AWS_SECRET } from '../runtime/context';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import {
  type CredentialVendor,
  IDEMPOTENCY_SESSION,
  VENDED_CREDENTIALS_FIELD,
} from '../runtime/secrets/vended';
import type { ToolSpec } from '../runtime/spec';
import type { ToolInvoker } from './invoker';

/**
 * The dispatcher as the token vending machine (docs/tenant-isolation.md): before
 * a tool that lists secrets is invoked, the tenant's reader session of each name
 * its spec lists is opened for the call's tenant (the envelope's, checked by the
 * dispatcher, or the access profile's), and for a `write` tool a session of the
 * exactly-once records role ({@link IDEMPOTENCY_SESSION}), and added to the
 * invocation under `vendedCredentials`. Nothing else travels: no other name, no other tenant, no
 * secret value. The invocation is never logged (the dispatcher logs the envelope's
 * keys and the args), and the tool's result is redacted with the sessions' secret
 * parts masked by exact match (functions/runtime/harness.ts).
 *
 * @example
 * const invoker = new VendingToolInvoker(new LambdaToolInvoker(lambda, nameOf), vendor);
 */
export class VendingToolInvoker implements ToolInvoker {
  constructor(
    private readonly inner: ToolInvoker,
    private readonly vendor: CredentialVendor,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    return this.inner.invoke(spec, await withVendedSessions(this.vendor, spec, invocation), signal);
  }
}

/**
 * The session names a call's tool is vended: the secrets its spec lists, a
 * per-account call's organization secret for an AWS tool, a write tool's records
 * session, and `extra` (a callback call's run-data session); `extra` alone
 * when `specSessions` is false (no reader roles are configured: a local wiring).
 */
export function vendedSessionNames(
  spec: ToolSpec,
  invocation: ToolInvocation,
  extra: readonly string[] = [],
  specSessions = true,
): string[] {
  if (!specSessions) return [...extra];
  return [
    ...spec.requiresSecrets,
    // A per-account call's AWS tool reads the level's organization secret (its member role).
    ...(invocation.orgSecret !== undefined && spec.requiresSecrets.includes(DEFAULT_AWS_SECRET)
      ? [invocation.orgSecret]
      : []),
    ...(spec.sideEffects === 'write' ? [IDEMPOTENCY_SESSION] : []),
    ...extra,
  ];
}

/**
 * `invocation` with the call's sessions ({@link vendedSessionNames}) under
 * `vendedCredentials`, for the call's tenant only; as it is when there are none.
 *
 * @throws the STS error (`access_denied`, `throttled`…) when a role cannot be assumed.
 */
export async function withVendedSessions(
  vendor: CredentialVendor,
  spec: ToolSpec,
  invocation: ToolInvocation,
  extra: readonly string[] = [],
  specSessions = true,
): Promise<ToolInvocation> {
  const names = vendedSessionNames(spec, invocation, extra, specSessions);
  if (names.length === 0) return invocation;
  return { ...invocation, [VENDED_CREDENTIALS_FIELD]: await vendor.vend(invocation.tenant, names) };
}
