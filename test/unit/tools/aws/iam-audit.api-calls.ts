/**
 * `aws_iam_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  AccountNotManagementOrDelegatedAdministratorException,
  GenerateCredentialReportCommand,
  GetAccountPasswordPolicyCommand,
  GetAccountSummaryCommand,
  GetCredentialReportCommand,
  IAMClient,
  ListOrganizationsFeaturesCommand,
} from '@aws-sdk/client-iam';
import { STSClient } from '@aws-sdk/client-sts';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeCaller } from '../../../helpers/api-call-case';
import {
  CREDENTIAL_REPORT_HEADER,
  credentialReportOutput,
  STRONG_PASSWORD_POLICY,
} from '../../../helpers/credential-report';

/** A credential report (IAM User Guide, "Getting credential reports"): the root user and three users. */
const CREDENTIAL_REPORT_CSV = [
  CREDENTIAL_REPORT_HEADER,
  `<root_account>,arn:aws:iam::${ACCOUNT_ID}:root,2020-01-01T00:00:00+00:00,not_supported,2024-05-01T10:00:00+00:00,not_supported,not_supported,true,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `alice,arn:aws:iam::${ACCOUNT_ID}:user/alice,2021-02-01T00:00:00+00:00,true,2024-06-01T08:00:00+00:00,2024-01-01T00:00:00+00:00,N/A,true,true,2021-02-01T00:00:00+00:00,2024-06-01T08:00:00+00:00,us-east-1,s3,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `bob,arn:aws:iam::${ACCOUNT_ID}:user/bob,2022-03-01T00:00:00+00:00,true,no_information,2022-03-01T00:00:00+00:00,N/A,false,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `ci,arn:aws:iam::${ACCOUNT_ID}:user/ci,2023-04-01T00:00:00+00:00,false,N/A,N/A,N/A,false,true,2023-04-01T00:00:00+00:00,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
].join('\n');

/** The cases of `aws_iam_audit`. */
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
