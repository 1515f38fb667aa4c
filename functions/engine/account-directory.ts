/**
 * The engine's account directory as deployed (docs/organizations-runs.md,
 * "Listing the accounts"): `org_targets` lists a per-account level's accounts by
 * calling the read-only `aws_org_accounts` tool through the dispatcher, on the
 * level itself and without `account`. Only the dispatcher vends the tenant's
 * `aws_org_*` secret, and only an AWS tool's role (`/etp-tools/aws/`) may assume the
 * organization role, so the engine neither reads the secret nor holds any STS grant.
 */
import type { AccountPlan, NotAuditedAccount, OrgAccount } from '../runtime/aws/organization';
import { PlatformError } from '../runtime/errors';
import { ORG_ACCOUNTS_TOOL } from '../runtime/ids';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import type { AccountDirectory } from './engine-context';
import { asResultRef } from './records';
import { readJson, refPath, type WorkspaceFactory } from './workspaces';

/**
 * The engine's variable naming the dispatcher function (set by the CDK when a
 * scenario has a per-account level): the deployed engine lists accounts through it,
 * with `lambda:InvokeFunction` on that function only. Unset: no account directory.
 */
export const DISPATCHER_FUNCTION_ENV = 'DISPATCHER_FUNCTION';

/** Sends one envelope to the dispatcher and returns its ToolResult (deployed: a Lambda invoke; locally: in process). */
export type DispatcherCall = (envelope: ToolInvocation) => Promise<ToolResult>;

/**
 * The call id of a level's listing: `<level>/<number of the level's calls>`, the
 * index after its per-account calls' (`<level>/0` … `<level>/<n-1>`), so its
 * claim-checked result never shares a file with theirs.
 */
export function listingCallId(level: string, calls: number): string {
  return `${level}/${calls}`;
}

function isPlan(value: unknown): value is AccountPlan {
  const plan = value as { targets?: unknown; notAudited?: unknown } | null;
  return (
    plan !== null &&
    typeof plan === 'object' &&
    Array.isArray(plan.targets) &&
    Array.isArray(plan.notAudited) &&
    (plan.targets as OrgAccount[]).every((account) => typeof account?.accountId === 'string') &&
    (plan.notAudited as NotAuditedAccount[]).every((account) => typeof account?.accountId === 'string')
  );
}

/**
 * An {@link AccountDirectory} that asks the dispatcher: the envelope
 * `{ tenant, scenario, level, tool: 'aws_org_accounts', args: { accounts, exclude }, runId, callId }`
 * (the call id of {@link listingCallId}). A result the dispatcher claim-checked is read whole from
 * the run's workspace; a result it had to shrink (no workspace) is refused, since a
 * partial list would silently leave accounts out.
 *
 * @throws PlatformError with the tool's own code and message when the listing failed
 *   (`auth_failed` when STS refused the organization role, `access_denied`, `throttled`…),
 *   or `internal_error` when its value is not an account plan.
 */
export function dispatchedAccountDirectory(
  call: DispatcherCall,
  workspaces: WorkspaceFactory,
): AccountDirectory {
  return async (run, selection, { level, callId }) => {
    const result = await call({
      tenant: run.tenant,
      scenario: run.scenario,
      level,
      tool: ORG_ACCOUNTS_TOOL,
      args: { accounts: selection.accounts, exclude: selection.exclude ?? [] },
      runId: run.runId,
      callId,
    });
    if (!result.ok) {
      throw new PlatformError(result.error.code, `${ORG_ACCOUNTS_TOOL}: ${result.error.message}`, {
        retryable: result.error.retryable,
      });
    }
    const ref = asResultRef(result.resultRef);
    const workspace = workspaces(run);
    const path = ref && refPath(workspace, ref);
    const value = path ? (await readJson<{ value?: unknown }>(workspace, path)).value : result.value;
    if (!isPlan(value) || (result.truncated && !path)) {
      throw new PlatformError(
        'internal_error',
        `${ORG_ACCOUNTS_TOOL} returned ${result.truncated ? 'a shortened list' : 'something other than an account plan'}: the organization's accounts are not planned from a partial list`,
      );
    }
    return { targets: value.targets, notAudited: value.notAudited };
  };
}
