import { InvalidArgumentError } from 'commander';
import { InvalidArgsError } from '../../functions/runtime/errors';

/** The variable naming the secret-reference table when `--table` is not given. */
export const SECRET_REFS_TABLE_ENV = 'ETP_SECRET_REFS_TABLE';

/**
 * A commander argument parser for options that take a JSON object (`--args`,
 * `--input`).
 *
 * @returns a parser that throws InvalidArgumentError (a usage error, exit code 2)
 *   saying what was received and giving `example` of what is accepted.
 * @example
 * new Option('--args <json>').argParser(jsonObjectArgument('{"regions":["eu-west-1"]}'));
 */
export function jsonObjectArgument(example: string): (value: string) => Record<string, unknown> {
  return (value) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      throw new InvalidArgumentError(
        `Expected a JSON object such as '${example}' (${(err as Error).message}).`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
      throw new InvalidArgumentError(`Expected a JSON object such as '${example}', got ${kind}.`);
    }
    return parsed as Record<string, unknown>;
  };
}

/** The secret-reference table: `--table`, else `ETP_SECRET_REFS_TABLE`, else none (the embedded store). */
export function secretRefsTable(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return option || env[SECRET_REFS_TABLE_ENV] || undefined;
}

/**
 * The table a command that writes references needs.
 *
 * @throws InvalidArgsError (usage error) when neither `--table` nor `ETP_SECRET_REFS_TABLE` names one.
 */
export function requireSecretRefsTable(
  command: string,
  option: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const table = secretRefsTable(option, env);
  if (!table) {
    throw new InvalidArgsError(
      `${command} needs the secret-reference table: pass --table <name> or set ${SECRET_REFS_TABLE_ENV} (the embedded default store of local runs is read-only)`,
    );
  }
  return table;
}
