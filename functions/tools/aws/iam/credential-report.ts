import { setTimeout as sleep } from 'node:timers/promises';
import {
  CredentialReportExpiredException,
  CredentialReportNotPresentException,
  CredentialReportNotReadyException,
  GenerateCredentialReportCommand,
  GetCredentialReportCommand,
  type IAMClient,
} from '@aws-sdk/client-iam';
import type { Deadline } from '../../../runtime/deadline';
import { DeadlineExceededError, PlatformError } from '../../../runtime/errors';
import { serviceEnum } from '../shared/service-enums';

/** GenerateCredentialReport `State` (IAM API reference, "GenerateCredentialReport"). */
const REPORT_STATE = serviceEnum('State', ['STARTED', 'INPROGRESS', 'COMPLETE'] as const);

/**
 * Longest wait for IAM to generate the report, in ms. A report takes seconds for
 * most accounts (IAM User Guide, "Getting credential reports for your AWS
 * account"); one not ready by then is reported as `timeout` (retryable): IAM
 * keeps generating it, and the next call downloads it.
 */
export const CREDENTIAL_REPORT_MAX_WAIT_MS = 20_000;

/** IAM requests per fetch at most, so a report that keeps vanishing cannot loop. */
const MAX_REQUESTS = 20;

/** Pause before the n-th poll (1-based), in ms: 1 s, 2 s, then 3 s. */
function pollDelayMs(poll: number): number {
  return Math.min(1000 * poll, 3000);
}

/** Time as the poll loop sees it; tests pass a fake one that never really waits. */
export interface PollClock {
  /** Epoch ms. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Wall-clock time and real waits. */
export const SYSTEM_CLOCK: PollClock = { now: Date.now, sleep: (ms) => sleep(ms) };

/** Options of {@link fetchCredentialReport}. */
export interface FetchCredentialReportOptions {
  /** The call's deadline: the wait never goes past it. */
  readonly deadline: Deadline;
  /** @default {@link SYSTEM_CLOCK} */
  readonly clock?: PollClock;
  /** @default {@link CREDENTIAL_REPORT_MAX_WAIT_MS} */
  readonly maxWaitMs?: number;
}

/** A downloaded credential report. */
export interface FetchedCredentialReport {
  /** The CSV text (IAM returns it base64-decoded as bytes, `ReportFormat: text/csv`). */
  readonly csv: string;
  /** When IAM generated it, ISO 8601; reports are reused for up to 4 hours. */
  readonly generatedAt: string | null;
  /** IAM requests made (GenerateCredentialReport + GetCredentialReport). */
  readonly requests: number;
}

/**
 * Generates the account's credential report and downloads it (IAM API reference,
 * "GenerateCredentialReport", "GetCredentialReport"):
 *
 * - GenerateCredentialReport answers `State`: STARTED / INPROGRESS → wait and ask
 *   again; COMPLETE → GetCredentialReport (IAM reuses a report under 4 hours old);
 * - GetCredentialReport failing with ReportNotPresent or ReportExpired → generate
 *   again; ReportInProgress → wait and download again.
 *
 * Waits 1 s, 2 s, then 3 s between polls, for at most `maxWaitMs` and never past
 * the deadline.
 *
 * @throws DeadlineExceededError (`timeout`, retryable) when the report is not ready in time.
 * @throws PlatformError (`upstream_error`, retryable) after 20 requests without a report.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function fetchCredentialReport(
  iam: IAMClient,
  options: FetchCredentialReportOptions,
): Promise<FetchedCredentialReport> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const budgetMs = Math.min(
    options.maxWaitMs ?? CREDENTIAL_REPORT_MAX_WAIT_MS,
    options.deadline.remainingMs(),
  );
  const giveUpAt = clock.now() + budgetMs;
  let requests = 0;
  let polls = 0;
  let generate = true;
  const wait = async (why: string) => {
    const delay = pollDelayMs(++polls);
    if (clock.now() + delay > giveUpAt) {
      throw new DeadlineExceededError(
        `The IAM credential report was not ready within ${Math.round(budgetMs / 1000)} s (${why}); IAM keeps generating it, try again shortly`,
        { service: 'iam', details: { requests } },
      );
    }
    await clock.sleep(delay);
  };

  while (requests < MAX_REQUESTS) {
    if (generate) {
      requests++;
      const { State } = await iam.send(new GenerateCredentialReportCommand({}));
      if (!REPORT_STATE.is(State, 'COMPLETE')) {
        await wait(`state ${State ?? 'unknown'}`);
        continue;
      }
      generate = false;
    }
    try {
      requests++;
      const report = await iam.send(new GetCredentialReportCommand({}));
      return {
        csv: Buffer.from(report.Content ?? new Uint8Array()).toString('utf8'),
        generatedAt: report.GeneratedTime?.toISOString() ?? null,
        requests,
      };
    } catch (err) {
      if (err instanceof CredentialReportNotReadyException) {
        await wait('ReportInProgress');
      } else if (
        err instanceof CredentialReportNotPresentException ||
        err instanceof CredentialReportExpiredException
      ) {
        generate = true;
      } else {
        throw err;
      }
    }
  }
  throw new PlatformError('upstream_error', `No IAM credential report after ${MAX_REQUESTS} requests`, {
    retryable: true,
    service: 'iam',
  });
}
