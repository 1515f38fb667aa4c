/**
 * What the console's API works on, as ports: deployed, DynamoDB, S3, Secrets
 * Manager and Step Functions (functions/console/handler.ts); locally, the local
 * run records, workspaces and an in-process runner (bin/local/console-backend.ts).
 * The API (routes.ts) checks who may see which tenant before it calls any of them.
 */
import type { SecretReferenceStore } from '../runtime/secrets/reference';
import type { WorkspaceProvider } from '../runtime/workspace';
import type { ConsoleCatalog } from './catalog-view';
import type { LiveEvent } from './live';

/** The tags tenant isolation needs on a Secrets Manager secret (docs/tenant-isolation.md). */
export interface SecretTagCheck {
  /** `tagged`: both tags name this tenant and secret name; `untagged`: a tag is missing; `other`: a tag names another. */
  readonly status: 'tagged' | 'untagged' | 'other' | 'unknown';
  /** Why `unknown` (the secret could not be described), in words. */
  readonly detail?: string;
}

/** Reads a secret's tags (DescribeSecret), never its value. */
export type SecretTagReader = (arn: string, tenant: string, secretName: string) => Promise<SecretTagCheck>;

/** A run of a scenario as the runs page lists it. */
export interface RunListing {
  readonly tenant: string;
  readonly scenario: string;
  readonly runId: string;
  /** `running` until the run's summary is written. */
  readonly outcome: 'succeeded' | 'incomplete' | 'running';
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly totalUsd?: number;
}

/** Where runs are found: their workspaces' prefixes. */
export interface RunIndex {
  /** The scenarios a tenant has runs of. */
  scenarios(tenant: string): Promise<string[]>;
  /** The run ids of a tenant's scenario, any order. */
  runIds(tenant: string, scenario: string): Promise<string[]>;
}

/** An open `ask_user` question as the page shows it: never its task token. */
export interface ConsoleQuestion {
  readonly tenant: string;
  readonly scenario: string;
  readonly runId: string;
  readonly level: string;
  readonly question: string;
  readonly askedAt?: string;
  readonly expiresAt?: string;
}

/** Open questions and their answers. */
export interface QuestionDesk {
  /** The open questions of one tenant, oldest first. */
  open(tenant: string): Promise<ConsoleQuestion[]>;
  /**
   * Answers the open question of a tenant's run: the run resumes with `text`.
   *
   * @throws PlatformError `not_found` when that tenant's run has no open question.
   */
  answer(tenant: string, runId: string, text: string, by: string): Promise<void>;
}

/** Starts runs (deployed: StartExecution; locally: in this process). */
export interface RunStarter {
  start(tenant: string, scenario: string, input: Record<string, unknown>): Promise<{ runId: string }>;
}

/** The live events of runs this backend is running itself (locally): as they happen. */
export interface LiveFeed {
  /** The events of a run after the first `after`, or undefined when this backend does not run it. */
  events(tenant: string, scenario: string, runId: string, after: number): LiveEvent[] | undefined;
}

/**
 * A deployed run's events read from its execution history (execution-history.ts):
 * undefined when the scenario has no state machine here.
 */
export type ExecutionEvents = (
  tenant: string,
  scenario: string,
  runId: string,
) => Promise<LiveEvent[] | undefined>;

/** Everything the API works on. */
export interface ConsoleBackend {
  /** `local` (etp console) or `deployed`: the page says which. */
  readonly mode: 'local' | 'deployed';
  readonly catalog: ConsoleCatalog;
  readonly references: SecretReferenceStore;
  readonly secretTags: SecretTagReader;
  readonly runs: RunIndex;
  readonly workspaces: WorkspaceProvider;
  readonly questions: QuestionDesk;
  readonly starter?: RunStarter;
  readonly live?: LiveFeed;
  /** Deployed: each run's events from Step Functions; a run it does not know is read from its workspace. */
  readonly history?: ExecutionEvents;
  /**
   * Deployed: this backend with the stores of one tenant, reached with that tenant's
   * session of the console tenant role (tenant-sessions.ts); the router calls it for a
   * `/api/tenants/:tenant/` route once the user's groups are checked. Locally absent.
   */
  forTenant?(tenant: string): ConsoleBackend;
  /** Tenants known besides the user's groups (secret references, runs): the local console lists them. */
  knownTenants(): Promise<string[]>;
}
