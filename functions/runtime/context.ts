import type { Logger } from '@aws-lambda-powertools/logger';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import type { AwsAccess, AwsAccessRequest } from './aws/credentials';
import type { CallCredentials } from './credential-renewal';
import type { Deadline } from './deadline';
import { PlatformError, SecretNotFoundError } from './errors';
import { DEFAULT_ORG_SECRET } from './ids';
import type { CallIdentity, ToolInvocation } from './invocation';
import { currentSecretValues, SecretValues } from './secret-values';
import type { SecretResolver } from './secrets/resolver';
import type { Workspace, WorkspaceProvider } from './workspace';

/** The secret every `aws` tool reads unless told otherwise. */
export const DEFAULT_AWS_SECRET = 'aws_default';

/**
 * Everything a tool handler may use besides its args. Secrets and credentials
 * are resolved on demand and never leave the tool's function.
 */
export interface ToolContext extends CallIdentity {
  /** Powertools Logger with `tool`, `tenant`, `runId`, `callId` keys; every item is redacted. */
  readonly logger: Logger;
  /**
   * From the Lambda's remaining time (or the CLI's budget): stop starting pages and
   * regions when it passes, and return what was read.
   */
  readonly deadline: Deadline;
  /**
   * Aborted at the call's hard stop, when the harness stops waiting for the handler.
   * Every AWS client built with `awsClientConfig(await ctx.aws())` aborts its requests
   * then; pass it as `abortSignal` to anything else that waits (HTTP, SDK calls).
   */
  readonly signal: AbortSignal;
  /**
   * The tenant's secret, parsed (docs/design.md, "Secret references").
   *
   * A tool needs no refresh logic of its own: after an auth failure the harness
   * re-reads the secrets a call resolved and runs it once more when one changed
   * (functions/runtime/credential-renewal.ts). A tool that recovers inside the
   * call instead (a write tool that must not run twice) reads with `fresh`.
   *
   * @param options.fresh - read it again bypassing every cache (the resolver's and Powertools').
   * @throws PlatformError (`internal_error`) when the spec's `requiresSecrets` does not list the name.
   * @throws SecretNotFoundError | SecretInvalidError | UnsupportedRefKindError from the resolver.
   */
  secret(name: string, options?: { readonly fresh?: boolean }): Promise<Record<string, unknown>>;
  /** Set for `write` tools run once per call (functions/runtime/idempotency.ts). */
  readonly idempotency?: CallIdempotency;
  /**
   * How to reach AWS for the tenant, from its `aws_*` secret (default `aws_default`).
   * A call of a per-account level (the invocation's `account`) reaches that member
   * account instead, whatever `secretName` says: the member role of the level's
   * organization secret (`orgSecret`, default `aws_org_default`), assumed with the
   * call's tenant, run and account attributed (functions/runtime/aws/organization-sessions.ts,
   * `memberSession`). Never the default credential chain for a member account.
   *
   * @throws SecretInvalidError when the payload has none of the accepted shapes.
   * @throws SecretNotFoundError when a per-account call's tenant has no such organization secret.
   */
  aws(secretName?: string): Promise<AwsAccess>;
  /**
   * The session of the tenant's organization role (an organization tool only: its
   * spec lists `aws_org_default`): the `management_role_arn` of the call's level's
   * organization secret (`orgSecret`, set by the dispatcher from the level's
   * `for_each_account.org_secret`; default `aws_org_default`), assumed with the
   * call's tenant, run and scenario attributed (functions/runtime/aws/organization.ts,
   * `organizationSession`). Never the default credential chain.
   *
   * @throws PlatformError (`internal_error`) when the spec lists no `aws_org_default`, or none is configured.
   * @throws SecretNotFoundError | SecretInvalidError for the tenant's organization secret.
   */
  organization(): Promise<AwsAccess>;
  /**
   * The call's run workspace (docs/design.md, "Workspace, file tools and claim-check"):
   * `runs/<tenant>/<scenario>/<runId>/`, or `scratch/<tenant>/<runId>/` for a call
   * without a scenario. Opened on first use; its requests end at the tool's deadline.
   * File tools use it; undefined where none is configured (a tool's own function,
   * a dispatcher without a bucket).
   *
   * @throws InvalidArgsError when the call's tenant, scenario or run id cannot name a workspace.
   */
  workspace(): Workspace | undefined;
  /**
   * The credentials of the run-data session vended for this call (a deployed tool
   * with `workspaceAccess`): IAM lets it reach only the spec's files of this call's
   * run workspace. Undefined where none is configured (local runs, tests).
   */
  readonly runData?: AwsCredentialIdentityProvider;
}

/** What a `write` tool knows of its call's exactly-once record (functions/runtime/idempotency.ts). */
export interface CallIdempotency {
  /** Stable key of the call (tenant, run, call, tool), safe to show: carried in what the tool writes. */
  readonly key: string;
  /** An earlier attempt of this call started and never recorded an outcome: look for its effect first. */
  readonly resumed: boolean;
}

/** Turns an `aws_*` secret into AWS access (`awsAccessFromSecret`), bound to the call's hard stop. */
export type AwsAccessResolver = (
  secret: Record<string, unknown>,
  request: AwsAccessRequest,
  signal: AbortSignal,
) => AwsAccess;

/** Who a member account session is for: the call's tenant, run and scenario, and the account. */
export interface MemberAccessRequest {
  readonly tenant: string;
  readonly runId: string;
  readonly scenario?: string;
  readonly accountId: string;
}

/** Turns an `aws_org_*` secret into one member account's session (`memberSession`), bound to the call's hard stop. */
export type MemberAccessResolver = (
  secret: Record<string, unknown>,
  request: MemberAccessRequest,
  signal: AbortSignal,
) => AwsAccess;

/** Who the organization role's session is for: the call's tenant, run and scenario. */
export type OrganizationAccessRequest = Omit<MemberAccessRequest, 'accountId'>;

/** Turns an `aws_org_*` secret into the organization role's session (`organizationSession`), bound to the call's hard stop. */
export type OrganizationAccessResolver = (
  secret: Record<string, unknown>,
  request: OrganizationAccessRequest,
  signal: AbortSignal,
) => AwsAccess;

/**
 * Container-level services a context is built from. Tool hosts get theirs from
 * `toolHostServices()`; the dispatcher passes only a logger.
 */
export interface ToolContextServices {
  /** Absent where no tool needs secrets (the dispatcher's file tools). */
  readonly secrets?: SecretResolver;
  readonly logger: Logger;
  /**
   * Resolves AWS access. Absent in the dispatcher, whose file tools call no AWS
   * API (which keeps STS out of its bundle).
   */
  readonly awsAccess?: AwsAccessResolver;
  /** Opens member account sessions for per-account calls; absent where `awsAccess` is. */
  readonly memberAccess?: MemberAccessResolver;
  /** Opens the organization role's session for organization tools; absent where `awsAccess` is. */
  readonly organizationAccess?: OrganizationAccessResolver;
  /**
   * Local runs only: when the tenant has no `aws_*` secret (or its env var is
   * unset), use the default credential chain instead of failing. Deployed
   * functions keep this off so a tenant never silently gets the platform's role.
   * @default false
   */
  readonly awsFallbackToDefaultChain?: boolean;
  /** The call's exactly-once record, for `write` tools (set per call by the idempotency wrapper). */
  readonly idempotency?: CallIdempotency;
  /**
   * Opens run workspaces: the dispatcher's (S3 bucket `RUN_BUCKET`, or a local
   * directory in local runs), for the file tools it runs. Absent elsewhere.
   */
  readonly workspaces?: WorkspaceProvider;
  /**
   * Strings the call was handed that are secret though no secret resolved them
   * (the secret parts of the sessions the dispatcher vended, ./secrets/vended.ts):
   * masked by exact match in the call's result, error and logs. Read at the start
   * of each call. @default - none
   */
  readonly callSecretStrings?: () => readonly string[];
  /**
   * The run-data session the dispatcher vended for a call of `tenant` (deployed
   * tools with `workspaceAccess`: narrowed to their files of the call's own run,
   * ./run-data-sessions.ts). Absent where files are read with the process's own
   * credentials (local runs, tests).
   */
  readonly runData?: (tenant: string) => AwsCredentialIdentityProvider;
}

/** What one call contributes to its context besides the invocation. */
export interface CallScope {
  /** Aborted at the call's hard stop. @default the deadline's signal */
  readonly signal?: AbortSignal;
  /** Where resolved secret strings are recorded for exact-match masking. @default the call's set in scope, else a new one */
  readonly secretValues?: SecretValues;
  /** Records what the call resolves, for a renewal after an auth failure. @default - not recorded */
  readonly credentials?: CallCredentials;
}

/** What a context needs of the tool's spec (a structural type: spec.ts depends on this module). */
export interface ContextToolSpec {
  readonly name: string;
  readonly requiresSecrets: readonly string[];
}

/**
 * Builds the context of one call.
 *
 * @param call - what the call contributes: its hard-stop `signal` (default the
 *   deadline's), the `secretValues` set `secret()` records every resolved string
 *   in (so the call's result, error, summary and logs mask them by exact match;
 *   default the call's set in scope, else a new one), and `credentials`, which
 *   records the secrets and AWS access the call resolves for a renewal after an
 *   auth failure (`runRenewingOnce`).
 */
export function createToolContext(
  spec: ContextToolSpec,
  invocation: ToolInvocation,
  deadline: Deadline,
  services: ToolContextServices,
  call: CallScope = {},
): ToolContext {
  const signal = call.signal ?? deadline.signal;
  const secretValues = call.secretValues ?? currentSecretValues() ?? new SecretValues();
  const { credentials } = call;
  const keys = {
    tool: spec.name,
    tenant: invocation.tenant,
    runId: invocation.runId,
    callId: invocation.callId,
  };
  // A per-account call reads its level's organization secret, which no spec lists;
  // an organization tool (its spec lists aws_org_default) reads its level's one instead of the default.
  const organizationTool = spec.requiresSecrets.includes(DEFAULT_ORG_SECRET);
  const orgSecret =
    invocation.account !== undefined || organizationTool
      ? (invocation.orgSecret ?? DEFAULT_ORG_SECRET)
      : undefined;
  const secret = async (name: string, options: { readonly fresh?: boolean } = {}) => {
    if (!spec.requiresSecrets.includes(name) && name !== orgSecret) {
      throw new PlatformError(
        'internal_error',
        `Tool ${spec.name} read secret "${name}" that its spec does not list`,
      );
    }
    if (!services.secrets)
      throw new PlatformError('internal_error', `No secret store is configured for ${spec.name}`);
    const fresh = options.fresh === true;
    const value = await services.secrets.resolve(invocation.tenant, name, { fresh });
    secretValues.add(value);
    credentials?.recordSecret(name, value, fresh);
    return value;
  };
  let workspace: Workspace | undefined;
  return {
    ...keys,
    scenario: invocation.scenario,
    level: invocation.level,
    logger: services.logger.createChild({ persistentKeys: keys }),
    deadline,
    signal,
    secret,
    ...(services.idempotency ? { idempotency: services.idempotency } : {}),
    ...(services.runData ? { runData: services.runData(invocation.tenant) } : {}),
    workspace: () => {
      if (!services.workspaces) return undefined;
      workspace ??= services.workspaces(
        { tenant: invocation.tenant, runId: invocation.runId, scenario: invocation.scenario },
        deadline.signal,
      );
      return workspace;
    },
    async aws(secretName = DEFAULT_AWS_SECRET) {
      if (orgSecret !== undefined && invocation.account !== undefined) {
        if (!services.memberAccess || !spec.requiresSecrets.includes(DEFAULT_AWS_SECRET)) {
          throw new PlatformError(
            'internal_error',
            `${spec.name} asked for member account access where none is configured`,
          );
        }
        const access = services.memberAccess(
          await secret(orgSecret),
          {
            tenant: invocation.tenant,
            runId: invocation.runId,
            scenario: invocation.scenario,
            accountId: invocation.account,
          },
          signal,
        );
        credentials?.recordAccess(access);
        return access;
      }
      if (!services.awsAccess) {
        throw new PlatformError(
          'internal_error',
          `${spec.name} asked for AWS access where none is configured`,
        );
      }
      let payload: Record<string, unknown>;
      try {
        payload = await secret(secretName);
      } catch (err) {
        if (!(services.awsFallbackToDefaultChain && err instanceof SecretNotFoundError)) throw err;
        payload = {};
      }
      const access = services.awsAccess(payload, invocation, signal);
      credentials?.recordAccess(access);
      return access;
    },
    async organization() {
      if (!services.organizationAccess || !organizationTool || orgSecret === undefined) {
        throw new PlatformError(
          'internal_error',
          `${spec.name} asked for the organization role where none is configured`,
        );
      }
      const access = services.organizationAccess(
        await secret(orgSecret),
        { tenant: invocation.tenant, runId: invocation.runId, scenario: invocation.scenario },
        signal,
      );
      credentials?.recordAccess(access);
      return access;
    },
  };
}
