import {
  AccountNotManagementOrDelegatedAdministratorException,
  GenerateCredentialReportCommand,
  GetAccountPasswordPolicyCommand,
  GetAccountSummaryCommand,
  GetCredentialReportCommand,
  IAMClient,
  IAMServiceException,
  ListOrganizationsFeaturesCommand,
  NoSuchEntityException,
  OrganizationNotFoundException,
} from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import { type Deadline, deadlineIn } from '../../../../functions/runtime/deadline';
import { redact } from '../../../../functions/runtime/redact';
import { type IamAuditValue, iamAuditTool } from '../../../../functions/tools/aws/iam-audit';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeCaller } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import {
  defaultChainToolServices,
  expectFailure,
  expectSuccess,
  runAwsTool,
} from '../../../helpers/aws-tool';
import {
  CREDENTIAL_REPORT_HEADER,
  credentialReportOutput,
  STRONG_PASSWORD_POLICY,
} from '../../../helpers/credential-report';

/**
 * `aws_iam_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** A credential report (IAM User Guide, "Getting credential reports"): the root user and three users. */
const CREDENTIAL_REPORT_CSV = [
  CREDENTIAL_REPORT_HEADER,
  `<root_account>,arn:aws:iam::${ACCOUNT_ID}:root,2020-01-01T00:00:00+00:00,not_supported,2024-05-01T10:00:00+00:00,not_supported,not_supported,true,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `alice,arn:aws:iam::${ACCOUNT_ID}:user/alice,2021-02-01T00:00:00+00:00,true,2024-06-01T08:00:00+00:00,2024-01-01T00:00:00+00:00,N/A,true,true,2021-02-01T00:00:00+00:00,2024-06-01T08:00:00+00:00,us-east-1,s3,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `bob,arn:aws:iam::${ACCOUNT_ID}:user/bob,2022-03-01T00:00:00+00:00,true,no_information,2022-03-01T00:00:00+00:00,N/A,false,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `ci,arn:aws:iam::${ACCOUNT_ID}:user/ci,2023-04-01T00:00:00+00:00,false,N/A,N/A,N/A,false,true,2023-04-01T00:00:00+00:00,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
].join('\n');

/** The cases of `aws_iam_audit`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_iam_audit',
    clients: [STSClient, IAMClient],
    account: 'root and 3 users, a fresh credential report, a password policy',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      stubOf(IAMClient)
        .on(GenerateCredentialReportCommand)
        .resolves({
          State: 'COMPLETE',
          Description: 'No report exists. Starting a new report generation task',
        })
        .on(GetCredentialReportCommand)
        .resolves(credentialReportOutput(CREDENTIAL_REPORT_CSV, new Date()))
        .on(GetAccountPasswordPolicyCommand)
        .resolves({ PasswordPolicy: STRONG_PASSWORD_POLICY })
        // The facts that decide whether the root MFA control applies (IAM API reference).
        .on(GetAccountSummaryCommand)
        .resolves({
          SummaryMap: {
            Users: 3,
            AccountMFAEnabled: 1,
            AccountAccessKeysPresent: 0,
            AccountPasswordPresent: 1,
          },
        })
        .on(ListOrganizationsFeaturesCommand)
        .rejects(
          new AccountNotManagementOrDelegatedAdministratorException({
            message:
              'The request was rejected because the account making the request is not the management account',
            $metadata: { httpStatusCode: 400 },
          }),
        );
    },
  },
];

const iamMock = mockClient(IAMClient);
const stsMock = mockClient(STSClient);

const ACCOUNT = '123456789012';
const ROOT_ARN = `arn:aws:iam::${ACCOUNT}:root`;
const DAY_MS = 86_400_000;

// No aws_default row: the tool uses the default credential chain, which the mocked clients never call.
const services = defaultChainToolServices();

async function succeeded(args: Record<string, unknown> = {}, deadline?: Deadline) {
  return expectSuccess<IamAuditValue>(await runAwsTool(iamAuditTool, args, { services, deadline }));
}

/** A credential report date cell `days` days (and an hour) ago, as IAM writes them: `2026-11-30T11:00:00+00:00`. */
function daysAgo(days: number): string {
  return `${new Date(Date.now() - days * DAY_MS - 3_600_000).toISOString().slice(0, 19)}+00:00`;
}

/** One report row from its cells (IAM User Guide, "Getting credential reports": the 22 columns). */
function row(cells: {
  user: string;
  arn: string;
  passwordEnabled: string;
  passwordLastUsed: string;
  mfa: boolean;
  key1?: [active: boolean, rotated: string, used: string];
  key2?: [active: boolean, rotated: string, used: string];
}): string {
  const key = (k?: [boolean, string, string]) =>
    k
      ? [k[0], k[1], k[2], k[2] === 'N/A' ? 'N/A' : 'eu-west-1', k[2] === 'N/A' ? 'N/A' : 'ec2']
      : [false, 'N/A', 'N/A', 'N/A', 'N/A'];
  const notSupported = cells.user === '<root_account>' ? 'not_supported' : 'N/A';
  return [
    cells.user,
    cells.arn,
    daysAgo(2000),
    cells.passwordEnabled,
    cells.passwordLastUsed,
    notSupported,
    notSupported,
    cells.mfa,
    ...key(cells.key1),
    ...key(cells.key2),
    false,
    'N/A',
    false,
    'N/A',
  ].join(',');
}

/** GetCredentialReport's answer holding `rows` under the header. */
function reportOf(...rows: string[]) {
  return credentialReportOutput(
    [CREDENTIAL_REPORT_HEADER, ...rows].join('\n'),
    new Date('2026-11-30T12:00:00.000Z'),
  );
}

const ROOT_CLEAN = row({
  user: '<root_account>',
  arn: ROOT_ARN,
  passwordEnabled: 'not_supported',
  passwordLastUsed: daysAgo(400),
  mfa: true,
});

/** An IAM user with a console password and MFA: no finding of its own, but the password policy governs it. */
const CONSOLE_USER_WITH_MFA = row({
  user: 'ops',
  arn: `arn:aws:iam::${ACCOUNT}:user/ops`,
  passwordEnabled: 'true',
  passwordLastUsed: daysAgo(1),
  mfa: true,
});

/** IAM's AccessDenied for `action`, as the IAM API answers it (HTTP 403). */
function accessDenied(action: string): IAMServiceException {
  return new IAMServiceException({
    name: 'AccessDenied',
    message: `User: arn:aws:iam::${ACCOUNT}:user/auditor is not authorized to perform: ${action}`,
    $fault: 'client',
    $metadata: responseMetadata(403),
  });
}

beforeEach(() => {
  iamMock.reset();
  stsMock.reset();
  stsMock.on(GetCallerIdentityCommand).resolves({
    UserId: 'AIDAEXAMPLEUSERID0001',
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
  });
  iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'COMPLETE' });
  iamMock.on(GetAccountPasswordPolicyCommand).resolves({ PasswordPolicy: STRONG_PASSWORD_POLICY });
  // An account summary without the root flags and a standalone account: root MFA is judged from the
  // report, as before issue 9 (root-mfa-verdict.test.ts covers the facts that change the verdict).
  iamMock
    .on(GetAccountSummaryCommand)
    .resolves({ SummaryMap: { Users: 1, AccountSigningCertificatesPresent: 0 } });
  iamMock.on(ListOrganizationsFeaturesCommand).rejects(
    new OrganizationNotFoundException({
      message: 'The request was rejected because no organization is associated with your account.',
      $metadata: responseMetadata(400),
    }),
  );
});

describe('aws_iam_audit', () => {
  it('finds console users without MFA, old, unused and never-used keys, and root use', async () => {
    // Prepare
    iamMock.on(GetCredentialReportCommand).resolves(
      reportOf(
        row({
          user: '<root_account>',
          arn: ROOT_ARN,
          passwordEnabled: 'not_supported',
          passwordLastUsed: daysAgo(5),
          mfa: false,
          key1: [true, daysAgo(900), daysAgo(40)],
        }),
        row({
          user: 'alice',
          arn: `arn:aws:iam::${ACCOUNT}:user/alice`,
          passwordEnabled: 'true',
          passwordLastUsed: 'no_information',
          mfa: false,
          key1: [true, daysAgo(200), daysAgo(2)],
        }),
        row({
          user: 'bob',
          arn: `arn:aws:iam::${ACCOUNT}:user/bob`,
          passwordEnabled: 'false',
          passwordLastUsed: 'N/A',
          mfa: false,
          key1: [true, daysAgo(10), 'N/A'],
          key2: [true, daysAgo(400), daysAgo(120)],
        }),
        row({
          user: 'carol',
          arn: `arn:aws:iam::${ACCOUNT}:user/carol`,
          passwordEnabled: 'true',
          passwordLastUsed: daysAgo(1),
          mfa: true,
        }),
      ),
    );

    // Act
    const result = await succeeded();

    // Assess
    const value = result.value;
    expect(value).toMatchObject({
      accountId: ACCOUNT,
      credentialReport: { status: 'complete', generatedAt: '2026-11-30T12:00:00.000Z', requests: 2 },
      users: 3,
      consoleUsers: 2,
      consoleUsersWithoutMfa: 1,
      usersWithActiveKeys: 2,
      activeKeys: 3,
    });
    expect(value.root).toMatchObject({
      arn: ROOT_ARN,
      mfaActive: false,
      daysSinceLastUse: 5,
      keys: [{ slot: 1, status: 'active', ageDays: 900 }],
    });
    // Ranked by severity; within one severity the order is the ids' (hashes), so compare sorted.
    expect(value.findings.top.map((f) => f.severity)).toEqual([
      'critical',
      'critical',
      'high',
      'high',
      'medium',
      'medium',
      'medium',
      'low',
    ]);
    expect(value.findings.top.map((f) => `${f.check} ${f.severity} ${f.resource}`).sort()).toEqual([
      `iam_root_key_present critical ${ROOT_ARN}#key1`,
      `iam_root_mfa_disabled critical ${ROOT_ARN}`,
      `iam_root_used_recently high ${ROOT_ARN}`,
      `iam_user_console_without_mfa high arn:aws:iam::${ACCOUNT}:user/alice`,
      `iam_user_key_never_used low arn:aws:iam::${ACCOUNT}:user/bob#key1`,
      `iam_user_key_not_rotated medium arn:aws:iam::${ACCOUNT}:user/alice#key1`,
      `iam_user_key_not_rotated medium arn:aws:iam::${ACCOUNT}:user/bob#key2`,
      `iam_user_key_unused medium arn:aws:iam::${ACCOUNT}:user/bob#key2`,
    ]);
    const old = value.findings.top.find(
      (f) => f.resource.endsWith('bob#key2') && f.check === 'iam_user_key_not_rotated',
    );
    expect(old?.details).toEqual({ slot: 2, ageDays: 400, maxAgeDays: 90 });
    expect(old?.id).toBe(
      findingId('iam_user_key_not_rotated', 'global', `arn:aws:iam::${ACCOUNT}:user/bob#key2`, ACCOUNT),
    );
    expect(value.usersWithFindings.map((u) => [u.user, u.checks])).toEqual([
      ['alice', ['iam_user_console_without_mfa', 'iam_user_key_not_rotated']],
      ['bob', ['iam_user_key_never_used', 'iam_user_key_not_rotated', 'iam_user_key_unused']],
    ]);
    expect(value.usersWithFindings[0]?.passwordLastUsed).toEqual({ at: null, raw: 'no_information' });
    expect(value.passwordPolicy.status).toBe('configured');
    expect(result.summary).toBe(
      '3 IAM users (1 of 2 console users without MFA, 3 active keys), root MFA OFF; 8 findings (2 critical, 2 high)',
    );
    // Nothing the audit returns is masked by redaction: no field name looks like a secret.
    expect(redact(value)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('does not call a key never used when it predates IAM tracking key use (2015-04-22)', async () => {
    // Prepare: N/A means "not used since IAM began tracking this information on April 22, 2015"
    // (IAM API reference, "AccessKeyLastUsed"); erin's key is from 2014, frank's from last week.
    iamMock.on(GetCredentialReportCommand).resolves(
      reportOf(
        ROOT_CLEAN,
        row({
          user: 'erin',
          arn: `arn:aws:iam::${ACCOUNT}:user/erin`,
          passwordEnabled: 'false',
          passwordLastUsed: 'N/A',
          mfa: false,
          key1: [true, '2014-06-01T10:00:00+00:00', 'N/A'],
        }),
        row({
          user: 'frank',
          arn: `arn:aws:iam::${ACCOUNT}:user/frank`,
          passwordEnabled: 'false',
          passwordLastUsed: 'N/A',
          mfa: false,
          key1: [true, daysAgo(7), 'N/A'],
        }),
      ),
    );

    // Act
    const { value } = await succeeded();

    // Assess
    const unused = (user: string) =>
      value.findings.top.find(
        (f) => f.check === 'iam_user_key_never_used' && f.resource.includes(`/${user}#`),
      );
    expect(unused('erin')?.title).toBe(
      'Access key 1 of IAM user erin is active and has no recorded use since IAM began tracking key use on 2015-04-22 (the key is older)',
    );
    expect(unused('erin')?.details).toMatchObject({ lastUsed: 'N/A', useTrackedSince: '2015-04-22' });
    expect(unused('frank')?.title).toBe('Access key 1 of IAM user frank is active and was never used');
    expect(unused('frank')?.details).not.toHaveProperty('useTrackedSince');
  });

  it('applies the thresholds given as arguments', async () => {
    // Prepare
    iamMock.on(GetCredentialReportCommand).resolves(
      reportOf(
        ROOT_CLEAN,
        row({
          user: 'dave',
          arn: `arn:aws:iam::${ACCOUNT}:user/dave`,
          passwordEnabled: 'false',
          passwordLastUsed: 'N/A',
          mfa: false,
          key1: [true, daysAgo(100), daysAgo(50)],
        }),
      ),
    );

    // Act
    const defaults = await succeeded();
    const strict = await succeeded({ keyMaxAgeDays: 30, unusedDays: 45 });

    // Assess
    expect(defaults.value.findings.top.map((f) => f.check)).toEqual(['iam_user_key_not_rotated']);
    expect(strict.value.findings.top.map((f) => f.check).sort()).toEqual([
      'iam_user_key_not_rotated',
      'iam_user_key_unused',
    ]);
  });

  it('reports a missing password policy (NoSuchEntity) and a weak one', async () => {
    // Prepare
    iamMock.on(GetCredentialReportCommand).resolves(reportOf(ROOT_CLEAN, CONSOLE_USER_WITH_MFA));
    iamMock.on(GetAccountPasswordPolicyCommand).rejectsOnce(
      new NoSuchEntityException({
        message: `The Password Policy with domain name ${ACCOUNT} cannot be found.`,
        $metadata: responseMetadata(404),
      }),
    );

    // Act
    const missing = await succeeded();
    iamMock.on(GetAccountPasswordPolicyCommand).resolves({
      PasswordPolicy: {
        ...STRONG_PASSWORD_POLICY,
        MinimumPasswordLength: 8,
        RequireSymbols: false,
        PasswordReusePrevention: undefined,
      },
    });
    const weak = await succeeded();

    // Assess
    expect(missing.value.passwordPolicy).toMatchObject({ status: 'not_configured', minimumLength: null });
    expect(missing.value.findings.top.map((f) => [f.check, f.severity, f.resource])).toEqual([
      ['iam_pw_policy_missing', 'medium', ROOT_ARN],
    ]);
    expect(weak.value.passwordPolicy).toMatchObject({
      status: 'configured',
      minimumLength: 8,
      requireSymbols: false,
      reusePrevention: null,
    });
    const byCheck = [...weak.value.findings.top].sort((a, b) => a.check.localeCompare(b.check));
    expect(redact(weak.value)).toEqual(JSON.parse(JSON.stringify(weak.value)));
    expect(byCheck.map((f) => [f.check, f.severity, f.details])).toEqual([
      ['iam_pw_policy_no_reuse_prevention', 'medium', { reusePrevention: null, recommended: 24 }],
      ['iam_pw_policy_short_minimum', 'medium', { minimumLength: 8, recommended: 14 }],
      ['iam_pw_policy_weak_complexity', 'low', { notRequired: ['symbols'] }],
    ]);
  });

  it('keeps the password policy when the credential report is denied', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).rejects(
      new IAMServiceException({
        name: 'AccessDenied',
        message: `User: arn:aws:iam::${ACCOUNT}:user/auditor is not authorized to perform: iam:GenerateCredentialReport`,
        $fault: 'client',
        $metadata: responseMetadata(403),
      }),
    );

    // Act
    const result = await succeeded();

    // Assess
    expect(result.truncated).toBe(false);
    expect(result.value.credentialReport).toMatchObject({
      status: 'unavailable',
      error: { code: 'access_denied', service: 'iam', retryable: false },
    });
    expect(result.value.root).toBeNull();
    expect(result.value.passwordPolicy.status).toBe('configured');
    expect(result.summary).toBe(
      'IAM credential report unavailable (access_denied), root MFA unknown; 0 findings (0 critical, 0 high)',
    );
  });

  it('says in the summary that the password policy is unknown when only it is denied', async () => {
    // Prepare
    iamMock.on(GetCredentialReportCommand).resolves(reportOf(ROOT_CLEAN));
    iamMock.on(GetAccountPasswordPolicyCommand).rejects(accessDenied('iam:GetAccountPasswordPolicy'));

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.credentialReport.status).toBe('complete');
    expect(result.value.passwordPolicy).toMatchObject({
      status: 'unknown',
      error: { code: 'access_denied' },
    });
    expect(result.summary).toBe(
      '0 IAM users (0 of 0 console users without MFA, 0 active keys), root MFA on; ' +
        'password policy unknown (access_denied); 0 findings (0 critical, 0 high)',
    );
  });

  it('fails with the shared code when neither the credential report nor the password policy can be read', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).rejects(accessDenied('iam:GenerateCredentialReport'));
    iamMock.on(GetAccountPasswordPolicyCommand).rejects(accessDenied('iam:GetAccountPasswordPolicy'));

    // Act
    const { error } = expectFailure(await runAwsTool(iamAuditTool, {}));

    // Assess
    expect(error).toMatchObject({ code: 'access_denied', retryable: false, service: 'iam' });
    expect(error.message).toMatch(
      /^Nothing of IAM could be read: credential report \(access_denied: .*iam:GenerateCredentialReport.*\); password policy \(access_denied: .*iam:GetAccountPasswordPolicy/,
    );
  });

  it('fails with upstream_error when the two unreadable parts failed differently', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).rejects(accessDenied('iam:GenerateCredentialReport'));
    iamMock.on(GetAccountPasswordPolicyCommand).rejects(
      new IAMServiceException({
        name: 'ServiceFailure',
        message: 'Internal failure',
        $fault: 'server',
        $metadata: responseMetadata(500),
      }),
    );

    // Act
    const { error } = expectFailure(await runAwsTool(iamAuditTool, {}));

    // Assess
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain('credential report (access_denied');
    expect(error.message).toContain('password policy (');
  });

  it('marks the result truncated with a timeout when the report is not ready before the deadline', async () => {
    // Prepare: the first 1 s wait would already pass a 0.5 s deadline.
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'STARTED' });

    // Act
    const result = await succeeded({}, deadlineIn(500));

    // Assess
    expect(result.truncated).toBe(true);
    expect(result.value.credentialReport).toMatchObject({
      status: 'unavailable',
      error: { code: 'timeout', retryable: true },
    });
    expect(iamMock.commandCalls(GetCredentialReportCommand)).toHaveLength(0);
  });
});
