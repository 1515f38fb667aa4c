import { GetAccountPasswordPolicyCommand, type IAMClient, NoSuchEntityException } from '@aws-sdk/client-iam';
import type { ToolErrorInfo } from '../../../runtime/result';
import { accountFinding } from '../shared/account';
import type { Finding, Severity } from '../shared/findings';

/**
 * The account's IAM password policy for IAM users' console passwords. Field
 * names avoid the word "password": results are redacted by key name.
 */
export interface AccountPasswordPolicy {
  /** `not_configured`: no policy (IAM's defaults: 8 characters, nothing else); `unknown`: unreadable (`error`). */
  readonly status: 'configured' | 'not_configured' | 'unknown';
  /** Characters at least; null unless configured. */
  readonly minimumLength: number | null;
  readonly requireSymbols: boolean;
  readonly requireNumbers: boolean;
  readonly requireUppercase: boolean;
  readonly requireLowercase: boolean;
  /** Previous values a user may not reuse; null when reuse is not prevented. */
  readonly reusePrevention: number | null;
  /** Days a value stays valid; null when it never expires. */
  readonly maxAgeDays: number | null;
  readonly allowUsersToChange: boolean;
  readonly hardExpiry: boolean;
  readonly error?: ToolErrorInfo;
}

const NO_RULES = {
  minimumLength: null,
  requireSymbols: false,
  requireNumbers: false,
  requireUppercase: false,
  requireLowercase: false,
  reusePrevention: null,
  maxAgeDays: null,
  allowUsersToChange: false,
  hardExpiry: false,
} as const;

/** Could not be read; the caller adds the `error`. */
export const PASSWORD_POLICY_UNKNOWN: AccountPasswordPolicy = { status: 'unknown', ...NO_RULES };

/** CIS AWS Foundations Benchmark 1.8: at least 14 characters. */
export const RECOMMENDED_MINIMUM_LENGTH = 14;
/** CIS AWS Foundations Benchmark 1.9: prevent reuse of the last 24. */
export const RECOMMENDED_REUSE_PREVENTION = 24;

/**
 * The account's password policy (GetAccountPasswordPolicy).
 *
 * @returns `not_configured` when IAM answers NoSuchEntity (the account has none).
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readPasswordPolicy(iam: IAMClient): Promise<AccountPasswordPolicy> {
  try {
    const { PasswordPolicy: p } = await iam.send(new GetAccountPasswordPolicyCommand({}));
    return {
      status: 'configured',
      minimumLength: p?.MinimumPasswordLength ?? null,
      requireSymbols: p?.RequireSymbols === true,
      requireNumbers: p?.RequireNumbers === true,
      requireUppercase: p?.RequireUppercaseCharacters === true,
      requireLowercase: p?.RequireLowercaseCharacters === true,
      reusePrevention: p?.PasswordReusePrevention ?? null,
      maxAgeDays: p?.ExpirePasswords ? (p.MaxPasswordAge ?? null) : null,
      allowUsersToChange: p?.AllowUsersToChangePassword === true,
      hardExpiry: p?.HardExpiry === true,
    };
  } catch (err) {
    if (err instanceof NoSuchEntityException) return { status: 'not_configured', ...NO_RULES };
    throw err;
  }
}

/**
 * Findings on the policy (region `global`, resource the account's root ARN):
 * `iam_pw_policy_missing` (medium); else `iam_pw_policy_short_minimum`
 * (medium, under 14), `iam_pw_policy_no_reuse_prevention` (medium, under 24),
 * `iam_pw_policy_weak_complexity` (low, a character class not required).
 * An unreadable policy raises nothing (its error is reported).
 *
 * The policy governs IAM users' console passwords only: when the credential
 * report shows no IAM user with one (`consoleUsers: 0`, an SSO-only account),
 * the weaknesses protect nothing today and are reported `low`, saying so; the
 * controls still fail and stay mapped. `consoleUsers: null` (report unread)
 * keeps the severities.
 */
export function passwordPolicyFindings(
  policy: AccountPasswordPolicy,
  accountArn: string,
  accountId: string,
  consoleUsers: number | null = null,
): Finding[] {
  const noConsoleUsers = consoleUsers === 0;
  const finding = (check: string, severity: Severity, title: string, details?: Record<string, unknown>) =>
    accountFinding(accountId, {
      check,
      severity: noConsoleUsers ? 'low' : severity,
      resource: accountArn,
      region: 'global',
      title: noConsoleUsers ? `${title} (no IAM user has a console password today)` : title,
      ...(details || noConsoleUsers
        ? { details: { ...details, ...(noConsoleUsers ? { consoleUsers: 0 } : {}) } }
        : {}),
    });
  if (policy.status === 'unknown') return [];
  if (policy.status === 'not_configured') {
    return [
      finding(
        'iam_pw_policy_missing',
        'medium',
        'The account has no IAM password policy (IAM defaults: 8 characters, no complexity, no reuse prevention)',
      ),
    ];
  }
  const findings: Finding[] = [];
  if ((policy.minimumLength ?? 0) < RECOMMENDED_MINIMUM_LENGTH) {
    findings.push(
      finding(
        'iam_pw_policy_short_minimum',
        'medium',
        `The IAM password policy allows ${policy.minimumLength ?? '?'} characters (recommended ${RECOMMENDED_MINIMUM_LENGTH} or more)`,
        { minimumLength: policy.minimumLength, recommended: RECOMMENDED_MINIMUM_LENGTH },
      ),
    );
  }
  if ((policy.reusePrevention ?? 0) < RECOMMENDED_REUSE_PREVENTION) {
    findings.push(
      finding(
        'iam_pw_policy_no_reuse_prevention',
        'medium',
        policy.reusePrevention === null
          ? 'The IAM password policy does not prevent reuse'
          : `The IAM password policy prevents reuse of the last ${policy.reusePrevention} only (recommended ${RECOMMENDED_REUSE_PREVENTION})`,
        { reusePrevention: policy.reusePrevention, recommended: RECOMMENDED_REUSE_PREVENTION },
      ),
    );
  }
  const missing = (
    [
      ['symbols', policy.requireSymbols],
      ['numbers', policy.requireNumbers],
      ['uppercase', policy.requireUppercase],
      ['lowercase', policy.requireLowercase],
    ] as const
  )
    .filter(([, required]) => !required)
    .map(([name]) => name);
  if (missing.length > 0) {
    findings.push(
      finding(
        'iam_pw_policy_weak_complexity',
        'low',
        `The IAM password policy does not require ${missing.join(', ')}`,
        { notRequired: missing },
      ),
    );
  }
  return findings;
}
