/**
 * The facts that decide whether the root-user MFA control applies, read
 * outside the credential report:
 *
 * - GetAccountSummary's `AccountMFAEnabled`, `AccountAccessKeysPresent` and
 *   `AccountPasswordPresent` (IAM API reference, "GetAccountSummary"): live,
 *   where the credential report may be up to 4 hours old;
 * - ListOrganizationsFeatures (IAM API reference): whether the organization
 *   manages member accounts' root credentials centrally
 *   (`RootCredentialsManagement`; IAM User Guide, "Centrally manage root access
 *   for member accounts"). Only the management account or the IAM delegated
 *   administrator may call it; a member account gets
 *   AccountNotManagementOrDelegatedAdministratorException, a standalone account
 *   OrganizationNotFoundException — both are facts, not failures.
 *
 * A root user with no password and no access keys has nothing MFA would
 * protect. In a member account that is how centrally removed root credentials
 * look (no password can be recovered while the organization manages them), so
 * the control does not apply there; a standalone account's root can recover a
 * password by email, so the missing MFA stays a finding, at medium severity.
 */
import {
  AccountNotManagementOrDelegatedAdministratorException,
  GetAccountSummaryCommand,
  type IAMClient,
  ListOrganizationsFeaturesCommand,
  OrganizationNotFoundException,
  OrganizationNotInAllFeaturesModeException,
  ServiceAccessNotEnabledException,
} from '@aws-sdk/client-iam';
import type { ToolErrorInfo } from '../../../runtime/result';
import { accountFinding } from '../shared/account';
import type { Finding } from '../shared/findings';
import { serviceEnum } from '../shared/service-enums';
import type { CredentialReportRow } from './credential-report-csv';

/** GetAccountSummary's root-user flags; each null when the summary does not carry it. */
export type AccountSummaryFacts =
  | {
      readonly status: 'read';
      /** `AccountMFAEnabled`: the root user has an MFA device. */
      readonly rootMfaEnabled: boolean | null;
      /** `AccountAccessKeysPresent`: the root user has access keys. (Names avoid words results are redacted by.) */
      readonly rootKeysPresent: boolean | null;
      /** `AccountPasswordPresent`: the root user has a console sign-in password. */
      readonly rootSignInPresent: boolean | null;
    }
  | { readonly status: 'unavailable'; readonly error: ToolErrorInfo };

/**
 * Where the account stands for centralized root access:
 * `management_or_delegated_admin` (ListOrganizationsFeatures answered; its
 * features apply to the member accounts), `member` (a member account: it may not
 * ask), `standalone` (no organization), `central_access_off` (the organization
 * has not enabled IAM's trusted access or all features), `unknown` (`error`).
 */
export interface OrganizationFacts {
  readonly status:
    | 'management_or_delegated_admin'
    | 'member'
    | 'standalone'
    | 'central_access_off'
    | 'unknown';
  /** The organization's enabled centralized root access features; null unless answered. */
  readonly enabledFeatures: string[] | null;
  readonly organizationId: string | null;
  readonly error?: ToolErrorInfo;
}

/** The summary map's flags are counts, 0 or 1 (IAM API reference, "GetAccountSummary", SummaryMap). */
function flag(map: Record<string, number> | undefined, key: string): boolean | null {
  const value = map?.[key];
  return value === undefined ? null : value > 0;
}

/**
 * The root user's flags from GetAccountSummary.
 *
 * @returns `unavailable` with the normalized error when the call fails (AccessDenied…).
 */
export async function readAccountSummary(
  iam: IAMClient,
  describeError: (err: unknown) => ToolErrorInfo,
): Promise<AccountSummaryFacts> {
  try {
    const { SummaryMap } = await iam.send(new GetAccountSummaryCommand({}));
    return {
      status: 'read',
      rootMfaEnabled: flag(SummaryMap, 'AccountMFAEnabled'),
      rootKeysPresent: flag(SummaryMap, 'AccountAccessKeysPresent'),
      rootSignInPresent: flag(SummaryMap, 'AccountPasswordPresent'),
    };
  } catch (err) {
    return { status: 'unavailable', error: describeError(err) };
  }
}

/** `EnabledFeatures` values (IAM API reference, "ListOrganizationsFeatures"). */
const FEATURE = serviceEnum('EnabledFeatures', ['RootCredentialsManagement', 'RootSessions'] as const);

/**
 * The organization's centralized root access, from ListOrganizationsFeatures.
 * Never throws: the documented "you may not ask" answers are facts about the
 * account, anything else is `unknown` with its error.
 */
export async function readOrganizationFeatures(
  iam: IAMClient,
  describeError: (err: unknown) => ToolErrorInfo,
): Promise<OrganizationFacts> {
  try {
    const out = await iam.send(new ListOrganizationsFeaturesCommand({}));
    return {
      status: 'management_or_delegated_admin',
      enabledFeatures: (out.EnabledFeatures ?? []).map((f) => FEATURE.parse(f) ?? f),
      organizationId: out.OrganizationId ?? null,
    };
  } catch (err) {
    const none = { enabledFeatures: null, organizationId: null };
    if (err instanceof AccountNotManagementOrDelegatedAdministratorException)
      return { status: 'member', ...none };
    if (err instanceof OrganizationNotFoundException) return { status: 'standalone', ...none };
    if (
      err instanceof OrganizationNotInAllFeaturesModeException ||
      err instanceof ServiceAccessNotEnabledException
    ) {
      return { status: 'central_access_off', ...none };
    }
    return { status: 'unknown', ...none, error: describeError(err) };
  }
}

/** Whether the root-user MFA control holds, fails, or does not apply, and why. */
export interface RootMfaVerdict {
  /** `unknown`: neither the account summary nor the credential report said whether root has MFA. */
  readonly verdict: 'pass' | 'fail' | 'not_applicable' | 'unknown';
  /** One sentence for people and models. */
  readonly reason: string;
  /** The facts used, and where each came from. */
  readonly mfaEnabled: boolean | null;
  readonly signInPresent: boolean | null;
  readonly keysPresent: boolean | null;
  readonly organization: OrganizationFacts['status'];
  readonly source: 'account_summary' | 'credential_report' | 'account_summary_and_credential_report';
}

/** A key slot of the report's root row that holds a key (`N/A` rotation means empty). */
function rowHasKeys(row: CredentialReportRow | null): boolean | null {
  if (!row) return null;
  return row.keys.some((k) => k.active || k.lastRotated.at !== null);
}

/**
 * Judges the root user's MFA from the live account summary first, the
 * credential report's root row second (it may be hours old), and decides
 * whether the control applies at all: a root user with no password and no
 * access keys has nothing for MFA to protect in a member account (centrally
 * removed credentials), while a standalone account's root can still recover a
 * password. When the password's presence is unknown, the root user is assumed
 * to have one: a missing fact never hides a critical finding.
 */
export function rootMfaVerdict(
  row: CredentialReportRow | null,
  summary: AccountSummaryFacts,
  organization: OrganizationFacts,
): RootMfaVerdict {
  const read = summary.status === 'read' ? summary : null;
  const mfaEnabled = read?.rootMfaEnabled ?? (row ? row.mfaActive : null);
  const signInPresent = read?.rootSignInPresent ?? null;
  const keysPresent = read?.rootKeysPresent ?? rowHasKeys(row);
  const source =
    read && row ? 'account_summary_and_credential_report' : read ? 'account_summary' : 'credential_report';
  const facts = {
    mfaEnabled,
    signInPresent,
    keysPresent,
    organization: organization.status,
    source,
  } as const;
  if (mfaEnabled === true) return { verdict: 'pass', reason: 'The root user has an MFA device', ...facts };
  if (mfaEnabled === null) {
    // No data is not "no MFA": neither source answered.
    return {
      verdict: 'unknown',
      reason:
        'Neither the account summary nor the credential report could tell whether the root user has MFA',
      ...facts,
    };
  }
  if (signInPresent === false && keysPresent === false) {
    if (organization.status === 'member') {
      return {
        verdict: 'not_applicable',
        reason:
          'The root user has no password and no access keys: in an organization member account its credentials ' +
          'are removed (centrally managed root access), so there is nothing for MFA to protect',
        ...facts,
      };
    }
    return {
      verdict: 'fail',
      reason:
        'The root user has no password or access keys now, but can recover a password by email and has no MFA device',
      ...facts,
    };
  }
  return {
    verdict: 'fail',
    reason:
      signInPresent === null && keysPresent !== true
        ? 'The root user has no MFA device (whether it has a password could not be read; assumed it has)'
        : 'The root user has credentials and no MFA device',
    ...facts,
  };
}

/**
 * `iam_root_mfa_disabled`: critical when the root user has (or may have)
 * credentials, medium when it has none now but can recover a password; none
 * when the verdict is `pass` or `not_applicable`.
 */
export function rootMfaFindings(verdict: RootMfaVerdict, rootArn: string, accountId: string): Finding[] {
  if (verdict.verdict !== 'fail') return [];
  const recoverableOnly = verdict.signInPresent === false && verdict.keysPresent === false;
  return [
    accountFinding(accountId, {
      check: 'iam_root_mfa_disabled',
      severity: recoverableOnly ? 'medium' : 'critical',
      resource: rootArn,
      region: 'global',
      title: recoverableOnly
        ? 'The root user has no MFA device and can recover a password by email'
        : 'The root user has no MFA device',
      details: {
        reason: verdict.reason,
        signInPresent: verdict.signInPresent,
        keysPresent: verdict.keysPresent,
        organization: verdict.organization,
        source: verdict.source,
      },
    }),
  ];
}
