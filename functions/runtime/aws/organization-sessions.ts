/**
 * One attributed session per member account of an organization run (and one in
 * the management account for the organization's own reads): ExternalId,
 * SourceIdentity `etp.<tenant>`, the run's session tags, renewed before the
 * one-hour role-chaining limit; a refusal names the account.
 */

import { isMissingCredentials } from '../error-sources/aws';
import { InvalidArgsError, PlatformError, SecretInvalidError, ServiceCallError } from '../errors';
import { AWS_ACCOUNT_ID } from '../ids';
import { normalizeError } from '../normalize-error';
import { type AwsAccess, assumedRoleAccess, checkCustomerRoleName, SET_CREDENTIALS } from './credentials';
import { accountOfRoleArn, memberRoleArn, ORGANIZATION_ROLE_NAME_ENV, type OrgTarget } from './organization';
import { platformRegion } from './sts';
import { roleNameOf } from './trust';

/** Who a member-account (or organization) session is opened for. */
export interface MemberSessionRequest {
  readonly tenant: string;
  readonly runId: string;
  /** Tagged `etp-scenario` (`none` outside a scenario). */
  readonly scenario?: string;
  /** The member account, 12 digits. */
  readonly accountId: string;
  /** The account's name, for error messages. */
  readonly accountName?: string;
  readonly target: OrgTarget;
  /** The call's hard stop, carried into every client built from the access. */
  readonly signal?: AbortSignal;
}

/**
 * A failure to open an organization run's session in one account, naming the
 * account: `auth_failed` when STS refused the AssumeRole (the role is missing,
 * or its trust refuses the ExternalId or the tenant) and when there were no
 * credentials to ask STS with (the message then says what to set), `throttled` when STS
 * throttled it (retryable), else STS's own normalized code. `details` carry
 * `accountId`, and `awsError` as STS named it.
 */
export class MemberAccountError extends PlatformError {
  override readonly name = 'MemberAccountError';
}

/** Codes of a refused AssumeRole, reported `auth_failed`: the account cannot be reached with its role. */
const REFUSED = new Set(['access_denied', 'auth_failed', 'secret_invalid']);

/** Where a refused role should have come from: a member's audit role, or the organization role. */
const MEMBER_ROLE_HINT = 'check that the StackSet deployed the role there';
const ORGANIZATION_ROLE_HINT =
  'check that OrganizationAccessStack is deployed there (docs/organizations.md) and that the secret names its role';

/**
 * Which role a failure is about, named by the organization secret's field that
 * sets it: the role's ARN or name is a value of the secret, masked wherever it
 * appears (docs/redaction.md), so a message that quoted it read "<redacted>".
 */
const MEMBER_ROLE = "the role of the organization secret's member_role_name";
const ORGANIZATION_ROLE = "the role of the organization secret's management_role_arn";

function sessionFailure(
  err: unknown,
  role: string,
  accountId: string,
  accountName: string | undefined,
  hint: string,
): unknown {
  const info = normalizeError(
    'organization',
    err instanceof ServiceCallError ? err : new ServiceCallError('sts', err),
  );
  const account = accountName ? `account ${accountId} (${accountName})` : `account ${accountId}`;
  const details = { accountId, ...(info.details?.awsError ? { awsError: info.details.awsError } : {}) };
  if (isMissingCredentials(err)) {
    // Nothing was refused: STS was never asked, for want of credentials to sign with.
    return new MemberAccountError(
      'auth_failed',
      `No AWS credentials were found to call STS with, so ${role} in ${account} could not be assumed: ${SET_CREDENTIALS}`,
      { service: 'sts', details, cause: err },
    );
  }
  if (REFUSED.has(info.code)) {
    return new MemberAccountError(
      'auth_failed',
      `STS refused AssumeRole of ${role} in ${account}: ${hint} ` +
        `and that the organization secret's ExternalId matches (${info.message})`,
      { service: 'sts', details, cause: err },
    );
  }
  if (info.code === 'throttled') {
    return new MemberAccountError('throttled', `STS throttled AssumeRole in ${account}: ${info.message}`, {
      service: 'sts',
      retryable: true,
      details,
      cause: err,
    });
  }
  return new MemberAccountError(info.code, `AssumeRole in ${account} failed: ${info.message}`, {
    service: 'sts',
    retryable: info.retryable,
    details,
    cause: err,
  });
}

function checkAccountId(accountId: string): void {
  if (!AWS_ACCOUNT_ID.pattern.test(accountId)) {
    throw new InvalidArgsError(
      `accountId must be a 12-digit AWS account id, not "${String(accountId).slice(0, 40)}"`,
    );
  }
}

/**
 * The session of one member account of an organization run: AssumeRole of
 * `arn:<partition>:iam::<accountId>:role/<memberRoleName>` with the member
 * ExternalId (the target's `external_id` when it names no `member_external_id`),
 * SourceIdentity `etp.<tenant>`, session tags `etp-tenant`, `etp-scenario`,
 * `etp-run` and `etp-account`, 1 hour (the role-chaining cap). The session is
 * cached per tenant, run and account in the container and renewed 5 minutes
 * before it expires (a run longer than the hour opens a new one on its next
 * request); `invalidate()` drops it when STS said it expired early, which
 * `CallCredentials` does after an `ExpiredToken` (functions/runtime/credential-renewal.ts).
 *
 * The `credentials` provider rejects with a {@link MemberAccountError} naming the
 * account: `auth_failed` when AssumeRole is refused, `throttled` when throttled.
 *
 * @throws InvalidArgsError when `accountId` is not 12 digits.
 * @throws SecretInvalidError when the deployed function may not assume `memberRoleName`.
 * @example
 * const access = memberSession({ tenant: 'acme', runId: 'r1', accountId: '444455556666', target });
 * const ec2 = new EC2Client(awsClientConfig(access, 'eu-west-1'));
 */
export function memberSession(request: MemberSessionRequest): AwsAccess {
  checkAccountId(request.accountId);
  const { target } = request;
  const roleArn = memberRoleArn(target, request.accountId);
  checkCustomerRoleName(roleArn, 'member_role_name');
  return assumedRoleAccess({
    roleArn,
    externalId: target.memberExternalId ?? target.externalId,
    region: target.region ?? platformRegion(),
    owner: {
      tenant: request.tenant,
      runId: request.runId,
      scenario: request.scenario,
      accountId: request.accountId,
    },
    signal: request.signal,
    onFailure: (err) =>
      sessionFailure(err, MEMBER_ROLE, request.accountId, request.accountName, MEMBER_ROLE_HINT),
  });
}

/** Who the organization session is opened for (the management or delegated-administrator account). */
export type OrganizationSessionRequest = Omit<MemberSessionRequest, 'accountId' | 'accountName'>;

/**
 * The session of the organization role (`managementRoleArn`), which lists the
 * organization ({@link resolveAccounts}) and reads its consolidated costs: as
 * {@link memberSession}, with the target's `external_id` and `etp-account` the
 * role's account. A deployed function refuses a role not named as
 * {@link ORGANIZATION_ROLE_NAME_ENV} says.
 *
 * @throws SecretInvalidError when the deployed function may not assume that role.
 */
export function organizationSession(request: OrganizationSessionRequest): AwsAccess {
  const { target } = request;
  const allowed = process.env[ORGANIZATION_ROLE_NAME_ENV];
  if (allowed && roleNameOf(target.managementRoleArn) !== allowed) {
    throw new SecretInvalidError(
      `AWS organization secret is invalid in: management_role_arn. The platform may assume only the role named ` +
        `${allowed} in the management account: deploy OrganizationAccessStack there (docs/organizations.md)`,
    );
  }
  const accountId = accountOfRoleArn(target.managementRoleArn);
  return assumedRoleAccess({
    roleArn: target.managementRoleArn,
    externalId: target.externalId,
    region: target.region ?? platformRegion(),
    owner: { tenant: request.tenant, runId: request.runId, scenario: request.scenario, accountId },
    signal: request.signal,
    onFailure: (err) =>
      sessionFailure(
        err,
        ORGANIZATION_ROLE,
        accountId,
        'management or delegated administrator',
        ORGANIZATION_ROLE_HINT,
      ),
  });
}
