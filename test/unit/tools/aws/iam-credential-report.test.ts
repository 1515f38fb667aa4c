import {
  CredentialReportExpiredException,
  CredentialReportNotPresentException,
  CredentialReportNotReadyException,
  GenerateCredentialReportCommand,
  GetCredentialReportCommand,
  IAMClient,
  IAMServiceException,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { DeadlineExceededError } from '../../../../functions/runtime/errors';
import { fetchCredentialReport, type PollClock } from '../../../../functions/tools/aws/iam/credential-report';
import { parseCredentialReport, ROOT_USER } from '../../../../functions/tools/aws/iam/credential-report-csv';
import { responseMetadata } from '../../../helpers/aws-errors';
import { CREDENTIAL_REPORT_HEADER, credentialReportOutput } from '../../../helpers/credential-report';

const iamMock = mockClient(IAMClient);

const REPORT = [
  CREDENTIAL_REPORT_HEADER,
  '<root_account>,arn:aws:iam::123456789012:root,2019-03-01T09:00:00+00:00,not_supported,2026-11-02T08:15:00+00:00,' +
    'not_supported,not_supported,true,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A',
  'legacy,arn:aws:iam::123456789012:user/legacy,2014-06-01T12:00:00+00:00,true,no_information,' +
    '2014-06-01T12:00:00+00:00,N/A,false,true,2014-06-01T12:05:00+00:00,2026-10-30T17:41:00+00:00,eu-west-1,s3,' +
    'false,N/A,N/A,N/A,N/A,false,N/A,false,N/A',
].join('\n');

const GENERATED = new Date('2026-11-30T12:00:00.000Z');

const report = credentialReportOutput(REPORT, GENERATED);

/** A clock whose sleeps only move its time: the poll loop runs without waiting. */
function fakeClock(): PollClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const fetchOptions = (clock: PollClock) => ({ deadline: deadlineIn(60_000), clock });

/** IAM's errors for a report that is missing, expired or being generated (IAM API reference, "GetCredentialReport"). */
const notPresent = () =>
  new CredentialReportNotPresentException({
    message: 'Credential report not present. Use GenerateCredentialReport to generate a report.',
    $metadata: responseMetadata(410),
  });
const expired = () =>
  new CredentialReportExpiredException({
    message: 'Credential report expired. Use GenerateCredentialReport to generate a new report.',
    $metadata: responseMetadata(410),
  });
const inProgress = () =>
  new CredentialReportNotReadyException({
    message: 'Credential report is being generated.',
    $metadata: responseMetadata(404),
  });

beforeEach(() => {
  iamMock.reset();
});

describe('fetchCredentialReport', () => {
  it('downloads the report at once when IAM answers COMPLETE', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'COMPLETE' });
    iamMock.on(GetCredentialReportCommand).resolves(report);
    const clock = fakeClock();

    // Act
    const fetched = await fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess
    expect(fetched).toEqual({ csv: REPORT, generatedAt: '2026-11-30T12:00:00.000Z', requests: 2 });
    expect(clock.slept).toEqual([]);
  });

  it('polls while the report is STARTED then INPROGRESS, 1 s then 2 s apart', async () => {
    // Prepare
    iamMock
      .on(GenerateCredentialReportCommand)
      .resolvesOnce({
        State: 'STARTED',
        Description: 'No report exists. Starting a new report generation task',
      })
      .resolvesOnce({ State: 'INPROGRESS' })
      .resolves({ State: 'COMPLETE' });
    iamMock.on(GetCredentialReportCommand).resolves(report);
    const clock = fakeClock();

    // Act
    const fetched = await fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess
    expect(fetched.requests).toBe(4);
    expect(clock.slept).toEqual([1000, 2000]);
    expect(iamMock.commandCalls(GenerateCredentialReportCommand)).toHaveLength(3);
  });

  it('generates the report when GetCredentialReport answers ReportNotPresent', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'COMPLETE' });
    iamMock.on(GetCredentialReportCommand).rejectsOnce(notPresent()).resolves(report);
    const clock = fakeClock();

    // Act
    const fetched = await fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess
    expect(fetched.csv).toBe(REPORT);
    expect(iamMock.commandCalls(GenerateCredentialReportCommand)).toHaveLength(2);
    expect(iamMock.commandCalls(GetCredentialReportCommand)).toHaveLength(2);
  });

  it('waits and downloads again when GetCredentialReport answers ReportInProgress', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'COMPLETE' });
    iamMock.on(GetCredentialReportCommand).rejectsOnce(inProgress()).resolves(report);
    const clock = fakeClock();

    // Act
    const fetched = await fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess
    expect(fetched.requests).toBe(3);
    expect(clock.slept).toEqual([1000]);
    expect(iamMock.commandCalls(GenerateCredentialReportCommand)).toHaveLength(1);
  });

  it('generates a new report when GetCredentialReport answers ReportExpired', async () => {
    // Prepare
    iamMock
      .on(GenerateCredentialReportCommand)
      .resolvesOnce({ State: 'COMPLETE' })
      .resolvesOnce({ State: 'STARTED' })
      .resolves({ State: 'COMPLETE' });
    iamMock.on(GetCredentialReportCommand).rejectsOnce(expired()).resolves(report);
    const clock = fakeClock();

    // Act
    const fetched = await fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess
    expect(fetched.generatedAt).toBe('2026-11-30T12:00:00.000Z');
    expect(iamMock.commandCalls(GenerateCredentialReportCommand)).toHaveLength(3);
    expect(iamMock.commandCalls(GetCredentialReportCommand)).toHaveLength(2);
    expect(clock.slept).toEqual([1000]);
  });

  it('gives up with a retryable timeout once 20 s of polling would pass', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'INPROGRESS' });
    const clock = fakeClock();

    // Act
    const fetching = fetchCredentialReport(new IAMClient({}), fetchOptions(clock));

    // Assess: waits 1 + 2 + 3 × 5 = 18 s; one more 3 s wait would pass 20 s.
    await expect(fetching).rejects.toThrow(DeadlineExceededError);
    await expect(fetching).rejects.toMatchObject({ code: 'timeout', retryable: true, service: 'iam' });
    expect(clock.slept).toEqual([1000, 2000, 3000, 3000, 3000, 3000, 3000]);
    expect(iamMock.commandCalls(GetCredentialReportCommand)).toHaveLength(0);
  });

  it('never waits past the call’s deadline', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).resolves({ State: 'STARTED' });
    const clock = fakeClock();

    // Act
    const fetching = fetchCredentialReport(new IAMClient({}), { deadline: deadlineIn(2500), clock });

    // Assess: 1 s fits in 2.5 s, 1 + 2 s does not.
    await expect(fetching).rejects.toMatchObject({ code: 'timeout' });
    expect(clock.slept).toEqual([1000]);
  });

  it('lets other IAM errors rise', async () => {
    // Prepare
    iamMock.on(GenerateCredentialReportCommand).rejects(
      new IAMServiceException({
        name: 'AccessDenied',
        message: 'User is not authorized to perform: iam:GenerateCredentialReport',
        $fault: 'client',
        $metadata: responseMetadata(403),
      }),
    );

    // Act + Assess
    await expect(fetchCredentialReport(new IAMClient({}), fetchOptions(fakeClock()))).rejects.toMatchObject({
      name: 'AccessDenied',
    });
  });
});

describe('parseCredentialReport', () => {
  it('reads the <root_account> row as the root user, not an IAM user', () => {
    // Act
    const [root, user] = parseCredentialReport(REPORT);

    // Assess
    expect(root).toMatchObject({
      user: ROOT_USER,
      arn: 'arn:aws:iam::123456789012:root',
      isRoot: true,
      passwordEnabled: null,
      mfaActive: true,
      passwordLastUsed: { at: '2026-11-02T08:15:00.000Z', raw: '2026-11-02T08:15:00+00:00' },
    });
    expect(user).toMatchObject({ user: 'legacy', isRoot: false, passwordEnabled: true, mfaActive: false });
  });

  it('turns N/A, no_information and not_supported date cells into null and keeps the raw value', () => {
    // Act
    const [root, user] = parseCredentialReport(REPORT);

    // Assess
    expect(user?.passwordLastUsed).toEqual({ at: null, raw: 'no_information' });
    expect(user?.keys[1]).toEqual({
      slot: 2,
      active: false,
      lastRotated: { at: null, raw: 'N/A' },
      lastUsed: { at: null, raw: 'N/A' },
      lastUsedRegion: null,
      lastUsedService: null,
    });
    expect(user?.keys[0]).toEqual({
      slot: 1,
      active: true,
      lastRotated: { at: '2014-06-01T12:05:00.000Z', raw: '2014-06-01T12:05:00+00:00' },
      lastUsed: { at: '2026-10-30T17:41:00.000Z', raw: '2026-10-30T17:41:00+00:00' },
      lastUsedRegion: 'eu-west-1',
      lastUsedService: 's3',
    });
    expect(root?.createdAt).toEqual({ at: '2019-03-01T09:00:00.000Z', raw: '2019-03-01T09:00:00+00:00' });
    const notSupported = parseCredentialReport(
      `${CREDENTIAL_REPORT_HEADER}\n${REPORT.split('\n')[1]?.replace('2026-11-02T08:15:00+00:00', 'not_supported')}`,
    );
    expect(notSupported[0]?.passwordLastUsed).toEqual({ at: null, raw: 'not_supported' });
  });

  it('rejects a report without the columns the checks read', () => {
    // Act + Assess
    expect(() => parseCredentialReport('user,arn\nalice,arn:aws:iam::123456789012:user/alice')).toThrow(
      /lacks columns: user_creation_time, password_enabled/,
    );
  });
});
