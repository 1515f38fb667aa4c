/**
 * The aws_pulse benchmark (issue 7, "Benchmark"): one run of the scenario on a
 * generated account of about 1,000 resources (bench/scenario-account.ts), its
 * very state machine definition executed by the local interpreter, every tool
 * through the dispatcher core with AWS stubbed at the SDK, Slack on 127.0.0.1,
 * the agent level answered by the shipped scripted model
 * (bin/local/scripts/aws-pulse.yaml, 1.5 s per answer, standing for a model's
 * latency). Figures: state transitions (all, and per agent turn), Lambda
 * invocations and GB-seconds, model tokens, Cost Explorer requests, the run's
 * estimated cost by part, and the largest state.
 *
 * Standalone: `npx tsx bench/scenario-run.ts`; or `measureScenarioRun()` from a
 * report (bench/run.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scriptedAnswers } from '../bin/local/local-answers';
import { createLocalDispatcher, type LocalDispatcher } from '../bin/local/local-dispatcher';
import { createLocalEngine, localModelClient, runScenarioLocally } from '../bin/local/local-run';
import { FileRunRecords } from '../bin/local/local-run-records';
import { localWorkspaceProvider } from '../bin/local/local-workspace';
import { loadModelScript, startScriptedModel } from '../bin/local/scripted-model';
import type { CallbackDispatch } from '../functions/dispatcher/callback';
import type { Dispatch } from '../functions/dispatcher/dispatch';
import type { AgentLevelRecord } from '../functions/engine/records';
import type { RunSummary } from '../functions/engine/summary';
import { workspacesOf } from '../functions/engine/workspaces';
import { logger } from '../functions/runtime/logger';
import { InMemorySecretReferenceStore } from '../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../functions/tools/catalog';
import { findScenario, loadScenarios } from '../lib/scenarios/loader';
import { startSlackServer } from '../test/helpers/slack-server';
import { clientStubs } from './api-call-cases';
import { atMost, type Figure, formatReport, kib, type Section } from './report';
import { arrangeAccount, RESOURCE_COUNT } from './scenario-account';

/** Targets (issue 7, "Benchmark"). */
const MAX_COST_EXPLORER_REQUESTS = 3;
const MAX_USD_WITHOUT_MODEL = 0.05;
const MAX_TRANSITIONS_PER_AGENT_TURN = 8;
const MAX_STATE_KIB = 200;
/** Issue 20: one function per in-flight call on plan levels, so twice the accounts fit the concurrency budget. */
const MAX_FUNCTIONS_PER_IN_FLIGHT_CALL = 1.0;

/** Milliseconds the scripted model takes per answer: a short model turn. */
export const MODEL_LATENCY_MS = 1500;

/** What one benchmarked run measured. */
export interface ScenarioRunFigures {
  readonly resources: number;
  readonly wallMs: number;
  readonly transitions: number;
  readonly transitionsByLevel: Readonly<Record<string, number>>;
  readonly agentTurns: number;
  readonly transitionsPerAgentTurn: number;
  readonly largestState: { readonly name: string; readonly bytes: number };
  readonly summary: RunSummary;
  /** Lambda functions a plan-level tool call keeps busy while it is in flight, on average ({@link functionsHeld}). */
  readonly functionsPerInFlightCall: number;
}

/**
 * Functions a call keeps busy while it is in flight (issue 20, "concurrency
 * budget"), measured on the plan levels' calls: the milliseconds the dispatcher
 * was busy with a call (its checks, then starting the tool's function: the
 * callback path, functions/dispatcher/callback.ts) plus those the tool's function
 * was busy (its run, its post-call work and its answer to the task token; none for
 * a call that ends in the dispatcher), over the milliseconds from the Task's start
 * to the answer. 2.0 would mean two functions for the whole call (a dispatcher
 * waiting for its tool); the target is 1.0.
 */
export function functionsHeld(): {
  timed(dispatcher: LocalDispatcher): LocalDispatcher;
  toolInvoked(callId: string, ms: number): void;
  perInFlightCall(planLevels: readonly string[]): number;
} {
  const calls: { callId: string; started: number; dispatcherMs: number; handedOff: boolean }[] = [];
  const tools = new Map<string, { ms: number; endedAt: number }>();
  return {
    timed: (dispatcher) => {
      const callback: CallbackDispatch = async (envelope, taskToken, deadline) => {
        const started = performance.now();
        const outcome = await dispatcher.callback(envelope, taskToken, deadline);
        calls.push({
          callId: outcome.callId,
          started,
          dispatcherMs: performance.now() - started,
          handedOff: outcome.answeredBy === 'tool',
        });
        return outcome;
      };
      const dispatch: Dispatch = (envelope, deadline, scope) => dispatcher(envelope, deadline, scope);
      return Object.assign(dispatch, { callback, tokens: dispatcher.tokens });
    },
    toolInvoked: (callId, ms) => tools.set(callId, { ms, endedAt: performance.now() }),
    perInFlightCall(planLevels) {
      let inFlight = 0;
      let busy = 0;
      for (const call of calls) {
        if (!planLevels.includes(call.callId.split('/')[0] ?? '')) continue;
        const tool = call.handedOff ? tools.get(call.callId) : undefined;
        inFlight += tool ? tool.endedAt - call.started : call.dispatcherMs;
        busy += call.dispatcherMs + (tool?.ms ?? 0);
      }
      return inFlight > 0 ? busy / inFlight : 0;
    },
  };
}

/**
 * Runs aws_pulse once (`runs` times, each compared with the previous) and measures the last run.
 *
 * @param runs - 2 measures a run that has a previous one to compare with. @default 1
 */
export async function measureScenarioRun(runs = 1): Promise<ScenarioRunFigures> {
  logger.setLogLevel('SILENT');
  const { stubs, stubOf } = clientStubs();
  arrangeAccount(stubOf);
  const slack = await startSlackServer();
  const localDir = mkdtempSync(path.join(tmpdir(), 'etp-bench-pulse-'));
  const saved = { ...process.env };
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    SLACK_API_URL: slack.apiUrl,
    BENCH_AWS: JSON.stringify({
      access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'us-east-1',
    }),
    BENCH_SLACK: JSON.stringify({ bot_token: slack.botToken }),
  });
  try {
    const scenarios = loadScenarios(toolCatalog);
    const pulse = findScenario(scenarios, 'aws_pulse');
    const references = new InMemorySecretReferenceStore([
      { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'BENCH_AWS' },
      { tenant_id: 'default', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'BENCH_SLACK' },
    ]);
    const workspaces = workspacesOf(localWorkspaceProvider(localDir));
    const records = new FileRunRecords(localDir);
    let measured: ScenarioRunFigures | undefined;
    for (let run = 1; run <= runs; run++) {
      const model = await startScriptedModel(
        loadModelScript(path.join(__dirname, '../bin/local/scripts/aws-pulse.yaml')),
        { latencyMs: MODEL_LATENCY_MS },
      );
      const started = performance.now();
      const heldFunctions = functionsHeld();
      try {
        const result = await runScenarioLocally(pulse, {
          input: { slack_channel: 'C0AWSPULSE' },
          runId: `bench-${run}`,
          scenarios,
          dispatch: heldFunctions.timed(
            createLocalDispatcher({
              references,
              scenarios,
              requireLevel: true,
              workspaceDir: localDir,
              onToolInvoked: heldFunctions.toolInvoked,
            }),
          ),
          engine: createLocalEngine({ scenarios, workspaces, records, model: localModelClient(model.url) }),
          answers: scriptedAnswers([]),
        });
        const analyze = result.output.levels.analyze as AgentLevelRecord;
        measured = {
          resources: RESOURCE_COUNT,
          wallMs: performance.now() - started,
          transitions: result.transitions,
          transitionsByLevel: result.transitionsByLevel,
          agentTurns: analyze.turns,
          transitionsPerAgentTurn: (result.transitionsByLevel.analyze ?? 0) / Math.max(1, analyze.turns),
          largestState: result.largestState,
          summary: result.output.summary,
          functionsPerInFlightCall: heldFunctions.perInFlightCall(
            pulse.levels.filter((level) => level.kind === 'plan').map((level) => level.name),
          ),
        };
      } finally {
        await model.stop();
      }
    }
    if (!measured) throw new Error('no run');
    return measured;
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    for (const stub of stubs.values()) stub.restore();
    await slack.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}

/** The figures as a report section, with their targets. */
export function scenarioRunSection(figures: ScenarioRunFigures): Section {
  const { summary } = figures;
  const costFigures: Figure[] = summary.cost.parts.map((part) => ({
    name: `USD: ${part.part}`,
    value: `$${part.usd.toFixed(6)} (${part.quantity} ${part.unit.split(' (')[0]})`,
  }));
  return {
    title: `aws_pulse run, generated account of ${figures.resources} resources, scripted model (${MODEL_LATENCY_MS} ms per answer)`,
    figures: [
      { name: 'state transitions', value: `${figures.transitions}` },
      atMost(
        'state transitions per agent turn',
        figures.transitionsPerAgentTurn,
        MAX_TRANSITIONS_PER_AGENT_TURN,
        '',
        1,
      ),
      { name: 'Lambda invocations', value: `${summary.counts.lambdaInvocations}` },
      { name: 'Lambda GB-seconds', value: `${summary.counts.lambdaGbSeconds}` },
      {
        name: 'model tokens in / out',
        value: `${summary.counts.modelInputTokens} / ${summary.counts.modelOutputTokens}`,
      },
      atMost(
        'Cost Explorer requests',
        summary.counts.costExplorerRequests,
        MAX_COST_EXPLORER_REQUESTS,
        '',
        0,
      ),
      ...costFigures,
      atMost('USD without model tokens', summary.cost.excludingModelUsd, MAX_USD_WITHOUT_MODEL, 'USD', 4),
      { name: 'USD in all', value: `$${summary.cost.totalUsd.toFixed(4)}` },
      atMost('largest state', figures.largestState.bytes / 1024, MAX_STATE_KIB, 'KiB', 1),
      atMost(
        'functions per in-flight tool call (plan levels)',
        figures.functionsPerInFlightCall,
        MAX_FUNCTIONS_PER_IN_FLIGHT_CALL,
        '',
        2,
      ),
    ],
    notes: [
      `transitions by level: ${Object.entries(figures.transitionsByLevel)
        .map(([level, n]) => `${level} ${n}`)
        .join(
          ', ',
        )}; agent turns ${figures.agentTurns}; the summary's own count: ${summary.counts.stateTransitions}`,
      `largest state: ${kib(figures.largestState.bytes)} at ${figures.largestState.name}; wall time ${(figures.wallMs / 1000).toFixed(1)} s`,
      `levels: ${summary.levels.map((level) => `${level.name} ${level.outcome}`).join(', ')}`,
      ...summary.cost.notes,
    ],
  };
}

if (require.main === module) {
  void (async () => {
    const runs = Number(process.argv[2] ?? 1);
    const figures = await measureScenarioRun(Number.isInteger(runs) && runs > 0 ? runs : 1);
    process.stdout.write(
      `${formatReport(['aws_pulse scenario run (bench/scenario-run.ts)'], [scenarioRunSection(figures)])}\n`,
    );
  })();
}
