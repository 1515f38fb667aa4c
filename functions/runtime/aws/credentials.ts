// Types only: STS and the default credential chain are loaded when a call first needs
// them (a tenant on static keys needs neither), keeping them out of the cold start.
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import { isMissingCredentials } from '../error-sources/aws';
import { PlatformError, SecretInvalidError } from '../errors';
import { faultyFields, notJsonObjectProblem } from '../secrets/secret-shape';
import { assumeRole, platformRegion, SessionCache } from './sts';
import {
  callSessionTags,
  clampSessionDuration,
  ROLE_CHAINING_MAX_SECONDS,
  roleNameOf,
  roleSessionName as sessionNameOfRun,
  sourceIdentityOf,
} from './trust';

export { CREDENTIAL_REFRESH_MARGIN_MS, FALLBACK_REGION } from './sts';

/** How a tool reaches AWS for a tenant. */
export interface AwsAccess {
  /** `own_role`: the function's role (locally, the default credential chain); `static`: access keys; `assume_role`: STS. */
  readonly mode: 'own_role' | 'static' | 'assume_role';
  /** Region for regional clients when the tool is not told otherwise. */
  readonly region: string;
  /**
   * Credentials for SDK clients. For `own_role`, the SDK's default chain, shared by
   * every client of the container so a fan-out resolves (or fails to resolve) once.
   */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The role assumed, for `assume_role`. */
  readonly roleArn?: string;
  /**
   * `assume_role` only: forgets this session, so the next request assumes the role
   * again (STS answered ExpiredToken before the expiration it gave).
   */
  readonly invalidate?: () => void;
  /** The call's hard stop: clients built with `awsClientConfig` abort every request when it fires. */
  readonly signal?: AbortSignal;
}

/** The default credential chain (env, SSO, shared files, container/instance role), memoized by the SDK. */
let ownRoleCredentials: AwsCredentialIdentityProvider | undefined;

/** Where the session name, its tags and the cache key come from: the call's envelope. */
export interface AwsAccessRequest {
  readonly tenant: string;
  readonly runId: string;
  readonly callId: string;
  /** Tagged on customer-account sessions (`none` outside a scenario). */
  readonly scenario?: string;
}

/** Assumed-role session length in seconds: the role-chaining cap, 1 hour (see {@link clampSessionDuration}). */
export const ASSUME_ROLE_DURATION_SECONDS = clampSessionDuration(ROLE_CHAINING_MAX_SECONDS);

/**
 * Customer-account sessions kept per container. One per tenant and run (and role):
 * a warm container serving a busy platform meets many, so the cache is bounded
 * (least recently used out first) and expired sessions are never served.
 */
export const MAX_CACHED_CUSTOMER_SESSIONS = 256;

/**
 * Variable naming the customer role the deployed function may assume (the CDK sets
 * it to {@link CUSTOMER_ROLE_NAME} on AWS tool functions, whose roles may assume
 * only that name). When set, a `role_arn` naming another role is refused before
 * STS is called, with what to do instead; locally it is unset and any role is tried.
 */
export const CUSTOMER_ROLE_NAME_ENV = 'CUSTOMER_ROLE_NAME';

/** An AWS region name (`eu-west-1`, `us-gov-west-1`). */
export const AWS_REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** An IAM role ARN in any partition, with or without a path. */
export const IAM_ROLE_ARN_PATTERN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/** STS API reference, "AssumeRole": ExternalId is 2-1,224 characters of `[\w+=,.@:/-]`. */
export const EXTERNAL_ID_PATTERN = /^[\w+=,.@:/-]{2,1224}$/;

/** What {@link EXTERNAL_ID_PATTERN} accepts, in words. */
export const EXTERNAL_ID_ACCEPTED = '2-1224 characters of letters, digits, _+=,.@:/-';

/**
 * The three `aws_*` secret payloads (docs/design.md, "Secret payloads"), built on first
 * use (cold start). All strict: a typo (`regoin`) or two forms mixed (`role_arn`
 * with access keys) is refused, naming the unexpected keys, rather than silently
 * ignored. A payload with none of the keys of the first two but others
 * (`role_arm`, a plain string read as `{ value }`) must not run with the function's
 * own role, hence the strict own-role form.
 */
const payloadSchemas = builtOnce(() => {
  const region = z.optional(z.string().check(z.regex(AWS_REGION_PATTERN, 'an AWS region such as eu-west-1')));
  return {
    assumeRole: z.strictObject({
      role_arn: z.string().check(z.regex(IAM_ROLE_ARN_PATTERN, 'an IAM role ARN')),
      external_id: z.optional(z.string().check(z.regex(EXTERNAL_ID_PATTERN, EXTERNAL_ID_ACCEPTED))),
      region,
    }),
    staticKeys: z.strictObject({
      access_key_id: z.string().check(z.minLength(16)),
      secret_access_key: z.string().check(z.minLength(16)),
      session_token: z.optional(z.string()),
      region,
    }),
    ownRole: z.strictObject({ region }),
  };
});

/**
 * STS `RoleSessionName` of a run: `etp-<runId>`, 2–64 characters of `[\w+=,.@-]`
 * (STS API reference, "AssumeRole").
 *
 * @example roleSessionName('run:2024/05 #1') // 'etp-run-2024-05--1'
 */
export const roleSessionName = sessionNameOfRun;

let customerSessions: SessionCache | undefined;

function sessions(): SessionCache {
  customerSessions ??= new SessionCache({ max: MAX_CACHED_CUSTOMER_SESSIONS });
  return customerSessions;
}

/** Forgets cached credentials: customer-account sessions and the default chain (tests). */
export function clearAssumedRoleCache(): void {
  customerSessions?.clear();
  ownRoleCredentials = undefined;
}

/** Customer-account sessions held in this container (bench, tests). */
export function cachedCustomerSessions(): number {
  return customerSessions?.size ?? 0;
}

/** Who a customer-account session is opened for: its tags, session name and cache key come from it. */
export interface SessionOwner {
  readonly tenant: string;
  readonly runId: string;
  /** Tagged on customer-account sessions (`none` outside a scenario). */
  readonly scenario?: string;
  /** The member account of an organization run, tagged `etp-account` (functions/runtime/aws/organization-sessions.ts). */
  readonly accountId?: string;
}

/** What {@link assumedRoleAccess} opens. */
export interface AssumedRoleSpec {
  readonly roleArn: string;
  readonly externalId?: string;
  /** Region for regional clients. */
  readonly region: string;
  readonly owner: SessionOwner;
  readonly signal?: AbortSignal;
  /**
   * What AssumeRole's failure (a `ServiceCallError('sts', …)`) becomes, when the
   * caller reports it its own way (an organization run names the account).
   * @default the failure as it is
   */
  readonly onFailure?: (err: unknown) => unknown;
}

/**
 * The cache key of a customer-account session. Per run: the session name carries
 * the run id and its tags the tenant, scenario and run, and CloudTrail attributes
 * each call to the session whose credentials signed it, so a run never reuses
 * another's; per tenant, so no tenant ever gets another tenant's session.
 */
function sessionKey(spec: AssumedRoleSpec): string {
  return JSON.stringify([
    spec.owner.tenant,
    spec.owner.scenario ?? '',
    spec.owner.runId,
    spec.roleArn,
    spec.externalId ?? '',
    spec.owner.accountId ?? '',
  ]);
}

async function assumeCustomerRole(spec: AssumedRoleSpec): Promise<AwsCredentialIdentity> {
  try {
    return await assumeRole({
      RoleArn: spec.roleArn,
      RoleSessionName: sessionNameOfRun(spec.owner.runId),
      ExternalId: spec.externalId,
      DurationSeconds: ASSUME_ROLE_DURATION_SECONDS,
      SourceIdentity: sourceIdentityOf(spec.owner.tenant),
      Tags: callSessionTags(spec.owner),
    });
  } catch (err) {
    throw spec.onFailure ? spec.onFailure(err) : err;
  }
}

/**
 * What to set when the platform has no credentials to call STS with. Deployed,
 * the function's own role always gives it some; this happens on a workstation.
 */
export const SET_CREDENTIALS =
  'set AWS_PROFILE (a profile of ~/.aws/config) or AWS_ACCESS_KEY_ID and ' +
  'AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys) to credentials allowed to assume it';

/**
 * A tenant role's AssumeRole that could not be sent for want of credentials to
 * sign it with, said as such: the SDK's "Could not load credentials from any
 * providers" does not say a role was to be assumed. The role is named by the
 * secret's field: its ARN is a secret value, masked wherever it appears.
 */
function customerRoleFailure(err: unknown): unknown {
  if (!isMissingCredentials(err)) return err;
  return new PlatformError(
    'auth_failed',
    `No AWS credentials were found to call STS with, so the role of the AWS secret's role_arn could not be assumed: ${SET_CREDENTIALS}`,
    { service: 'sts', cause: err },
  );
}

/**
 * An `assume_role` {@link AwsAccess}: STS AssumeRole in the platform's region,
 * session `etp-<runId>` of 1 hour (the role-chaining cap), `SourceIdentity`
 * `etp.<tenant>` and the owner's session tags (`callSessionTags`); credentials
 * cached per tenant, scenario, run, role and account in this container's bounded
 * cache and served until 5 minutes before they expire
 * ({@link CREDENTIAL_REFRESH_MARGIN_MS}), so a long run's next request opens a
 * new session before the hour ends; one AssumeRole shared by concurrent
 * callers; `invalidate()` drops the session (STS said it expired early).
 *
 * @example
 * const access = assumedRoleAccess({ roleArn, externalId, region: 'eu-west-1',
 *   owner: { tenant: 'acme', runId: 'r1', accountId: '111122223333' } });
 */
export function assumedRoleAccess(spec: AssumedRoleSpec): AwsAccess {
  const key = sessionKey(spec);
  const cache = sessions();
  return {
    mode: 'assume_role',
    region: spec.region,
    roleArn: spec.roleArn,
    credentials: () => cache.get(key, () => assumeCustomerRole(spec)),
    invalidate: () => cache.invalidate(key),
    signal: spec.signal,
  };
}

/**
 * Refuses a customer role the deployed function may not assume (see
 * {@link CUSTOMER_ROLE_NAME_ENV}), naming the role the customer stack creates.
 *
 * @param field - the secret's field that named the role (`role_arn`, `member_role_name`).
 * @throws SecretInvalidError naming the field and the one role name allowed.
 */
export function checkCustomerRoleName(roleArn: string, field = 'role_arn'): void {
  const allowed = process.env[CUSTOMER_ROLE_NAME_ENV];
  if (!allowed || roleNameOf(roleArn) === allowed) return;
  throw new SecretInvalidError(
    `AWS secret is invalid in: ${field}. The platform may assume only the role named ${allowed} in a ` +
      'customer\'s account: deploy CustomerAccessStack there and seed the role ARN it outputs (README, "Onboarding")',
  );
}

/**
 * Turns a tenant's `aws_*` secret payload into {@link AwsAccess}.
 *
 * - `{ role_arn, external_id?, region? }`: STS AssumeRole in the platform's region
 *   (`platformRegion`), session `etp-<runId>` of 1 hour (the role-chaining cap),
 *   `SourceIdentity` `etp.<tenant>` and session tags naming tenant, scenario and
 *   run (`callSessionTags`), so CloudTrail attributes every call; credentials
 *   cached per tenant, scenario, run and role until 5 minutes before expiry in a
 *   bounded cache, one AssumeRole shared by concurrent callers; `invalidate()`
 *   drops the session;
 * - `{ access_key_id, secret_access_key, session_token?, region? }`: static keys;
 * - `{ region? }` (or `{}`) and nothing else: the function's own role / the default
 *   credential chain.
 *
 * The assume-role `credentials` provider rejects with `ServiceCallError('sts', …)`
 * when AssumeRole fails (denied, bad token, timeout), so the failure is reported
 * with service `sts` whichever client asked for the credentials.
 *
 * @param signal - the call's hard stop, carried into every client built from the access.
 * @throws SecretInvalidError (`secret_invalid`) naming the fields that are wrong,
 *   never their values, or a `role_arn` the deployed function may not assume.
 */
export function awsAccessFromSecret(
  secret: Record<string, unknown>,
  request: AwsAccessRequest,
  signal?: AbortSignal,
): AwsAccess {
  const fallbackRegion = platformRegion();
  const parsed = awsSecretPayload(secret);
  if (parsed.form === 'assume_role') {
    const payload = parsed.payload;
    checkCustomerRoleName(payload.role_arn);
    return assumedRoleAccess({
      roleArn: payload.role_arn,
      externalId: payload.external_id,
      region: payload.region ?? fallbackRegion,
      owner: request,
      signal,
      onFailure: customerRoleFailure,
    });
  }
  if (parsed.form === 'static') {
    const payload = parsed.payload;
    const credentials: AwsCredentialIdentity = {
      accessKeyId: payload.access_key_id,
      secretAccessKey: payload.secret_access_key,
      sessionToken: payload.session_token,
    };
    return {
      mode: 'static',
      region: payload.region ?? fallbackRegion,
      credentials: async () => credentials,
      signal,
    };
  }
  ownRoleCredentials ??= (
    require('@aws-sdk/credential-provider-node') as typeof import('@aws-sdk/credential-provider-node')
  ).defaultProvider();
  return {
    mode: 'own_role',
    region: parsed.payload.region ?? fallbackRegion,
    credentials: ownRoleCredentials,
    signal,
  };
}

type PayloadSchemas = ReturnType<typeof payloadSchemas>;

/** A tenant's `aws_*` secret, parsed into the one form it has. */
type AwsSecretPayload =
  | { readonly form: 'assume_role'; readonly payload: z.output<PayloadSchemas['assumeRole']> }
  | { readonly form: 'static'; readonly payload: z.output<PayloadSchemas['staticKeys']> }
  | { readonly form: 'own_role'; readonly payload: z.output<PayloadSchemas['ownRole']> };

/**
 * Parses an `aws_*` secret into its form: `role_arn` (assume a role), access keys
 * (static), or `region?` alone (the function's own role). Also what
 * `etp secrets seed --ref-kind inline` checks a value against before sealing it.
 *
 * @throws SecretInvalidError (`secret_invalid`) naming the wrong fields, never their values.
 */
export function awsSecretPayload(secret: Record<string, unknown>): AwsSecretPayload {
  if ('role_arn' in secret) {
    return {
      form: 'assume_role',
      payload: parseAwsPayload(payloadSchemas().assumeRole, secret, 'role_arn, external_id?, region?'),
    };
  }
  if ('access_key_id' in secret || 'secret_access_key' in secret) {
    return {
      form: 'static',
      payload: parseAwsPayload(
        payloadSchemas().staticKeys,
        secret,
        'access_key_id, secret_access_key, session_token?, region?',
      ),
    };
  }
  return {
    form: 'own_role',
    payload: parseAwsPayload(
      payloadSchemas().ownRole,
      secret,
      "region? (the function's own role); to assume a role: role_arn, external_id?, region?; " +
        'for static keys: access_key_id, secret_access_key, session_token?, region?',
    ),
  };
}

/**
 * Parses an AWS secret payload with `schema`.
 *
 * @param accepted - the accepted fields, in words, for the message.
 * @param label - what the secret is called in the message. @default 'AWS secret'
 * @throws SecretInvalidError naming the faulty fields (never their values) and what is accepted.
 */
export function parseAwsPayload<T extends z.ZodMiniType>(
  schema: T,
  secret: Record<string, unknown>,
  accepted: string,
  label = 'AWS secret',
): z.output<T> {
  const parsed = schema.safeParse(secret);
  if (parsed.success) return parsed.data;
  const shape = notJsonObjectProblem(secret);
  if (shape) throw new SecretInvalidError(`${label} is invalid: ${shape}. Accepted fields: ${accepted}`);
  // Field names only: zod's messages may quote the values, which are secrets.
  const fields = faultyFields(parsed.error.issues, secret);
  throw new SecretInvalidError(`${label} is invalid in: ${fields.join(', ')}. Accepted fields: ${accepted}`);
}
