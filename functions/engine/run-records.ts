/**
 * What the engine keeps outside a run's own workspace: open `ask_user` questions
 * (with the task token that resumes the run) and, per tenant and scenario, which
 * run's findings the next run compares against. Deployed: one DynamoDB table
 * (dynamodb-run-records.ts); local runs: files (bin/local/local-run-records.ts).
 */

/** Where a run's findings of a level are: its run id and the path in that run's workspace. */
export interface FindingsPointer {
  readonly runId: string;
  readonly path: string;
}

/** A tenant's watermark of a scenario (docs/scenarios.md, "Watermark"): what the last succeeded run read up to. */
export interface Watermark {
  /** The mark: the value the next run's watermark input takes (for Lead Qualifier, an ISO 8601 UTC instant). */
  readonly value: string;
  /** The run that set it. */
  readonly runId: string;
  /** ISO 8601 UTC: when it was set. */
  readonly updatedAt: string;
}

/** The status of a question. `answering` is held while the answer is being sent. */
export type QuestionStatus = 'open' | 'answering' | 'answered' | 'timed_out' | 'failed';

/** A question as `etp run questions` lists it: never the task token. */
export interface QuestionSummary {
  readonly tenant: string;
  readonly runId: string;
  readonly scenario: string;
  readonly level: string;
  /** The model turn that asked. */
  readonly turn: number;
  readonly question: string;
  readonly status: QuestionStatus;
  /** ISO 8601 UTC. */
  readonly askedAt: string;
  /** ISO 8601 UTC: when the run resumes with "no answer". */
  readonly expiresAt: string;
  /** Whether the question was posted to the tenant's Slack. */
  readonly posted: boolean;
}

/** A question being recorded: what is listed, plus the task token (a credential: stored, never shown or logged). */
export interface NewQuestion extends Omit<QuestionSummary, 'status'> {
  readonly taskToken: string;
}

/** The engine's side of the records. */
export interface RunRecords {
  /**
   * The findings this run compares against, and records this run's as the
   * tenant's latest of the scenario level. Idempotent: called again by the same
   * run (a retried invocation), it returns the same previous pointer and changes nothing.
   *
   * @param options.readOnly - only read: this run read nothing worth comparing against
   *   (every tool failed), so it does not become the reference point.
   * @returns the previous run's pointer, absent on the tenant's first run.
   */
  swapLatestFindings(
    tenant: string,
    scenario: string,
    level: string,
    current: FindingsPointer,
    options?: { readonly readOnly?: boolean },
  ): Promise<FindingsPointer | undefined>;
  /** The tenant's watermark of the scenario, absent before its first succeeded run that set one. */
  readWatermark(tenant: string, scenario: string): Promise<Watermark | undefined>;
  /**
   * Sets the tenant's watermark of the scenario. A mark never goes back: an
   * ISO 8601 instant earlier than the one kept (a late run of an older window, a
   * retried summary of an overtaken run) leaves the kept mark.
   *
   * @returns whether `mark` is now the kept one (false: a later mark was already kept).
   */
  advanceWatermark(tenant: string, scenario: string, mark: Watermark): Promise<boolean>;
  /** Records an open question (replacing one of the same run, level and turn: a retried ask gets a new token). */
  putQuestion(question: NewQuestion): Promise<void>;
  /** Marks a question `answered`, `timed_out` or `failed` unless it already left `open`/`answering`. */
  closeQuestion(
    tenant: string,
    runId: string,
    level: string,
    turn: number,
    status: Exclude<QuestionStatus, 'open' | 'answering'>,
  ): Promise<void>;
}

/** What `etp run answer` needs from the question records. */
export interface QuestionRecords {
  /** Open questions, oldest first; of one tenant when given. */
  openQuestions(tenant?: string): Promise<QuestionSummary[]>;
  /**
   * Takes the open question of a run for answering (status `open` → `answering`,
   * conditionally, so two people cannot answer one question).
   *
   * @returns the question and its task token, or undefined when the run has no open question.
   */
  claimQuestion(runId: string): Promise<(QuestionSummary & { readonly taskToken: string }) | undefined>;
  /** Sets the status of a claimed question. */
  settleQuestion(question: QuestionSummary, status: QuestionStatus): Promise<void>;
}

/** The sort key of a question: `question#<runId>#<level>#<turn>`. */
export function questionKey(runId: string, level: string, turn: number): string {
  return `question#${runId}#${level}#${turn}`;
}

/** The sort key of a tenant's watermark of a scenario: `watermark#<scenario>`. */
export function watermarkKey(scenario: string): string {
  return `watermark#${scenario}`;
}

/** Whether mark `a` is later than `b`: instants compared in time, other marks as text. */
export function isLaterMark(a: string, b: string): boolean {
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta > tb;
  return a > b;
}

/** The sort key of a tenant's latest findings of a scenario level: `findings#<scenario>#<level>`. */
export function findingsKey(scenario: string, level: string): string {
  return `findings#${scenario}#${level}`;
}
