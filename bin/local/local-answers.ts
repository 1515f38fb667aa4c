/**
 * Where a local run's `ask_user` questions are answered: the terminal, or a
 * file of scripted answers (`etp scenario run --local --answers <file>`).
 */
import { createInterface } from 'node:readline/promises';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { jsonSyntaxMessage } from '../../functions/runtime/json-syntax';
import { readOptionFile } from './option-file';

/** A question of a local run. */
export interface LocalQuestion {
  readonly scenario: string;
  readonly runId: string;
  readonly level: string;
  readonly turn: number;
  readonly question: string;
  readonly timeoutSeconds: number;
}

/** Answers questions: the answer's text, or undefined for "no answer" (the run goes on as after a timeout). */
export interface AnswerSource {
  answer(question: LocalQuestion): Promise<string | undefined>;
}

/** Answers taken in order from a list; `null`, or a list used up, is "no answer". */
export function scriptedAnswers(answers: readonly (string | null)[]): AnswerSource {
  const queue = [...answers];
  return {
    async answer() {
      return queue.shift() ?? undefined;
    },
  };
}

/**
 * The answers of an `--answers` file: a JSON array of strings (`null` for "no
 * answer"), used in the order the questions come.
 *
 * @throws InvalidArgsError when the file cannot be read or is not such an array.
 */
export function answersFile(file: string): AnswerSource {
  const accepted = 'a JSON array of answers such as ["yes, us-east-1 only", null] (null: no answer)';
  const text = readOptionFile('--answers', file, accepted).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgsError(
      `--answers ${file}: not JSON (${jsonSyntaxMessage(err)}); expected ${accepted}`,
    );
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string' || item === null)) {
    throw new InvalidArgsError(`--answers ${file}: expected ${accepted}`);
  }
  return scriptedAnswers(parsed as (string | null)[]);
}

/**
 * Asks on the terminal: the question on `output` (stderr, so stdout keeps the
 * run's output), the answer read from `input`; an empty line is "no answer".
 */
export function terminalAnswers(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): AnswerSource {
  return {
    async answer(question) {
      const terminal = createInterface({ input, output, terminal: false });
      try {
        const text = await terminal.question(
          `\n${question.scenario} (${question.level}, turn ${question.turn}) asks: ${question.question}\n` +
            'Your answer (empty: no answer) > ',
        );
        return text.trim() === '' ? undefined : text.trim();
      } finally {
        terminal.close();
      }
    },
  };
}
