/**
 * The console's backend on a workstation (`etp console`): the local stores a
 * local run uses — the secret references (a table named by `--table`, else the
 * embedded store, kept for the console's life), the run workspaces and records
 * under the local directory — and runs started from the page in this process,
 * whose events the live page follows and whose `ask_user` questions the page answers.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { ConsoleBackend, ConsoleQuestion, LiveFeed, RunStarter } from '../../functions/console/backend';
import type { ConsoleCatalog } from '../../functions/console/catalog-view';
import { type LiveEvent, liveEvent, turnStateEvent } from '../../functions/console/live';
import { secretsManagerTagReader } from '../../functions/console/secret-tags';
import { resolveInput } from '../../functions/engine/inputs';
import { workspacesOf } from '../../functions/engine/workspaces';
import { PlatformError } from '../../functions/runtime/errors';
import { isIdentifier, RUN_ID, SNAKE_CASE_NAME, TENANT_ID } from '../../functions/runtime/ids';
import type { SecretReferenceStore } from '../../functions/runtime/secrets/reference';
import { findScenario } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import type { AnswerSource } from './local-answers';
import { createLocalDispatcher } from './local-dispatcher';
import { createLocalEngine, localRunId, type RunEvent, runScenarioLocally } from './local-run';
import { FileRunRecords } from './local-run-records';
import { localWorkspaceProvider } from './local-workspace';

/** What the local backend is built from. */
export interface LocalConsoleOptions {
  readonly localDir: string;
  readonly references: SecretReferenceStore;
  readonly scenarios: readonly Scenario[];
  readonly catalog: ConsoleCatalog;
  /** A Converse-compatible endpoint for agent levels (the scripted model); absent: Bedrock. */
  readonly modelEndpoint?: string;
  /** Called with each run that fails to run at all (its error), for the console's stderr. */
  readonly onRunError?: (runId: string, err: unknown) => void;
}

interface PendingQuestion extends ConsoleQuestion {
  readonly resolve: (answer: string | undefined) => void;
}

/** The directories under `dir` whose names the rule accepts, or none when `dir` does not exist. */
function childDirs(dir: string, rule: typeof TENANT_ID): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && isIdentifier(rule, entry.name))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** A local console backend, plus `settled()` for tests and the bench: resolves when every started run has ended. */
export function localConsoleBackend(
  options: LocalConsoleOptions,
): ConsoleBackend & { settled(): Promise<void> } {
  const runsDir = path.join(options.localDir, 'runs');
  const workspaces = localWorkspaceProvider(options.localDir);
  const logs = new Map<string, LiveEvent[]>();
  const pending = new Map<string, PendingQuestion>();
  const running = new Set<Promise<void>>();
  const keyOf = (tenant: string, scenario: string, runId: string) => `${tenant}/${scenario}/${runId}`;

  const live: LiveFeed = {
    events(tenant, scenario, runId, after) {
      return logs.get(keyOf(tenant, scenario, runId))?.slice(after);
    },
  };

  const answersFor = (tenant: string): AnswerSource => ({
    answer(question) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(question.runId);
          resolve(undefined);
        }, question.timeoutSeconds * 1000);
        timer.unref();
        pending.set(question.runId, {
          tenant,
          scenario: question.scenario,
          runId: question.runId,
          level: question.level,
          question: question.question,
          askedAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + question.timeoutSeconds * 1000).toISOString(),
          resolve: (answer) => {
            clearTimeout(timer);
            pending.delete(question.runId);
            resolve(answer);
          },
        });
      });
    },
  });

  const starter: RunStarter = {
    async start(tenant, scenarioName, input) {
      const scenario = findScenario(options.scenarios, scenarioName);
      // Checked before the run starts, as `etp scenario run` does: a bad input is a 400, not a failed run.
      const resolved = resolveInput(scenario, { ...input, tenant });
      const runId = localRunId();
      const log: LiveEvent[] = [];
      logs.set(keyOf(tenant, scenario.name, runId), log);
      const push = (event: LiveEvent) => log.push(liveEvent(event));
      const onEvent = (event: RunEvent) => {
        if (event.type === 'level_started') {
          push({ type: 'level_started', level: event.level.name, kind: event.level.kind });
        } else if (event.type === 'call_ended') {
          const { result } = event;
          push({
            type: 'call',
            level: event.level,
            callId: result.callId,
            tool: result.tool,
            ok: result.ok,
            ...(result.ok ? {} : { code: result.error.code }),
            summary: result.summary ?? '',
            durationMs: result.durationMs ?? 0,
          });
        } else if (event.type === 'turn') {
          push(turnStateEvent(event.level, event.turn));
        } else if (event.type === 'question') {
          push({ type: 'question', level: event.level, question: event.question });
        } else if (event.type === 'answer') {
          push({ type: 'answer', level: event.level, answered: event.answer !== undefined });
        } else {
          push({
            type: 'level_ended',
            level: event.level,
            outcome: event.record.outcome,
            summary: event.record.summary,
          });
        }
      };
      const run = runScenarioLocally(scenario, {
        input: resolved,
        runId,
        scenarios: options.scenarios,
        dispatch: createLocalDispatcher({
          references: options.references,
          scenarios: options.scenarios,
          requireLevel: true,
          workspaceDir: options.localDir,
        }),
        engine: createLocalEngine({
          scenarios: options.scenarios,
          workspaces: workspacesOf(workspaces),
          records: new FileRunRecords(options.localDir),
          ...(options.modelEndpoint !== undefined ? { modelEndpoint: options.modelEndpoint } : {}),
        }),
        answers: answersFor(tenant),
        onEvent,
      })
        .then((result) => {
          push({ type: 'summary', summary: result.output.summary });
        })
        .catch((err: unknown) => {
          push({ type: 'run_failed', message: err instanceof Error ? err.message : String(err) });
          options.onRunError?.(runId, err);
        });
      const tracked = run.finally(() => running.delete(tracked));
      running.add(tracked);
      return { runId };
    },
  };

  return {
    mode: 'local',
    catalog: options.catalog,
    references: options.references,
    secretTags: secretsManagerTagReader(),
    workspaces,
    runs: {
      async scenarios(tenant) {
        return childDirs(path.join(runsDir, tenant), SNAKE_CASE_NAME);
      },
      async runIds(tenant, scenario) {
        return childDirs(path.join(runsDir, tenant, scenario), RUN_ID);
      },
    },
    questions: {
      async open(tenant) {
        return [...pending.values()]
          .filter((question) => question.tenant === tenant)
          .map(({ resolve: _resolve, ...question }) => question);
      },
      async answer(tenant, runId, text) {
        const question = pending.get(runId);
        if (!question || question.tenant !== tenant) {
          throw new PlatformError('not_found', `Run ${runId} has no open question`);
        }
        question.resolve(text);
      },
    },
    starter,
    live,
    async knownTenants() {
      const tenants = new Set(['default', ...childDirs(runsDir, TENANT_ID)]);
      for (const row of await options.references.list()) tenants.add(row.tenant_id);
      return [...tenants].sort();
    },
    async settled() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
