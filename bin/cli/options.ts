import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { jsonSyntaxMessage } from '../../functions/runtime/json-syntax';
import { defaultLocalDir, LOCAL_DIR_ENV } from '../../functions/runtime/local-workspace-dir';

/** The variable naming the secret-reference table when `--table` is not given. */
export const SECRET_REFS_TABLE_ENV = 'ETP_SECRET_REFS_TABLE';
/** The variable naming a Converse-compatible endpoint for local runs when `--model-endpoint` is not given. */
export const MODEL_ENDPOINT_ENV = 'ETP_MODEL_ENDPOINT';

/**
 * Where a local run (`etp scenario run --local`, `etp console`) gets its model and keeps its files:
 * `--model-endpoint`, else `$ETP_MODEL_ENDPOINT`, else none (Bedrock), checked with {@link httpUrl};
 * `--local-dir`, else `$ETP_LOCAL_DIR`, else the default folder, made writable with {@link writableDirectory}.
 *
 * @throws InvalidArgsError (a usage error, exit code 2) naming the option or variable that was wrong.
 */
export function localRunPlaces(
  options: { readonly modelEndpoint?: string; readonly localDir?: string },
  env: NodeJS.ProcessEnv,
): { readonly modelEndpoint: string | undefined; readonly localDir: string } {
  const endpointOption = options.modelEndpoint ?? env[MODEL_ENDPOINT_ENV];
  const modelEndpoint =
    endpointOption === undefined
      ? undefined
      : httpUrl(
          endpointOption,
          options.modelEndpoint !== undefined ? '--model-endpoint' : MODEL_ENDPOINT_ENV,
        );
  const localDir = writableDirectory(
    options.localDir ?? defaultLocalDir(env),
    options.localDir !== undefined ? '--local-dir' : LOCAL_DIR_ENV,
  );
  return { modelEndpoint, localDir };
}

/**
 * A commander argument parser for options that take a JSON object (`--input`).
 *
 * @returns a parser that throws InvalidArgumentError (a usage error, exit code 2)
 *   saying what was received and giving `example` of what is accepted.
 * @example
 * new Option('--input <json>').argParser(jsonObjectArgument('{"regions":["eu-west-1"]}'));
 */
export function jsonObjectArgument(example: string): (value: string) => Record<string, unknown> {
  return (value) => parseJsonObject(value, `a JSON object such as '${example}'`);
}

/**
 * `value` parsed as a JSON object.
 *
 * @param expected - what is accepted, after "Expected" (`a JSON object such as '{}'`).
 * @throws InvalidArgumentError (a usage error) saying what was received and `expected`.
 */
export function parseJsonObject(value: string, expected: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`Expected ${expected} (${jsonSyntaxMessage(err)}).`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    throw new InvalidArgumentError(`Expected ${expected}, got ${kind}.`);
  }
  return parsed as Record<string, unknown>;
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

/**
 * An http(s) URL given by `option` (or the variable standing in for it), checked
 * before anything runs.
 *
 * @throws InvalidArgsError (a usage error, exit code 2) saying what is accepted.
 * @example httpUrl('http://127.0.0.1:8080', '--model-endpoint') // 'http://127.0.0.1:8080'
 */
export function httpUrl(value: string, option: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidArgsError(
      `${option} ${JSON.stringify(value)} is not an http(s) URL; give one such as http://127.0.0.1:8080 (etp model serve prints it)`,
    );
  }
  return value;
}

/**
 * A directory given by `option` that the run can write, created if missing, one
 * level at a time from the nearest existing parent (Node's recursive mkdir never
 * returns under some pseudo file systems, /proc among them).
 *
 * @throws InvalidArgsError (a usage error, exit code 2) when it is a file, cannot be created or is not writable.
 */
export function writableDirectory(dir: string, option: string): string {
  // An empty name would resolve to the current directory: never what was meant.
  if (dir.trim() === '') throw new InvalidArgsError(`${option} is empty; give a directory you can write`);
  const absolute = path.resolve(dir);
  const missing: string[] = [];
  let existing = absolute;
  while (!exists(existing)) {
    missing.unshift(existing);
    existing = path.dirname(existing);
  }
  const refuse = (why: string) =>
    new InvalidArgsError(`${option} ${dir} ${why}; give a directory you can write`);
  if (!statSync(existing).isDirectory()) throw refuse(`cannot be used: ${existing} is not a directory`);
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (err) {
      throw refuse(`cannot be created (${(err as NodeJS.ErrnoException).code ?? 'error'} at ${level})`);
    }
  }
  try {
    accessSync(absolute, constants.W_OK);
  } catch {
    throw refuse('is not writable');
  }
  return dir;
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * A commander argument parser for a whole number of milliseconds (`--latency-ms`).
 * Commander's own line already names the option and the value received
 * (`option '--latency-ms <ms>' argument '-1' is invalid.`), so the message says
 * only what is accepted: one line, nothing said twice.
 *
 * @returns a parser that throws InvalidArgumentError (exit code 2) for anything
 *   but digits or past `max`, saying the accepted range.
 */
export function millisecondsArgument(max: number): (value: string) => number {
  return (value) => {
    const ms = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(ms) || ms > max) {
      throw new InvalidArgumentError(`Expected whole milliseconds, 0-${max}.`);
    }
    return ms;
  };
}

/** Step Functions state machine ARNs (Step Functions API reference, "StartExecution": `stateMachineArn`; names 1-80). */
const STATE_MACHINE_ARN =
  /^arn:aws[a-z-]*:states:[a-z]{2}(-[a-z]+)+-\d:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/;

/**
 * A commander argument parser for `--state-machine-arn`, checked before any request.
 *
 * @throws InvalidArgumentError (exit code 2) showing the accepted form.
 */
export function stateMachineArnArgument(value: string): string {
  if (!STATE_MACHINE_ARN.test(value)) {
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a state machine ARN; expected arn:aws:states:<region>:<account>:stateMachine:<name>, e.g. arn:aws:states:eu-west-1:123456789012:stateMachine:ExternalToolsPlatform-aws_pulse (the <Scenario>StateMachineArn output).`,
    );
  }
  return value;
}

/** CloudFormation stack names (AWS CloudFormation User Guide, "Stack name"): a letter, then letters, digits or `-`, 128 at most. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * A commander argument parser for `--stack`.
 *
 * @throws InvalidArgumentError (exit code 2) saying what a stack name is.
 */
export function stackNameArgument(value: string): string {
  if (!STACK_NAME.test(value)) {
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a CloudFormation stack name: a letter, then letters, digits or -, 128 at most (e.g. ExternalToolsPlatform).`,
    );
  }
  return value;
}

/**
 * Starts a server on 127.0.0.1:`port` (`etp console`, `etp model serve`) and says, when it
 * cannot listen, which port and what to pass instead: Node's own "listen EADDRINUSE: address
 * already in use 127.0.0.1:4380" names neither the option nor the way out.
 *
 * @throws Error (exit 1) for a port in use or one this user may not listen on; other errors as they are.
 */
export async function listenOn<T>(port: number | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const instead = 'pass another --port (0: any free port)';
    if (code === 'EADDRINUSE') {
      throw new Error(`--port ${port}: 127.0.0.1:${port} is already in use by another process; ${instead}`, {
        cause: err,
      });
    }
    if (code === 'EACCES') {
      throw new Error(
        `--port ${port}: this user may not listen on 127.0.0.1:${port} (ports below 1024 need privileges); ${instead}`,
        { cause: err },
      );
    }
    throw err;
  }
}
