/**
 * Issue 9, kind 2 ("missing protection" judged without checking the protected
 * thing exists) and kind 9 (duplicate rows) for aws_iam_audit, on the account
 * summary and organization answers IAM documents.
 */
import {
  AccountNotManagementOrDelegatedAdministratorException,
  GenerateCredentialReportCommand,
  GetAccountPasswordPolicyCommand,
  GetAccountSummaryCommand,
  GetCredentialReportCommand,
  IAMClient,
  ListOrganizationsFeaturesCommand,
  OrganizationNotFoundException,
} from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { redact } from '../../../../../functions/runtime/redact';
import { type IamAuditValue, iamAuditTool } from '../../../../../functions/tools/aws/iam-audit';
import { iamAuditSpec } from '../../../../../functions/tools/aws/iam-audit.meta';
import { findingId } from '../../../../../functions/tools/aws/shared/findings';
import {
  DOCUMENTED_ACCOUNT_SUMMARY,
  DOCUMENTED_ORGANIZATIONS_FEATURES,
  DOCUMENTED_PASSWORD_POLICY,
} from '../../../../helpers/aws-documented-examples';
import { responseMetadata } from '../../../../helpers/aws-errors';
import { defaultChainToolServices, expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';
import {
  CREDENTIAL_REPORT_HEADER,
  credentialReportOutput,
  STRONG_PASSWORD_POLICY,
} from '../../../../helpers/credential-report';

const iamMock = mockClient(IAMClient);
const stsMock = mockClient(STSClient);

const ACCOUNT = '123456789012';
const ROOT_ARN = `arn:aws:iam::${ACCOUNT}:root`;
const services = defaultChainToolServices();

async function audited() {
  return expectSuccess<IamAuditValue>(await runAwsTool(iamAuditTool, {}, { services }));
}

/** A report row (IAM User Guide, "Getting credential reports": 22 columns); keys and certificates empty. */
function row(user: string, arn: string, passwordEnabled: string, mfa: boolean): string {
  const na = user === '<root_account>' ? 'not_supported' : 'N/A';
  const noKey = ['false', 'N/A', 'N/A', 'N/A', 'N/A'];
  return [
    user,
    arn,
    '2019-03-01T10:00:00+00:00',
    passwordEnabled,
    'N/A',
    na,
    na,
    String(mfa),
    ...noKey,
    ...noKey,
  ]
    .concat(['false', 'N/A', 'false', 'N/A'])
    .join(',');
}

/** The root row: no password, no MFA, no keys (root credentials removed centrally). */
const ROOT_WITHOUT_CREDENTIALS = row('<root_account>', ROOT_ARN, 'not_supported', false);

function report(...rows: string[]) {
  return credentialReportOutput([CREDENTIAL_REPORT_HEADER, ...rows].join('\n'), new Date());
}

/** GetAccountSummary's SummaryMap with the root flags (IAM API reference, "GetAccountSummary"). */
function summary(flags: { mfa: 0 | 1; keys: 0 | 1; password: 0 | 1 }) {
  return {
    SummaryMap: {
      Users: 2,
      AccountMFAEnabled: flags.mfa,
      AccountAccessKeysPresent: flags.keys,
      AccountPasswordPresent: flags.password,
    },
  };
}

const memberAccount = () =>
  new AccountNotManagementOrDelegatedAdministratorException({
    message:
      'The request was rejected because the account making the request is not the management account or delegated administrator account for centralized root access.',
    $metadata: responseMetadata(400),
  });
const noOrganization = () =>
  new OrganizationNotFoundException({
    message: 'The request was rejected because no organization is associated with your account.',
    $metadata: responseMetadata(400),
  });

beforeEach(() => {
  iamMock.reset();
  stsMock.reset();
  stsMock
    .on(GetCallerIdentityCommand)
    .resolves({ Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/auditor` });
  iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'COMPLETE' });
  iamMock.on(GetAccountPasswordPolicyCommand).resolves({ PasswordPolicy: STRONG_PASSWORD_POLICY });
  iamMock.on(GetCredentialReportCommand).resolves(report(ROOT_WITHOUT_CREDENTIALS));
});

describe('aws_iam_audit checks that a protection applies before judging it (issue 9, kind 2)', () => {
  it('does not report "root has no MFA" for a member account whose root has no credentials', async () => {
    // Prepare: the case.
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 0, keys: 0, password: 0 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(memberAccount());

    // Act
    const { value, summary: line } = await audited();

    // Assess
    expect(value.findings.byCheck).toEqual({});
    expect(value.rootMfa).toMatchObject({
      verdict: 'not_applicable',
      mfaEnabled: false,
      signInPresent: false,
      keysPresent: false,
      organization: 'member',
      source: 'account_summary_and_credential_report',
    });
    expect(value.organization).toEqual({ status: 'member', enabledFeatures: null, organizationId: null });
    expect(line).toMatch(/root has no credentials \(MFA not applicable\); 0 findings/);
    expect(redact(value)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(iamMock.commandCalls(GetAccountSummaryCommand)).toHaveLength(1);
    expect(iamMock.commandCalls(ListOrganizationsFeaturesCommand)).toHaveLength(1);
  });

  it('still reports it, at medium, for a standalone account whose root could recover a password', async () => {
    // Prepare
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 0, keys: 0, password: 0 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(noOrganization());

    // Act
    const { value } = await audited();

    // Assess
    expect(value.rootMfa).toMatchObject({ verdict: 'fail', organization: 'standalone' });
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        id: findingId('iam_root_mfa_disabled', 'global', ROOT_ARN, ACCOUNT),
        severity: 'medium',
        title: 'The root user has no MFA device and can recover a password by email',
        controls: { securityHub: ['IAM.9', 'IAM.6'], cis: ['1.5', '1.6'] },
      }),
    ]);
  });

  it('reports it as critical, same id as before, when the root user has a password', async () => {
    // Prepare
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 0, keys: 0, password: 1 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(memberAccount());

    // Act
    const { value } = await audited();

    // Assess
    expect(value.findings.top.map((f) => [f.id, f.severity])).toEqual([
      [findingId('iam_root_mfa_disabled', 'global', ROOT_ARN, ACCOUNT), 'critical'],
    ]);
  });

  it('trusts the live account summary over a credential report generated before MFA was enabled', async () => {
    // Prepare: the report (up to 4 hours old) still says mfa_active false.
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 1, keys: 0, password: 1 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(noOrganization());

    // Act
    const { value } = await audited();

    // Assess
    expect(value.rootMfa.verdict).toBe('pass');
    expect(value.findings.total).toBe(0);
  });

  it('reports password policy gaps at low severity when no IAM user has a console password', async () => {
    // Prepare
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 1, keys: 0, password: 1 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(memberAccount());
    iamMock
      .on(GetAccountPasswordPolicyCommand)
      .resolves({ PasswordPolicy: { ...STRONG_PASSWORD_POLICY, MinimumPasswordLength: 10 } });

    // Act
    const { value } = await audited();

    // Assess
    expect(value.consoleUsers).toBe(0);
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        check: 'iam_pw_policy_short_minimum',
        severity: 'low',
        title: expect.stringMatching(/\(no IAM user has a console password today\)$/),
        controls: { securityHub: ['IAM.15'], cis: ['1.8'] },
      }),
    ]);
  });

  it('holds on the account summary and password policy IAM documents, read from a management account', async () => {
    // Prepare: AccountAccessKeysPresent 1, AccountMFAEnabled 0 and no AccountPasswordPresent; the
    // documented policy (8 characters, reuse 12, no upper/lower case required).
    iamMock.on(GetAccountSummaryCommand).resolves({ SummaryMap: DOCUMENTED_ACCOUNT_SUMMARY });
    iamMock.on(ListOrganizationsFeaturesCommand).resolves(DOCUMENTED_ORGANIZATIONS_FEATURES);
    iamMock.on(GetAccountPasswordPolicyCommand).resolves({ PasswordPolicy: DOCUMENTED_PASSWORD_POLICY });
    iamMock
      .on(GetCredentialReportCommand)
      .resolves(
        report(ROOT_WITHOUT_CREDENTIALS, row('ops', `arn:aws:iam::${ACCOUNT}:user/ops`, 'true', true)),
      );

    // Act
    const { value } = await audited();

    // Assess
    expect(value.organization).toEqual({
      status: 'management_or_delegated_admin',
      enabledFeatures: ['RootCredentialsManagement', 'RootSessions'],
      organizationId: 'o-aa111bb222',
    });
    expect(value.rootMfa).toMatchObject({ verdict: 'fail', keysPresent: true, signInPresent: null });
    const byCheck = Object.fromEntries(value.findings.top.map((f) => [f.check, f]));
    expect(byCheck.iam_root_mfa_disabled).toMatchObject({ severity: 'critical' });
    expect(byCheck.iam_pw_policy_short_minimum).toMatchObject({
      severity: 'medium',
      controls: { securityHub: ['IAM.15'], cis: ['1.8'] }, // 8 characters meets IAM.7's default
    });
    expect(byCheck.iam_pw_policy_no_reuse_prevention).toMatchObject({
      controls: { securityHub: ['IAM.16'], cis: ['1.9'] },
    });
    expect(byCheck.iam_pw_policy_weak_complexity).toMatchObject({
      details: { notRequired: ['uppercase', 'lowercase'] },
      controls: { securityHub: ['IAM.7', 'IAM.11', 'IAM.12'], cis: [] },
    });
  });

  it('lists the IAM reads that decide the root control in its spec (read-only)', () => {
    expect(iamAuditSpec.iam[0]?.actions).toEqual(
      expect.arrayContaining(['iam:GetAccountSummary', 'iam:ListOrganizationsFeatures']),
    );
  });
});

describe('aws_iam_audit reads the report state in any spelling (issue 9, kind 1)', () => {
  it('downloads the report when GenerateCredentialReport answers "complete" in lower case', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'complete' as never });
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 1, keys: 0, password: 1 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(noOrganization());

    // Act
    const { value } = await audited();

    // Assess
    expect(value.credentialReport).toMatchObject({ status: 'complete', requests: 2 });
    expect(iamMock.commandCalls(GenerateCredentialReportCommand)).toHaveLength(1);
  });
});

describe('aws_iam_audit counts a user listed twice once (issue 9, kind 9)', () => {
  it('gives one finding and one user for two report rows of the same ARN', async () => {
    // Prepare: the case: the same user ARN twice.
    const user = row('dev', `arn:aws:iam::${ACCOUNT}:user/dev`, 'true', false);
    const other = row('ci', `arn:aws:iam::${ACCOUNT}:user/ci`, 'false', false);
    iamMock.on(GetAccountSummaryCommand).resolves(summary({ mfa: 1, keys: 0, password: 1 }));
    iamMock.on(ListOrganizationsFeaturesCommand).rejects(noOrganization());
    iamMock.on(GetCredentialReportCommand).resolves(report(ROOT_WITHOUT_CREDENTIALS, user, other, user));

    // Act
    const { value } = await audited();

    // Assess
    expect(value.users).toBe(2);
    expect(value.consoleUsers).toBe(1);
    expect(value.consoleUsersWithoutMfa).toBe(1);
    expect(value.credentialReport).toMatchObject({ status: 'complete', duplicateRows: 1 });
    expect(value.findings.byCheck).toEqual({ iam_user_console_without_mfa: 1 });
    expect(new Set(value.findings.top.map((f) => f.id)).size).toBe(value.findings.top.length);
    expect(value.usersWithFindings.map((u) => u.user)).toEqual(['dev']);
  });
});
