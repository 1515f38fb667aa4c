/** Exit codes of `etp` (docs/cli.md, "Exit codes"). */
export const EXIT_OK = 0;
/** A runtime failure: a tool call returned `ok: false`, a scenario execution failed, a table was unreachable. */
export const EXIT_FAILED = 1;
/** A usage error: an unknown command, a missing or malformed option or value. */
export const EXIT_USAGE = 2;

/**
 * Where a command writes and what it reads from its environment: the process's
 * streams and `process.env` for `bin/etp.ts`, buffers for the tests. The AWS SDK
 * reads its own standard variables (`AWS_REGION`, `AWS_ENDPOINT_URL_DYNAMODB`…)
 * from `process.env`.
 */
export interface CliIo {
  /** Results: tables, JSON, Markdown, a run's summary. Each call writes the text as given. */
  readonly out: (text: string) => void;
  /** Errors, warnings and the progress of a run. */
  readonly err: (text: string) => void;
  /** The CLI's own variables (`ETP_SECRET_REFS_TABLE`). */
  readonly env: NodeJS.ProcessEnv;
  /** Standard input, for values read from `-` (`etp secrets seed --value-file -`); absent: empty. */
  readonly stdin?: NodeJS.ReadableStream;
  /**
   * The terminal a local run asks `ask_user` questions on (the process's stdin and
   * stderr); absent, or stdin not a TTY: questions get "no answer" unless `--answers` is given.
   */
  readonly terminal?: {
    readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean };
    readonly output: NodeJS.WritableStream;
  };
}

/** The state of one `etp` invocation that commands report into. */
export interface CliRun {
  readonly io: CliIo;
  /** Set by a command that ran but failed (e.g. `EXIT_FAILED`); starts at `EXIT_OK`. */
  exitCode: number;
}

/** The process's stdout, stderr and environment. */
export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    stdin: process.stdin,
    terminal: { input: process.stdin, output: process.stderr },
  };
}
