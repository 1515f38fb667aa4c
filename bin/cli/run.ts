import { userInfo } from 'node:os';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { Command } from 'commander';
import { answerQuestion, MAX_ANSWER_CHARS } from '../../functions/console/questions';
import { DynamoDbRunRecords } from '../../functions/engine/dynamodb-run-records';
import type { QuestionRecords } from '../../functions/engine/run-records';
import { awsRequestHandler } from '../../functions/runtime/aws/http-timeouts';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, RUN_ID, TENANT_ID } from '../../functions/runtime/ids';
import { DEFAULT_STACK_NAME } from '../stack-name';
import type { CliRun } from './io';
import { clip, formatTable } from './text';

/** The variable naming the run-records table when `--table` is not given. */
export const RUN_RECORDS_TABLE_ENV = 'ETP_RUN_RECORDS_TABLE';

/** Longest answer accepted, in characters: shared with the console (functions/console/questions.ts). */
export { MAX_ANSWER_CHARS };

/** The run-records table: `--table`, else `ETP_RUN_RECORDS_TABLE`, else `<stack>-run-records`. */
function runRecordsTable(option: string | undefined, stack: string, env: NodeJS.ProcessEnv): string {
  return option || env[RUN_RECORDS_TABLE_ENV] || `${stack}-run-records`;
}

/** What `etp run` is built from; tests pass local clients. */
export interface RunCommandClients {
  readonly records: (table: string) => QuestionRecords;
  readonly sfn: () => Pick<SFNClient, 'send' | 'destroy'>;
}

const DEFAULT_CLIENTS: RunCommandClients = {
  records: (table) => new DynamoDbRunRecords(table),
  sfn: () => new SFNClient({ requestHandler: awsRequestHandler() }),
};

/**
 * `etp run questions|answer`: the open `ask_user` questions of deployed runs,
 * and an answer that resumes a run (SendTaskSuccess with the question's task
 * token, which is never printed).
 */
export function registerRunCommands(
  program: Command,
  run: CliRun,
  clients: RunCommandClients = DEFAULT_CLIENTS,
): void {
  const { io } = run;
  const runs = program
    .command('run')
    .description('Questions of deployed runs waiting for an answer, and answers');

  runs
    .command('questions')
    .description('List the open ask_user questions, oldest first')
    .option('--tenant <tenant>', 'only this tenant’s questions')
    .option(
      '--table <name>',
      `run-records table (default: $${RUN_RECORDS_TABLE_ENV}, else <stack>-run-records)`,
    )
    .option('--stack <name>', 'the platform stack', DEFAULT_STACK_NAME)
    .action(async (options: { tenant?: string; table?: string; stack: string }) => {
      if (options.tenant !== undefined) assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      const questions = await clients
        .records(runRecordsTable(options.table, options.stack, io.env))
        .openQuestions(options.tenant);
      if (questions.length === 0) {
        io.out(`No open questions${options.tenant ? ` for tenant ${options.tenant}` : ''}.\n`);
        return;
      }
      io.out(
        formatTable(
          ['tenant', 'run id', 'scenario', 'level', 'asked', 'no answer after', 'question'],
          questions.map((q) => [
            q.tenant,
            q.runId,
            q.scenario,
            q.level,
            q.askedAt,
            q.expiresAt,
            clip(q.question, 200),
          ]),
        ),
      );
    });

  runs
    .command('answer')
    .description('Answer the open question of a run: the run resumes with the answer')
    .argument('<runId>', 'the run id (execution name) that asked')
    .requiredOption('--text <text>', `the answer, at most ${MAX_ANSWER_CHARS} characters`)
    .option(
      '--table <name>',
      `run-records table (default: $${RUN_RECORDS_TABLE_ENV}, else <stack>-run-records)`,
    )
    .option('--stack <name>', 'the platform stack', DEFAULT_STACK_NAME)
    .action(async (runId: string, options: { text: string; table?: string; stack: string }) => {
      assertIdentifier(RUN_ID, runId, 'runId');
      const text = options.text.trim();
      if (text === '' || text.length > MAX_ANSWER_CHARS) {
        throw new InvalidArgsError(`--text: expected an answer of 1-${MAX_ANSWER_CHARS} characters`);
      }
      const records = clients.records(runRecordsTable(options.table, options.stack, io.env));
      const sfn = clients.sfn();
      let question: { scenario: string; level: string };
      try {
        question = await answerQuestion(
          records,
          (input) => sfn.send(new SendTaskSuccessCommand(input)),
          runId,
          text,
          `etp-cli:${userInfo().username}`,
          { hint: '(see: etp run questions)' },
        );
      } finally {
        sfn.destroy();
      }
      io.out(
        `Answered the question of run ${runId} (${question.scenario}, level ${question.level}): the run resumes.\n`,
      );
    });
}
