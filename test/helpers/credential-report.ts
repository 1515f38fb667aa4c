/**
 * IAM credential reports as GetCredentialReport answers them, for the tests of
 * `aws_iam_audit` and of the report's fetching and parsing.
 */
import type { GetCredentialReportCommandOutput } from '@aws-sdk/client-iam';

/** The header of a credential report (IAM User Guide, "Getting credential reports": the 22 columns of the report format). */
export const CREDENTIAL_REPORT_HEADER =
  'user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,password_next_rotation,' +
  'mfa_active,access_key_1_active,access_key_1_last_rotated,access_key_1_last_used_date,' +
  'access_key_1_last_used_region,access_key_1_last_used_service,access_key_2_active,access_key_2_last_rotated,' +
  'access_key_2_last_used_date,access_key_2_last_used_region,access_key_2_last_used_service,cert_1_active,' +
  'cert_1_last_rotated,cert_2_active,cert_2_last_rotated';

/** GetCredentialReport's answer (IAM API reference, "GetCredentialReport"): `csv` as bytes, generated at `generated`. */
export function credentialReportOutput(
  csv: string,
  generated: Date,
): Pick<GetCredentialReportCommandOutput, 'Content' | 'ReportFormat' | 'GeneratedTime'> {
  return { Content: new TextEncoder().encode(csv), ReportFormat: 'text/csv', GeneratedTime: generated };
}

/** An account password policy meeting every check of `aws_iam_audit` (IAM API reference, "PasswordPolicy"; CIS 1.8/1.9). */
export const STRONG_PASSWORD_POLICY = {
  MinimumPasswordLength: 14,
  RequireSymbols: true,
  RequireNumbers: true,
  RequireUppercaseCharacters: true,
  RequireLowercaseCharacters: true,
  AllowUsersToChangePassword: true,
  ExpirePasswords: false,
  PasswordReusePrevention: 24,
  HardExpiry: false,
};
