/**
 * Answering `ask_user` questions of deployed runs: claim the question (so two
 * people cannot answer one), resume the run with SendTaskSuccess on its task
 * token, settle the record. The token is read from the run records and handed to
 * Step Functions only: it is never returned, printed or logged. `etp run answer`
 * and the console's API share this.
 */
import type { SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import type { QuestionRecords } from '../engine/run-records';
import { PlatformError } from '../runtime/errors';
import type { ConsoleQuestion, QuestionDesk } from './backend';

/** Longest answer accepted, in characters (the model reads it; SendTaskSuccess takes up to 256 KiB). */
export const MAX_ANSWER_CHARS = 4000;

/** Errors of SendTaskSuccess meaning the wait is over: the run went on without the answer (Step Functions API reference). */
const GONE = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

/** Sends SendTaskSuccess: a client's `send` with the command built by the caller's SDK import. */
export type SendTaskSuccess = (input: SendTaskSuccessCommand['input']) => Promise<unknown>;

/**
 * Answers the open question of `runId`: the run resumes with `{ answered, text, by, at }`.
 *
 * @param options.tenant - when given, a question of another tenant is `not_found` (and left open).
 * @param options.hint - words after "has no open question" (`(see: etp run questions)`).
 * @returns the question answered.
 * @throws PlatformError `not_found` (no open question, or the wait is over: then settled `timed_out`),
 *   `upstream_error` (Step Functions refused; the question is open again). The SDK's message is never
 *   included: only the error's name, nothing that may echo the token.
 */
export async function answerQuestion(
  records: QuestionRecords,
  send: SendTaskSuccess,
  runId: string,
  text: string,
  by: string,
  options: { readonly tenant?: string; readonly hint?: string } = {},
): Promise<{ scenario: string; level: string }> {
  const { tenant } = options;
  const none = () =>
    new PlatformError(
      'not_found',
      `Run ${runId} has no open question${options.hint ? ` ${options.hint}` : ''}`,
    );
  if (tenant !== undefined && !(await records.openQuestions(tenant)).some((q) => q.runId === runId)) {
    throw none();
  }
  const question = await records.claimQuestion(runId);
  if (!question) throw none();
  if (tenant !== undefined && question.tenant !== tenant) {
    await records.settleQuestion(question, 'open');
    throw none();
  }
  try {
    await send({
      taskToken: question.taskToken,
      output: JSON.stringify({ answered: true, text, by, at: new Date().toISOString() }),
    });
  } catch (err) {
    const name = (err as { name?: string }).name ?? 'Error';
    if (GONE.has(name)) {
      await records.settleQuestion(question, 'timed_out');
      throw new PlatformError(
        'not_found',
        `The question of run ${runId} is no longer waiting (${name}): the run went on without an answer`,
      );
    }
    await records.settleQuestion(question, 'open');
    throw new PlatformError('upstream_error', `Step Functions refused the answer of run ${runId} (${name})`, {
      retryable: true,
    });
  }
  await records.settleQuestion(question, 'answered');
  return { scenario: question.scenario, level: question.level };
}

/** The deployed question desk: the run-records table and Step Functions. */
export function recordsQuestionDesk(records: QuestionRecords, send: SendTaskSuccess): QuestionDesk {
  return {
    async open(tenant): Promise<ConsoleQuestion[]> {
      // Mapped field by field: the records' summary has no token, and nothing else is passed on.
      return (await records.openQuestions(tenant)).map((q) => ({
        tenant: q.tenant,
        scenario: q.scenario,
        runId: q.runId,
        level: q.level,
        question: q.question,
        askedAt: q.askedAt,
        expiresAt: q.expiresAt,
      }));
    },
    async answer(tenant, runId, text, by) {
      await answerQuestion(records, send, runId, text, by, { tenant });
    },
  };
}
