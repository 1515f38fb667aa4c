// Types only: STS and the default credential chain are loaded when a call first needs
// them (a tenant on static keys needs neither), keeping them out of the cold start.
import type { AssumeRoleCommandOutput, STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import { SecretInvalidError, ServiceCallError } from '../errors';
import { awsRequestHandler } from './http-timeouts';

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
  /** The call's hard stop: clients built with `awsClientConfig` abort every request when it fires. */
  readonly signal?: AbortSignal;
}

/** The default credential chain (env, SSO, shared files, container/instance role), memoized by the SDK. */
let ownRoleCredentials: AwsCredentialIdentityProvider | undefined;

/** Where the session name and the cache key come from. */
export interface AwsAccessRequest {
  readonly tenant: string;
  readonly runId: string;
  readonly callId: string;
}

/** Refresh assumed-role credentials this long before they expire, in ms. */
export const CREDENTIAL_REFRESH_MARGIN_MS = 5 * 60_000;

/** Assumed-role session length in seconds; role chaining caps it at 1 hour (AWS docs, "IAM roles: role chaining"). */
export const ASSUME_ROLE_DURATION_SECONDS = 3600;

/** Region used when neither the secret nor `AWS_REGION` names one. */
export const FALLBACK_REGION = 'us-east-1';

/**
 * The three `aws_*` secret payloads (DESIGN.md, "Secret payloads"), built on first
 * use (cold start). All strict: a typo (`regoin`) or two forms mixed (`role_arn`
 * with access keys) is refused, naming the unexpected keys, rather than silently
 * ignored. A payload with none of the keys of the first two but others
 * (`role_arm`, a plain string read as `{ value }`) must not run with the function's
 * own role, hence the strict own-role form.
 */
const payloadSchemas = builtOnce(() => {
  const region = z.optional(
    z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1')),
  );
  return {
    assumeRole: z.strictObject({
      role_arn: z
        .string()
        .check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'an IAM role ARN')),
      external_id: z.optional(z.string().check(z.minLength(2), z.maxLength(1224))),
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

/** An assume-role payload, parsed. */
type AssumeRolePayload = z.output<ReturnType<typeof payloadSchemas>['assumeRole']>;

/**
 * STS `RoleSessionName`: 2–64 characters of `[\w+=,.@-]` (STS API reference, "AssumeRole").
 *
 * @example roleSessionName('run:2024/05 #1') // 'etp-run-2024-05--1'
 */
export function roleSessionName(runId: string): string {
  const name = `etp-${runId}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
  return name.length >= 2 ? name : 'etp-session';
}

let sts: STSClient | undefined;
const assumedRoles = new Map<string, { credentials: AwsCredentialIdentity; expiresAt: number }>();
/** AssumeRole calls under way: concurrent callers (a region fan-out) share one instead of each calling STS. */
const pendingRoles = new Map<string, Promise<AwsCredentialIdentity>>();

/** Forgets cached credentials: assumed roles and the default chain (tests). */
export function clearAssumedRoleCache(): void {
  assumedRoles.clear();
  pendingRoles.clear();
  ownRoleCredentials = undefined;
}

function assumeRoleProvider(
  payload: AssumeRolePayload,
  request: AwsAccessRequest,
  stsRegion: string,
): AwsCredentialIdentityProvider {
  // Per run: the session name carries the run id, and CloudTrail attributes each call
  // to the session whose credentials signed it, so one run never reuses another's.
  const cacheKey = [request.tenant, request.runId, payload.role_arn, payload.external_id ?? ''].join('|');
  return async () => {
    const cached = assumedRoles.get(cacheKey);
    if (cached && cached.expiresAt - CREDENTIAL_REFRESH_MARGIN_MS > Date.now()) return cached.credentials;
    let pending = pendingRoles.get(cacheKey);
    if (!pending) {
      pending = assumeRole(payload, request, stsRegion, cacheKey).finally(() =>
        pendingRoles.delete(cacheKey),
      );
      pendingRoles.set(cacheKey, pending);
    }
    return pending;
  };
}

async function assumeRole(
  payload: AssumeRolePayload,
  request: AwsAccessRequest,
  stsRegion: string,
  cacheKey: string,
): Promise<AwsCredentialIdentity> {
  const { AssumeRoleCommand, STSClient } =
    require('@aws-sdk/client-sts') as typeof import('@aws-sdk/client-sts');
  sts ??= new STSClient({ region: stsRegion, requestHandler: awsRequestHandler() });
  let answer: AssumeRoleCommandOutput;
  try {
    answer = await sts.send(
      new AssumeRoleCommand({
        RoleArn: payload.role_arn,
        RoleSessionName: roleSessionName(request.runId),
        ExternalId: payload.external_id,
        DurationSeconds: ASSUME_ROLE_DURATION_SECONDS,
      }),
    );
  } catch (err) {
    // Raised inside an EC2 (or other) client's call: tagged so it is reported as STS's, not the tool's service's.
    throw new ServiceCallError('sts', err);
  }
  const { Credentials } = answer;
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey) {
    throw new SecretInvalidError(`STS returned no credentials for ${payload.role_arn}`, { service: 'sts' });
  }
  const expiresAt = Credentials.Expiration?.getTime() ?? Date.now() + ASSUME_ROLE_DURATION_SECONDS * 1000;
  const credentials: AwsCredentialIdentity = {
    accessKeyId: Credentials.AccessKeyId,
    secretAccessKey: Credentials.SecretAccessKey,
    sessionToken: Credentials.SessionToken,
    expiration: new Date(expiresAt),
  };
  assumedRoles.set(cacheKey, { credentials, expiresAt });
  return credentials;
}

/**
 * Turns a tenant's `aws_*` secret payload into {@link AwsAccess}.
 *
 * - `{ role_arn, external_id?, region? }`: STS AssumeRole (session `etp-<runId>`,
 *   1 hour), credentials cached per tenant, run and role until 5 minutes before
 *   expiry, one AssumeRole shared by concurrent callers;
 * - `{ access_key_id, secret_access_key, session_token?, region? }`: static keys;
 * - `{ region? }` (or `{}`) and nothing else: the function's own role / the default
 *   credential chain.
 *
 * The assume-role `credentials` provider rejects with `ServiceCallError('sts', …)`
 * when AssumeRole fails (denied, bad token, timeout), so the failure is reported
 * with service `sts` whichever client asked for the credentials. Its STS client
 * has the platform's HTTP timeouts (`awsRequestHandler`).
 *
 * @param signal - the call's hard stop, carried into every client built from the access.
 * @throws SecretInvalidError (`secret_invalid`) naming the fields that are wrong,
 *   never their values.
 */
export function awsAccessFromSecret(
  secret: Record<string, unknown>,
  request: AwsAccessRequest,
  signal?: AbortSignal,
): AwsAccess {
  const fallbackRegion = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? FALLBACK_REGION;
  if ('role_arn' in secret) {
    const payload = parse(payloadSchemas().assumeRole, secret, 'role_arn, external_id?, region?');
    const accessRegion = payload.region ?? fallbackRegion;
    return {
      mode: 'assume_role',
      region: accessRegion,
      roleArn: payload.role_arn,
      credentials: assumeRoleProvider(payload, request, accessRegion),
      signal,
    };
  }
  if ('access_key_id' in secret || 'secret_access_key' in secret) {
    const payload = parse(
      payloadSchemas().staticKeys,
      secret,
      'access_key_id, secret_access_key, session_token?, region?',
    );
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
  const payload = parse(
    payloadSchemas().ownRole,
    secret,
    "region? (the function's own role); to assume a role: role_arn, external_id?, region?; " +
      'for static keys: access_key_id, secret_access_key, session_token?, region?',
  );
  ownRoleCredentials ??= (
    require('@aws-sdk/credential-provider-node') as typeof import('@aws-sdk/credential-provider-node')
  ).defaultProvider();
  return {
    mode: 'own_role',
    region: payload.region ?? fallbackRegion,
    credentials: ownRoleCredentials,
    signal,
  };
}

function parse<T extends z.ZodMiniType>(
  schema: T,
  secret: Record<string, unknown>,
  accepted: string,
): z.output<T> {
  const parsed = schema.safeParse(secret);
  if (parsed.success) return parsed.data;
  // Field names only: zod's messages may quote the values, which are secrets.
  const fields = [
    ...new Set(
      parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.') || '(value)'],
      ),
    ),
  ];
  throw new SecretInvalidError(
    `AWS secret is invalid in: ${fields.join(', ')}. Accepted fields: ${accepted}`,
  );
}
