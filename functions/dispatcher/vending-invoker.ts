import { DEFAULT_AWS_SECRET } from '../runtime/context';
import { DEFAULT_ORG_SECRET } from '../runtime/ids';
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
    const { orgSecret } = invocation;
    const names = [
      // An organization tool reads its level's organization secret in place of aws_org_default.
      ...spec.requiresSecrets.map((name) =>
        name === DEFAULT_ORG_SECRET && orgSecret !== undefined ? orgSecret : name,
      ),
      // A per-account call's AWS tool reads the level's organization secret (its member role).
      ...(orgSecret !== undefined && spec.requiresSecrets.includes(DEFAULT_AWS_SECRET) ? [orgSecret] : []),
      ...(spec.sideEffects === 'write' ? [IDEMPOTENCY_SESSION] : []),
    ];
    if (names.length === 0) return this.inner.invoke(spec, invocation, signal);
    const vended = await this.vendor.vend(invocation.tenant, names);
    return this.inner.invoke(spec, { ...invocation, [VENDED_CREDENTIALS_FIELD]: vended }, signal);
  }
}
