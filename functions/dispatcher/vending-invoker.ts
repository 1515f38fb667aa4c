import { recordsSessionPolicy } from '../runtime/call-key';
import { DEFAULT_AWS_SECRET } from '../runtime/context';
import { DEFAULT_ORG_SECRET } from '../runtime/ids';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import { workspaceSessionPolicy } from '../runtime/run-data-sessions';
import {
  type CredentialVendor,
  IDEMPOTENCY_SESSION,
  RUN_DATA_SESSION,
  VENDED_CREDENTIALS_FIELD,
} from '../runtime/secrets/vended';
import type { ToolSpec } from '../runtime/spec';
import type { ToolInvoker } from './invoker';

/**
 * The dispatcher as the token vending machine (docs/tenant-isolation.md): before
 * a tool that lists secrets is invoked, the tenant's reader session of each name
 * its spec lists is opened for the call's tenant (the envelope's, checked by the
 * dispatcher, or the access profile's), and for a `write` tool a session of the
 * exactly-once records role ({@link IDEMPOTENCY_SESSION}); for a tool that keeps
 * files in the run workspace (`workspaceAccess`), a run-data session
 * ({@link RUN_DATA_SESSION}) narrowed by a session policy to those files of the
 * call's own run (`workspaceSessionPolicy`). They are added to the
 * invocation under `vendedCredentials`. Nothing else travels: no other name, no other tenant, no
 * secret value. The invocation is never logged (the dispatcher logs the envelope's
 * keys and the args), and the tool's result is redacted with the sessions' secret
 * parts masked by exact match (functions/runtime/harness.ts).
 *
 * @example
 * const invoker = new VendingToolInvoker(new LambdaToolInvoker(lambda, nameOf), vendor, workspace);
 */
export class VendingToolInvoker implements ToolInvoker {
  /**
   * @param workspace - the run workspaces' bucket and its ARN partition, where the
   *   vendor may open run-data sessions; undefined: no workspace tool is served.
   */
  constructor(
    private readonly inner: ToolInvoker,
    private readonly vendor: CredentialVendor,
    private readonly workspace?: RunWorkspaceBucket,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    return this.inner.invoke(
      spec,
      await withVendedSessions(this.vendor, spec, invocation, this.workspace),
      signal,
    );
  }
}

/** The run workspaces' bucket and its ARN partition, where run-data sessions are narrowed to one run. */
export interface RunWorkspaceBucket {
  readonly bucket: string;
  readonly partition: string;
}

/** The sessions a call's tool is vended, and the session policy narrowing any of them. */
export interface VendedSessionRequest {
  readonly names: string[];
  readonly policies: Record<string, string>;
}

/**
 * The sessions a call's tool is vended: the secrets its spec lists (an
 * organization tool's `aws_org_default` replaced by its level's organization
 * secret), a per-account call's organization secret for an AWS tool, a write tool's records session
 * (narrowed to its own tool's records, `recordsSessionPolicy`), and
 * — when `workspace` is given — a run-data session ({@link RUN_DATA_SESSION})
 * narrowed to the call's own run: a workspace tool's files and, when
 * `claimChecks` (a callback call, whose tool claim-checks its own result), the
 * run's `results/*` (`workspaceSessionPolicy`).
 */
export function vendedSessionRequest(
  spec: ToolSpec,
  invocation: ToolInvocation,
  workspace?: RunWorkspaceBucket,
  claimChecks = false,
): VendedSessionRequest {
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
  // A write tool's records session reaches its own tool's records of the tenant only.
  const policies: Record<string, string> =
    spec.sideEffects === 'write'
      ? { [IDEMPOTENCY_SESSION]: recordsSessionPolicy(invocation.tenant, spec.name) }
      : {};
  if (workspace && (spec.workspaceAccess || claimChecks)) {
    names.push(RUN_DATA_SESSION);
    policies[RUN_DATA_SESSION] = workspaceSessionPolicy({
      ...workspace,
      run: { tenant: invocation.tenant, scenario: invocation.scenario, runId: invocation.runId },
      paths: spec.workspaceAccess?.paths ?? [],
      access: spec.workspaceAccess?.access ?? 'read',
      claimChecks,
    });
  }
  return { names, policies };
}

/**
 * `invocation` with the call's sessions ({@link vendedSessionRequest}) under
 * `vendedCredentials`, for the call's tenant only; as it is when there are none.
 *
 * @throws the STS error (`access_denied`, `throttled`…) when a role cannot be assumed.
 */
export async function withVendedSessions(
  vendor: CredentialVendor,
  spec: ToolSpec,
  invocation: ToolInvocation,
  workspace?: RunWorkspaceBucket,
  claimChecks = false,
): Promise<ToolInvocation> {
  const { names, policies } = vendedSessionRequest(spec, invocation, workspace, claimChecks);
  if (names.length === 0) return invocation;
  return { ...invocation, [VENDED_CREDENTIALS_FIELD]: await vendor.vend(invocation.tenant, names, policies) };
}
