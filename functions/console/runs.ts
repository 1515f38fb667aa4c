/**
 * Runs as the console's runs page shows them, read from their workspaces only
 * (`runs/<tenant>/<scenario>/<runId>/`, docs/workspace.md): the list per tenant
 * and scenario, newest first, and one run's levels, cost, findings (new,
 * unchanged, resolved), report and files. Every string that leaves is redacted.
 */
import type { FindingsFile } from '../engine/findings';
import type { RunSummary } from '../engine/summary';
import { ENGINE_PATHS } from '../engine/workspaces';
import { InvalidArgsError, PlatformError } from '../runtime/errors';
import { isIdentifier, RUN_ID, SNAKE_CASE_NAME } from '../runtime/ids';
import { redact } from '../runtime/redact';
import type { Workspace, WorkspaceFile, WorkspaceProvider } from '../runtime/workspace';
import type { RunIndex, RunListing } from './backend';
import { summaryOf } from './live';

/** Most runs listed per request: the newest, or the newest before the `before` cursor. */
export const MAX_LISTED_RUNS = 50;

/** One page of a tenant's runs, and the cursor of the next (older) page when there is one. */
export interface RunPage {
  readonly runs: RunListing[];
  /** `<scenario>/<runId>` of this page's last run, in list order: pass it as `before` for the next page. */
  readonly next?: string;
}
/** Most workspace files a run's page lists. */
export const MAX_LISTED_FILES = 500;

/** One finding as the run page shows it. */
export interface ConsoleFinding {
  readonly id: string;
  readonly status: 'new' | 'unchanged' | 'resolved';
  readonly severity: string;
  readonly title: string;
  readonly resource: string;
  readonly region: string;
  readonly tool: string;
  readonly monthlyCostUsd?: number;
}

/** A run's page. */
export interface RunDetail {
  readonly tenant: string;
  readonly scenario: string;
  readonly runId: string;
  readonly summary?: RunSummary;
  /** Findings of the levels that track them, by level. */
  readonly findings: Readonly<Record<string, readonly ConsoleFinding[]>>;
  /** Each agent level's report (`finish` summary), by level. */
  readonly reports: Readonly<Record<string, string>>;
  /** The first {@link MAX_LISTED_FILES} workspace files, in path order. */
  readonly files: readonly WorkspaceFile[];
  /** Present (true) when the workspace holds more files than {@link files} lists. */
  readonly filesTruncated?: true;
}

async function readJsonFile<T>(workspace: Workspace, path: string): Promise<T | undefined> {
  try {
    return JSON.parse((await workspace.read(path, { length: 4_194_304 })).content) as T;
  } catch {
    return undefined;
  }
}

/** The run ids' time order: local and deployed ids carry a UTC timestamp after their prefix. */
function stampOf(runId: string): string {
  return /\d{8}T\d{6}Z/.exec(runId)?.[0] ?? '';
}

interface RunKey {
  readonly scenario: string;
  readonly runId: string;
}

/** The list order of runs: the timestamp in the run id, newest first, then run id, then scenario. */
function listOrder(a: RunKey, b: RunKey): number {
  return (
    stampOf(b.runId).localeCompare(stampOf(a.runId)) ||
    b.runId.localeCompare(a.runId) ||
    b.scenario.localeCompare(a.scenario)
  );
}

/**
 * The run a `before` cursor names (`<scenario>/<runId>`, a page's `next`).
 *
 * @throws InvalidArgsError for anything else, saying what is accepted.
 */
export function runCursor(before: string): RunKey {
  const [scenario = '', runId = '', ...rest] = before.split('/');
  if (rest.length > 0 || !isIdentifier(SNAKE_CASE_NAME, scenario) || !isIdentifier(RUN_ID, runId)) {
    throw new InvalidArgsError(
      `before: expected <scenario>/<runId>, the next of a runs page (such as aws_pulse/run-20261101T000000Z-a1b2c3), got ${JSON.stringify(before.slice(0, 200))}`,
    );
  }
  return { scenario, runId };
}

/**
 * A tenant's runs of one scenario (or of every scenario), newest first, {@link MAX_LISTED_RUNS}
 * at a time: the runs after the `before` cursor in list order (the timestamp in the run id,
 * then run id; a page is then shown by `startedAt` of the summary), and the cursor of the next page.
 */
export async function listRuns(
  index: RunIndex,
  workspaces: WorkspaceProvider,
  tenant: string,
  scenario?: string,
  before?: string,
): Promise<RunPage> {
  const cursor = before === undefined ? undefined : runCursor(before);
  const scenarios = scenario ? [scenario] : await index.scenarios(tenant);
  const keys = (
    await Promise.all(
      scenarios.map(async (name) =>
        (await index.runIds(tenant, name)).map((runId): RunKey => ({ scenario: name, runId })),
      ),
    )
  )
    .flat()
    .filter((key) => cursor === undefined || listOrder(cursor, key) < 0);
  keys.sort(listOrder);
  const page = keys.slice(0, MAX_LISTED_RUNS);
  const last = page.at(-1);
  const next = keys.length > page.length && last ? `${last.scenario}/${last.runId}` : undefined;
  const listed = await Promise.all(
    page.map(async ({ scenario: name, runId }): Promise<RunListing> => {
      const summary = summaryOf(
        await readJsonFile<unknown>(workspaces({ tenant, scenario: name, runId }), ENGINE_PATHS.summary()),
      );
      return {
        tenant,
        scenario: name,
        runId,
        outcome: summary?.outcome ?? 'running',
        ...(summary?.startedAt ? { startedAt: summary.startedAt } : {}),
        ...(summary?.endedAt ? { endedAt: summary.endedAt } : {}),
        ...(summary ? { totalUsd: summary.cost.totalUsd } : {}),
      };
    }),
  );
  const time = (run: RunListing) => run.startedAt ?? run.endedAt ?? '';
  const runs = listed.sort((a, b) => time(b).localeCompare(time(a)) || b.runId.localeCompare(a.runId));
  return redact(next === undefined ? { runs } : { runs, next });
}

/** The findings of a findings file, each marked new, unchanged or resolved. */
export function findingsOf(file: FindingsFile): ConsoleFinding[] {
  const fresh = new Set(file.diff.new);
  const view = (
    finding: FindingsFile['findings'][number],
    status: ConsoleFinding['status'],
  ): ConsoleFinding => ({
    id: finding.id,
    status,
    severity: finding.severity,
    title: finding.title,
    resource: finding.resource,
    region: finding.region,
    tool: finding.tool,
    ...(finding.monthlyCost ? { monthlyCostUsd: finding.monthlyCost.usd } : {}),
  });
  return [
    ...file.findings.map((finding) => view(finding, fresh.has(finding.id) ? 'new' : 'unchanged')),
    ...file.diff.resolved.map((finding) => view(finding, 'resolved')),
  ];
}

/**
 * One run's page, from its workspace.
 *
 * @throws PlatformError `not_found` when the run has no workspace file and no summary (no such run, or one that has written nothing yet).
 */
export async function runDetail(
  workspaces: WorkspaceProvider,
  tenant: string,
  scenario: string,
  runId: string,
  levels: readonly string[] = [],
): Promise<RunDetail> {
  const workspace = workspaces({ tenant, scenario, runId });
  const listed = await workspace.list('', { limit: MAX_LISTED_FILES + 1 });
  const files = listed.slice(0, MAX_LISTED_FILES);
  const summary = summaryOf(await readJsonFile<unknown>(workspace, ENGINE_PATHS.summary()));
  // A run that wrote nothing is no run to show (the live view reads its events instead).
  if (files.length === 0 && !summary) {
    throw new PlatformError(
      'not_found',
      `Tenant ${tenant} has no ${scenario} run ${runId} with workspace files`,
    );
  }
  // Each level's findings and report are read at their own paths, not looked for in the listing:
  // an organization level's per-account files come first in path order and can fill it.
  const levelNames = [
    ...new Set([
      ...levels,
      ...(summary?.levels.map((level) => level.name) ?? []),
      ...files
        .map((file) => /^levels\/([a-z][a-z0-9_]*)\//.exec(file.path)?.[1])
        .filter((name) => name !== undefined),
    ]),
  ];
  const findings: Record<string, ConsoleFinding[]> = {};
  const reports: Record<string, string> = {};
  for (const level of levelNames) {
    const found = await readJsonFile<FindingsFile>(workspace, ENGINE_PATHS.findings(level));
    if (found?.findings && found.diff) findings[level] = findingsOf(found);
    const finish = await readJsonFile<{ summary?: unknown }>(workspace, ENGINE_PATHS.finish(level));
    if (typeof finish?.summary === 'string') reports[level] = finish.summary;
  }
  return redact({
    tenant,
    scenario,
    runId,
    ...(summary ? { summary } : {}),
    findings,
    reports,
    files,
    ...(listed.length > files.length ? { filesTruncated: true as const } : {}),
  });
}
