import * as z from 'zod/mini';
import { topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** A threshold in whole days. */
const days = (fallback: number, what: string) =>
  z
    ._default(z.int().check(z.minimum(1), z.maximum(3650)), fallback)
    .check(z.describe(`${what} (1-3650 days, default ${fallback}).`));

/** `aws_iam_audit`: the IAM credential report and password policy, as findings. */
export const iamAuditSpec = defineAwsReadOnlySpec({
  name: 'aws_iam_audit',
  description:
    'Audit of IAM credentials from the account credential report (generated, then polled for up to 20 s) and the ' +
    'account password policy. Root MFA is judged with the live account summary (root MFA, password and access keys ' +
    "present) and the organization's centralized root access (ListOrganizationsFeatures): a member account's root " +
    'user without any credentials is not_applicable, not a finding. Findings with stable ids and the Security Hub / ' +
    'CIS controls they evidence: root user without MFA, with access keys, or used recently; ' +
    'console users without MFA; active access keys older than keyMaxAgeDays, never used, or unused for unusedDays; ' +
    'a missing or weak password policy (under 14 characters, no reuse prevention, no complexity; low when no IAM ' +
    'user has a console password). A user listed twice in the report counts once. Returns counts, the root user ' +
    'and its MFA verdict, the topN users with findings and the findings (worst first). Read-only, no cost; 6 ' +
    'IAM/STS requests when a report under 4 hours old exists. A report not ready in time is a `timeout` error inside ' +
    '`credentialReport` (retry shortly), the password policy is still reported; the summary names the part ' +
    "that could not be read. When neither could be read the call fails (both parts' shared code, e.g. " +
    'access_denied, else upstream_error).',
  inputSchema: () =>
    z.strictObject({
      keyMaxAgeDays: days(90, 'Active access keys not rotated for more days are findings'),
      unusedDays: days(90, 'Active access keys not used for more days are findings'),
      rootUsageDays: days(30, 'Root user sign-ins or key use within this many days are findings'),
      topN: topNArg(20),
    }),
  service: 'iam',
  // STS GetCallerIdentity (the account id) needs no permission.
  iam: [
    {
      actions: [
        'iam:GenerateCredentialReport',
        'iam:GetCredentialReport',
        'iam:GetAccountPasswordPolicy',
        // Whether the root-user MFA control applies (root credentials present; centralized root access).
        'iam:GetAccountSummary',
        'iam:ListOrganizationsFeatures',
      ],
    },
  ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
