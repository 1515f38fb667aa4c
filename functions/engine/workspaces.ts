/**
 * How the engine reaches run workspaces (functions/runtime/workspace.ts): a
 * factory opening the workspace of a run, and the layout of what the engine
 * writes there. Deployed, the factory opens the S3 prefix
 * `runs/<tenant>/<scenario>/<runId>/` of the platform's bucket
 * (functions/runtime/workspace-s3.ts); locally, a directory (bin/local/local-workspace.ts).
 */
import { PlatformError } from '../runtime/errors';
import type { ResultRef, Workspace, WorkspaceProvider } from '../runtime/workspace';

/** Identifies a run: its tenant, scenario and run id (the execution name). */
export interface RunKey {
  readonly tenant: string;
  readonly scenario: string;
  readonly runId: string;
}

/** Opens the workspace of a run. Never throws for a well-formed key. */
export type WorkspaceFactory = (run: RunKey) => Workspace;

/**
 * The engine's view of a {@link WorkspaceProvider}: the workspace of each run.
 *
 * @example const workspaces = workspacesOf(s3WorkspaceProvider(process.env.WORKSPACE_BUCKET));
 */
export function workspacesOf(provider: WorkspaceProvider): WorkspaceFactory {
  return (run) => provider({ tenant: run.tenant, scenario: run.scenario, runId: run.runId });
}

/** The workspace prefix of a run (docs/design.md): `runs/<tenant>/<scenario>/<runId>/`. */
export function runPrefix(run: RunKey): string {
  return `runs/${run.tenant}/${run.scenario}/${run.runId}/`;
}

/** Where the engine writes, relative to the run's workspace. */
export const ENGINE_PATHS = {
  /** Each call's result of a plan level, as the dispatcher returned it. */
  callResult: (level: string, index: number, tool: string) => `levels/${level}/${index}-${tool}.json`,
  /** A plan level's ranked findings and their diff with the previous run. */
  findings: (level: string) => `levels/${level}/findings.json`,
  /** An agent level's `finish` (summary and the whole of its data). */
  finish: (level: string) => `levels/${level}/finish.json`,
  /** An agent level's conversation after `turn` model calls (one file per turn: a retry rewrites its own). */
  conversation: (level: string, turn: number) => `conversations/${level}/turn-${turn}.json`,
  /** A per-account level's items: the accounts to audit, one JSON array (the Distributed Map's `ItemReader`). */
  accountItems: (level: string) => `levels/${level}/accounts.json`,
  /** Accounts resolved but not audited (suspended, closed, excluded by the budget), with the reason. */
  notAudited: (level: string) => `levels/${level}/not-audited.json`,
  /** Where the Distributed Map's `ResultWriter` writes (`<prefix>/<map run id>/manifest.json` and result files). */
  mapResults: (level: string) => `levels/${level}/map`,
  /**
   * A member account's one file of a per-account level (`AccountFile`, functions/engine/org-report.ts):
   * its calls' results, its ranked findings and their diff with the previous organization run.
   * One write per account: deployed, one S3 PUT in the account's `account_done`.
   */
  account: (level: string, account: string) => `levels/${level}/accounts/${account}.json`,
  /**
   * A member account's findings as runs before the one-file layout wrote them
   * (beside a file per call, `levels/<level>/accounts/<account>/<i>-<tool>.json`):
   * read only as a previous run's, so the first run after the change still compares.
   */
  legacyAccountFindings: (level: string, account: string) =>
    `levels/${level}/accounts/${account}/findings.json`,
  /**
   * Each recorded account's calls' durations summed, ms, by account id (`AccountDurations`,
   * functions/engine/account-order.ts): the next organization run starts its accounts longest first.
   */
  accountDurations: (level: string) => `levels/${level}/account-durations.json`,
  /** The organization report: ranked findings, per-account roll-up, failed and not-audited accounts. */
  organization: (level: string) => `levels/${level}/organization.json`,
  /** The run summary. */
  summary: () => 'summary.json',
} as const;

/** Writes a value as pretty JSON. */
export async function writeJson(workspace: Workspace, path: string, value: unknown): Promise<void> {
  await workspace.write(path, `${JSON.stringify(value, null, 1)}\n`, 'application/json');
}

/**
 * Reads and parses a JSON file of the workspace.
 *
 * @throws PlatformError (`not_found` from the workspace; `internal_error` when it is not JSON).
 */
export async function readJson<T>(workspace: Workspace, path: string): Promise<T> {
  const read = await workspace.read(path);
  try {
    return JSON.parse(read.content) as T;
  } catch (err) {
    throw new PlatformError('internal_error', `${path} in ${workspace.uri} is not JSON`, { cause: err });
  }
}

/**
 * The path of a claim-checked result inside `workspace`, when its `uri` is in it
 * (a reference to anywhere else is not followed).
 */
export function refPath(workspace: Workspace, ref: ResultRef): string | undefined {
  const root = workspace.uri.endsWith('/') ? workspace.uri : `${workspace.uri}/`;
  return ref.uri.startsWith(root) ? ref.uri.slice(root.length) : undefined;
}
