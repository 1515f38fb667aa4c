/**
 * An organization run at scale (issue 20, "Benchmark"): 1,000 simulated member
 * accounts × 17 Regions through the per-account level's definition as
 * synthesized (aws_pulse's collect level with `for_each_account`, its Cost
 * Explorer calls left to the one organization-wide request set), run by the local
 * interpreter with its Distributed Map routed (bin/local/local-distributed-map.ts),
 * the real engine (`org_targets` resolving the accounts with `resolveAccounts`
 * over test/helpers/organization-world.ts, `account_done`, `org_done`) on local
 * workspaces, and every dispatched call answered after the EC2 scale bench's
 * latency model: account i holds an uneven spread of 100-10,000 instances over the
 * 17 Regions, and a call takes its slowest Region's pages × 50 ms (Regions in
 * parallel). Cost Explorer once for the organization: `costByLinkedAccount`
 * against the world's Cost Explorer.
 *
 * The ideal is what the concurrency budget allows: `MaxConcurrency` accounts at
 * once, each taking its waves of calls (⌈calls / concurrency⌉ × its call time),
 * perfectly packed: max(Σ account times / accounts at once, the longest account),
 * plus the engine's states outside the Map (listing the accounts, the report) as measured.
 * Locally the interpreter and the engine share this process's CPU: its CPU time is
 * printed beside, and the CPU floor (process CPU ÷ cores ÷ ideal): no schedule's wall
 * time can be under it, so when it passes 1.2 the host's CPU, not the budget, binds.
 * A second pass multiplies every modeled latency ({@link orgBenchLatencyScale}, ×10 by
 * default) while the CPU stays what it is: its wall ÷ ideal checks the schedule itself
 * (the Map's packing, the route's concurrency) once the CPU no longer binds.
 * docs/organizations-runs.md, "The bench's wall time", says what each figure means.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { mockClient } from 'aws-sdk-client-mock';
import { callbackTaskHandler, LocalTaskTokens } from '../bin/local/local-callbacks';
import { directoryObjectStore } from '../bin/local/local-distributed-map';
import { executeLocally } from '../bin/local/local-execution';
import { FileRunRecords } from '../bin/local/local-run-records';
import { localWorkspaceProvider } from '../bin/local/local-workspace';
import type { CallbackDispatch } from '../functions/dispatcher/callback';
import type { PlanLevel, ScenarioDefinition } from '../functions/engine/definition';
import { createEngine } from '../functions/engine/engine';
import type { ModelClient } from '../functions/engine/model-client';
import { type AccountItem, accountsInWords, type OrgReport } from '../functions/engine/org-report';
import { LAMBDA_GB_SECOND_USD, LAMBDA_REQUEST_USD, STATE_TRANSITION_USD } from '../functions/engine/pricing';
import { ENGINE_PATHS, readJson, workspacesOf } from '../functions/engine/workspaces';
import { DEFAULT_ORG_SECRET } from '../functions/runtime/aws/organization';
import { resolveAccounts } from '../functions/runtime/aws/organization-accounts';
import { logger } from '../functions/runtime/logger';
import { compareText } from '../functions/runtime/text';
import { costByLinkedAccount } from '../functions/tools/aws/shared/organization-costs';
import { toolCatalog } from '../functions/tools/catalog';
import {
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  scenarioToAsl,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from '../lib/scenarios/asl';
import { WORKSPACE_BUCKET_PLACEHOLDER } from '../lib/scenarios/asl-states/tasks';
import { worstCaseState } from '../lib/scenarios/budget';
import {
  accountConcurrency,
  DEFAULT_LAMBDA_CONCURRENCY,
  functionsPerInFlightCall,
} from '../lib/scenarios/concurrency-budget';
import { engineConfig, functionMemory } from '../lib/scenarios/engine-config';
import { findScenario, loadScenarios } from '../lib/scenarios/loader';
import { DEFAULT_ENABLED_REGIONS, pagesIn, unevenAccount } from '../test/helpers/ec2-pages';
import {
  arrangeOrganizationCosts,
  arrangeOrganizationWorld,
  organizationWorld,
} from '../test/helpers/organization-world';
import { BENCH_LATENCY_MS } from './aws-fixtures';
import { atMost, type Figure, formatReport, kib, type Section } from './report';
import { attributeWall, packageOfUrl, packageWithDependencies } from './wall-attribution';

const ACCOUNTS = 1000;
/** Scripts of this repository (functions/, bin/, lib/, test/helpers/; bench/ is counted apart): the platform's own code. */
const REPOSITORY_URL = pathToFileURL(path.resolve(__dirname, '..')).href;
/** This folder: the bench's own counters (state sizes, functions held) are not the platform's time. */
const BENCH_URL = `${pathToFileURL(__dirname).href}/`;
/** The third-party local interpreter (bin/local/local-execution.ts). */
const LOCAL_INTERPRETER = 'aws-local-stepfunctions';
const BUCKET = 'etp-bench-runs';
/** Memory of the dispatcher and of a tool function, MB, for the Lambda estimate (the CDK's defaults). */
const FUNCTION_MB = 256;
/** The engine's measured time is counted; each dispatcher adds its overhead to the call's duration (bench/dispatcher-overhead.ts). */
const DISPATCHER_OVERHEAD_MS = 5;
/** The variable naming the schedule check's latency factor. */
export const LATENCY_SCALE_ENV = 'ORG_BENCH_LATENCY_SCALE';
/** The schedule check's factor when {@link LATENCY_SCALE_ENV} is unset. */
const DEFAULT_SCHEDULE_LATENCY_SCALE = 10;
/** The wall ÷ ideal target of issue 20, for the issue's figure and the schedule check alike. */
const WALL_TARGET = 1.2;

/**
 * The factor the schedule check multiplies every modeled latency by (the calls'
 * pages × 50 ms, the dispatcher's 5 ms): `ORG_BENCH_LATENCY_SCALE`, else 10.
 *
 * @throws Error when the variable is not a number of at least 1.
 */
export function orgBenchLatencyScale(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[LATENCY_SCALE_ENV];
  if (text === undefined || text === '') return DEFAULT_SCHEDULE_LATENCY_SCALE;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale < 1) {
    throw new Error(`${LATENCY_SCALE_ENV} is ${JSON.stringify(text)}: give a number of at least 1 (e.g. 10)`);
  }
  return scale;
}

/** aws_pulse's collect level per account, without its Cost Explorer tools (read once for the organization). */
function orgScenario(): ScenarioDefinition {
  const pulse = findScenario(loadScenarios(toolCatalog), 'aws_pulse');
  const collect = pulse.levels.find((level) => level.name === 'collect') as PlanLevel;
  const readsCe = (tool: string) =>
    toolCatalog
      .get(tool)
      .iam.some((statement) => statement.actions.some((action) => action.startsWith('ce:')));
  const calls = collect.calls.filter((call) => !readsCe(call.tool));
  return {
    name: 'aws_pulse_org_bench',
    description: 'aws_pulse collect per member account',
    inputs: { ...pulse.inputs, accounts: { type: 'accounts', description: 'Accounts', default: 'all' } },
    levels: [
      {
        ...collect,
        calls,
        intra_tools: calls.map((call) => call.tool),
        for_each_account: {
          accounts_per_child: 1,
          tolerated_failure_percentage: 10,
          org_secret: DEFAULT_ORG_SECRET,
        },
      },
    ],
  };
}

/** The wall of `times` run in order, `atOnce` at a time, each started as soon as one ends. */
function inOrderMakespan(times: readonly number[], atOnce: number): number {
  const ends = new Array<number>(Math.min(atOnce, times.length)).fill(0);
  for (const time of times) {
    const first = ends.indexOf(Math.min(...ends));
    ends[first] = (ends[first] ?? 0) + time;
  }
  return Math.max(0, ...ends);
}

/** A call's time in an account: its slowest Region's DescribeInstances pages × the latency (× `scale`), Regions in parallel. */
function callMsOf(accountIndex: number, scale: number): number {
  const instances = 100 + ((accountIndex * 7919) % 9901);
  const account = unevenAccount(instances, DEFAULT_ENABLED_REGIONS);
  return (
    Math.max(...DEFAULT_ENABLED_REGIONS.map((region) => pagesIn(account, region))) * BENCH_LATENCY_MS * scale
  );
}

/** The run measured, and the unmeasured one before it whose durations order its accounts. */
const PREVIOUS_RUN = 'org-bench-0';
const MEASURED_RUN = 'org-bench-1';

/** Static keys of the bench's own clients (an AWS docs example key), so no credential chain is searched. */
const BENCH_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // fake test example
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OrganizationFigures {
  /** The factor every modeled latency was multiplied by: 1 for issue 20's figure. */
  readonly latencyScale: number;
  /** CPUs the process may use (`os.availableParallelism()`). */
  readonly cores: number;
  readonly accounts: number;
  readonly regions: number;
  readonly budget: number;
  readonly maxConcurrency: number;
  /** Functions per in-flight call as measured: the calls' function-ms over their ms in flight. */
  readonly functionsPerCall: number;
  /** The figure the concurrency budget divides by (lib/scenarios/concurrency-budget.ts). */
  readonly budgetFunctionsPerCall: number;
  readonly wallMs: number;
  /** The Map's ideal plus the engine's states before and after it (measured). */
  readonly idealMs: number;
  /**
   * The Map's accounts started in item order (the measured run's: longest first by the previous
   * run's durations), `MaxConcurrency` at once, each as soon as one
   * ends (the service's schedule), with the latency model's times and no CPU: its wall,
   * plus the engine's states outside the Map. What a schedule with no CPU cost would take.
   */
  readonly inOrderMs: number;
  /** {@link inOrderMs} with the accounts in account-id order: a tenant's first organization run. */
  readonly idOrderMs: number;
  /** Measured ms of the engine's states outside the Map (`org_targets`, `org_done`, start, summary). */
  readonly serialMs: number;
  /** CPU time (user + system) of the process while the execution ran. */
  readonly cpuMs: number;
  /**
   * Wall ms the local interpreter (aws-local-stepfunctions and its own dependencies) held the
   * JavaScript thread ({@link attributeWall}): the third-party CPU per state transition.
   */
  readonly interpreterMs: number;
  /** Wall ms by part: `interpreter`, `platform` (our code: engine, local routing, this bench), `other packages`, V8's own. */
  readonly wallParts: ReadonlyMap<string, number>;
  readonly peakFunctions: number;
  readonly largestStateBytes: number;
  readonly worstCaseBytes: number;
  readonly transitionsPerAccount: number;
  readonly usdPerAccount: number;
  readonly costExplorerRequests: number;
  readonly report: OrgReport;
}

/** One organization run, every modeled latency × `latencyScale` (1: the issue's latency model). */
export async function measureOrganization(latencyScale = 1): Promise<OrganizationFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'etp-bench-org-'));
  const scenario = orgScenario();
  const level = scenario.levels[0] as PlanLevel;
  const budget = accountConcurrency(level, DEFAULT_LAMBDA_CONCURRENCY, 1);
  const world = organizationWorld({ accounts: ACCOUNTS });
  const organizations = mockClient(OrganizationsClient);
  const costExplorer = mockClient(CostExplorerClient);
  const stubOf = (client: unknown) =>
    (client === OrganizationsClient ? organizations : costExplorer) as never;
  arrangeOrganizationWorld(stubOf, world);
  const ceRequests = arrangeOrganizationCosts(stubOf, world);
  const indexOf = new Map(world.accounts.map((account, index) => [account.accountId, index]));
  try {
    const engine = createEngine({
      config: engineConfig([scenario], functionMemory(toolCatalog)),
      catalog: toolCatalog,
      workspaces: workspacesOf(localWorkspaceProvider(dir)),
      records: new FileRunRecords(dir),
      model: {} as ModelClient,
      logger,
      // The world's fakes resolve the signing credentials, as the SDK would: the organization session's stand-in.
      accounts: async (_run, selection) =>
        resolveAccounts(
          new OrganizationsClient({ region: 'us-east-1', credentials: BENCH_CREDENTIALS }),
          selection,
        ),
    });
    const definition = JSON.parse(
      JSON.stringify(scenarioToAsl(scenario))
        .replaceAll(DISPATCHER_ARN_PLACEHOLDER, 'dispatcher')
        .replaceAll(ENGINE_ARN_PLACEHOLDER, 'engine')
        .replaceAll(WORKSPACE_BUCKET_PLACEHOLDER, BUCKET),
    );
    let busy = 0;
    let peak = 0;
    let functionMs = 0;
    let invocations = 0;
    const hold = async <T>(functions: number, work: () => Promise<T>): Promise<T> => {
      busy += functions;
      peak = Math.max(peak, busy);
      const started = performance.now();
      try {
        return await work();
      } finally {
        busy -= functions;
        functionMs += (performance.now() - started) * functions;
        invocations += functions;
      }
    };
    // A plan call as deployed (functions/dispatcher/callback.ts): the dispatcher checks and starts the
    // tool's function (Event), then returns; the tool's function runs and answers the Task's token.
    // Both are held while they run; the call's time in flight is from its Task's start to the answer.
    const tokens = new LocalTaskTokens();
    let callFunctionMs = 0;
    let callInFlightMs = 0;
    const held = async <T>(work: () => Promise<T>): Promise<T> => {
      const before = performance.now();
      try {
        return await hold(1, work);
      } finally {
        callFunctionMs += performance.now() - before;
      }
    };
    const callback: CallbackDispatch = async (envelope, token) => {
      const call = envelope as { tool: string; callId: string; account: string };
      const ms = callMsOf(indexOf.get(call.account) ?? 0, latencyScale);
      await held(() => sleep(DISPATCHER_OVERHEAD_MS * latencyScale));
      void held(async () => {
        await sleep(ms);
        const result = {
          ok: true,
          tool: call.tool,
          callId: call.callId,
          value: {},
          truncated: false,
          durationMs: ms,
          summary: 'ok',
        };
        await tokens.succeed(token, result);
      });
      return { tool: call.tool, callId: call.callId, answeredBy: 'tool' };
    };
    const answer = callbackTaskHandler(tokens, callback, 900_000);
    const planCall = async (input: unknown) => {
      const before = performance.now();
      try {
        return await answer(input);
      } finally {
        callInFlightMs += performance.now() - before;
      }
    };
    let transitions = 0;
    let largest = 0;
    // The engine's own states before and after the Map (listing the accounts, the report): outside the budget's reach.
    let serialMs = 0;
    /** One organization run of the definition, every state counted. */
    const run = (runId: string) => {
      return executeLocally(
        definition,
        { tenant: 'default', regions: 'all' },
        (state) =>
          state.resource === WAIT_FOR_TASK_TOKEN_RESOURCE
            ? planCall
            : async (event) => {
                const action = (event as { action: string }).action;
                const before = performance.now();
                try {
                  return await hold(1, () => engine(event));
                } finally {
                  if (action !== 'account_done') serialMs += performance.now() - before;
                }
              },
        {
          runId: runId,
          objects: directoryObjectStore(dir, BUCKET),
          onStateEntered: (event) => {
            transitions++;
            largest = Math.max(largest, Buffer.byteLength(JSON.stringify(event.data ?? null)));
          },
          onStateExited: (event) => {
            largest = Math.max(largest, Buffer.byteLength(JSON.stringify(event.data ?? null)));
          },
        },
      );
    };
    // A previous organization run first, unmeasured: the measured one starts its accounts longest
    // first by the previous run's durations (functions/engine/account-order.ts), as every run after
    // a tenant's first does.
    await run(PREVIOUS_RUN);
    [transitions, largest, serialMs, peak, functionMs, invocations, callFunctionMs, callInFlightMs] = [
      0, 0, 0, 0, 0, 0, 0, 0,
    ];
    ceRequests.length = 0;
    const interpreter = new Set(packageWithDependencies(LOCAL_INTERPRETER));
    // Wall and CPU of the execution alone: the profiler's start, stop and profile transfer are the bench's.
    let wallMs = 0;
    let cpu: NodeJS.CpuUsage = { user: 0, system: 0 };
    const { ms: wallParts } = await attributeWall(
      async () => {
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        try {
          return await run(MEASURED_RUN);
        } finally {
          wallMs = performance.now() - started;
          cpu = process.cpuUsage(cpuBefore);
        }
      },
      (url) => {
        const pkg = packageOfUrl(url);
        if (pkg !== undefined) return interpreter.has(pkg) ? 'interpreter' : 'other packages';
        // Node.js's own modules (node:…) count for whoever called them.
        if (url.startsWith(BENCH_URL)) return 'bench';
        return url.startsWith(REPOSITORY_URL) ? 'platform' : undefined;
      },
    );
    await costByLinkedAccount(
      new CostExplorerClient({ region: 'us-east-1', credentials: BENCH_CREDENTIALS }),
    );
    const measured = workspacesOf(localWorkspaceProvider(dir))({
      tenant: 'default',
      scenario: scenario.name,
      runId: MEASURED_RUN,
    });
    const report = await readJson<OrgReport>(measured, ENGINE_PATHS.organization(level.name));
    const waves = Math.ceil(level.calls.length / level.concurrency);
    const timeOf = (accountId: string) =>
      waves * (callMsOf(indexOf.get(accountId) ?? 0, latencyScale) + DISPATCHER_OVERHEAD_MS * latencyScale);
    // In the Map's item order, as org_targets wrote it for the measured run (longest first).
    const items = await readJson<AccountItem[]>(measured, ENGINE_PATHS.accountItems(level.name));
    const times = items.map((item) => timeOf(item.accountId));
    const byId = items.map((item) => item.accountId).sort(compareText);
    const atOnce = budget.maxConcurrency;
    const mapIdealMs = Math.max(times.reduce((sum, t) => sum + t, 0) / atOnce, Math.max(...times));
    const idealMs = serialMs + mapIdealMs;
    const inOrderMs = serialMs + inOrderMakespan(times, atOnce);
    const idOrderMs = serialMs + inOrderMakespan(byId.map(timeOf), atOnce);
    const audited = report.rollUp.length;
    const usd =
      transitions * STATE_TRANSITION_USD +
      (functionMs / 1000) * (FUNCTION_MB / 1024) * LAMBDA_GB_SECOND_USD +
      invocations * LAMBDA_REQUEST_USD;
    return {
      latencyScale,
      cores: os.availableParallelism(),
      accounts: audited,
      regions: DEFAULT_ENABLED_REGIONS.length,
      budget: DEFAULT_LAMBDA_CONCURRENCY,
      maxConcurrency: budget.maxConcurrency,
      functionsPerCall: callFunctionMs / Math.max(1, callInFlightMs),
      budgetFunctionsPerCall: functionsPerInFlightCall(level),
      wallMs,
      idealMs,
      inOrderMs,
      idOrderMs,
      serialMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      interpreterMs: wallParts.get('interpreter') ?? 0,
      wallParts,
      peakFunctions: peak,
      largestStateBytes: largest,
      worstCaseBytes: worstCaseState(scenario, 8 * 1024).bytes,
      transitionsPerAccount: transitions / audited,
      usdPerAccount: usd / audited,
      costExplorerRequests: ceRequests.length,
      report,
    };
  } finally {
    organizations.restore();
    costExplorer.restore();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The least wall ÷ ideal any schedule could reach on this host: the process's CPU
 * time spread over its cores, over the ideal. Above {@link WALL_TARGET} the host's
 * CPU, not the budget's schedule, sets the wall time.
 */
export function cpuFloor(figures: Pick<OrganizationFigures, 'cpuMs' | 'cores' | 'idealMs'>): number {
  return figures.cpuMs / figures.cores / figures.idealMs;
}

/** Both passes of the bench: issue 20's (latencies as modeled), then the schedule check's (every latency × {@link orgBenchLatencyScale}). */
export interface OrganizationPasses {
  readonly issue: OrganizationFigures;
  readonly schedule: OrganizationFigures;
}

/** Runs issue 20's pass, then the schedule check's, one after the other in this process. */
export async function measureOrganizationPasses(): Promise<OrganizationPasses> {
  const scale = orgBenchLatencyScale();
  const issue = await measureOrganization();
  return { issue, schedule: await measureOrganization(scale) };
}

/** The schedule check's figure, named for what it shows: the schedule, or, when the CPU binds even there, not it. */
function scheduleFigure(schedule: OrganizationFigures): Figure {
  const times = `every latency ×${schedule.latencyScale}`;
  const name =
    cpuFloor(schedule) <= WALL_TARGET
      ? `schedule check: wall time / ideal, ${times}`
      : `wall time / ideal, ${times} (host CPU binds here too: not a schedule check)`;
  return atMost(name, schedule.wallMs / schedule.idealMs, WALL_TARGET);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The figures against issue 20's targets, and the schedule check's beside them. */
export function organizationSection({ issue: figures, schedule }: OrganizationPasses): Section {
  return {
    title: `Organization run: ${figures.accounts} accounts × ${figures.regions} Regions (bench/organization.ts)`,
    figures: [
      atMost('wall time / ideal of the concurrency budget', figures.wallMs / figures.idealMs, WALL_TARGET),
      { name: 'CPU floor: process CPU ÷ cores ÷ ideal', value: cpuFloor(figures).toFixed(2) },
      {
        name: 'wall time less the local interpreter’s / ideal',
        value: ((figures.wallMs - figures.interpreterMs) / figures.idealMs).toFixed(2),
      },
      {
        name: 'local interpreter per state transition (wall, measured)',
        value: `${(figures.interpreterMs / (figures.transitionsPerAccount * figures.accounts)).toFixed(3)} ms`,
      },
      {
        name: 'in-order schedule / ideal (latency model, no CPU)',
        value: (figures.inOrderMs / figures.idealMs).toFixed(2),
      },
      {
        name: 'same, accounts in account-id order (a first run)',
        value: (figures.idOrderMs / figures.idealMs).toFixed(2),
      },
      scheduleFigure(schedule),
      {
        name: `in-order schedule / ideal, every latency ×${schedule.latencyScale} (no CPU)`,
        value: (schedule.inOrderMs / schedule.idealMs).toFixed(2),
      },
      {
        name: `CPU floor, every latency ×${schedule.latencyScale}`,
        value: cpuFloor(schedule).toFixed(2),
      },
      atMost('peak concurrent functions', figures.peakFunctions, figures.budget, '', 0),
      atMost('functions per in-flight tool call (measured)', figures.functionsPerCall, 1, '', 2),
      atMost('largest state (measured)', figures.largestStateBytes / 1024, 200, 'KiB', 1),
      atMost('largest state (worst case, synth)', figures.worstCaseBytes / 1024, 200, 'KiB', 1),
      { name: 'state transitions per account', value: figures.transitionsPerAccount.toFixed(1) },
      atMost('USD per account, model tokens excluded', figures.usdPerAccount, 0.01, 'USD', 5),
      atMost('Cost Explorer requests per organization run', figures.costExplorerRequests, 3, '', 0),
    ],
    notes: [
      `wall ${seconds(figures.wallMs)}, ideal ${seconds(figures.idealMs)} (the engine's states outside the Map ${seconds(figures.serialMs)} as measured, then ${figures.maxConcurrency} accounts at once: ${figures.budget} functions / ${figures.budgetFunctionsPerCall} per call / calls in flight), CPU of the local interpreter and engine ${seconds(figures.cpuMs)} on ${figures.cores} cores`,
      `CPU floor: no schedule's wall time is under the process's CPU ÷ cores (${seconds(figures.cpuMs / figures.cores)}); above ${WALL_TARGET} × the ideal the host's CPU binds, and the issue's figure cannot pass here whatever the schedule`,
      `in-order schedule: the Map starts its accounts in item order, ${figures.maxConcurrency} at once, each as one ends (as the service does); the measured run is a tenant's second, its items longest first by the first run's durations (a first run, in account-id order, would take ${seconds(figures.idOrderMs)}); with the latency model's times and no CPU that takes ${seconds(figures.inOrderMs)} (×${schedule.latencyScale}: ${seconds(schedule.inOrderMs)}), while the ideal packs the accounts perfectly: no run, and so no schedule check, comes under its pass's in-order figure`,
      `schedule check (${LATENCY_SCALE_ENV}=${schedule.latencyScale}): every modeled latency × ${schedule.latencyScale}, so the same CPU is spread over a longer ideal: wall ${seconds(schedule.wallMs)}, ideal ${seconds(schedule.idealMs)}, CPU ${seconds(schedule.cpuMs)}; its wall ÷ ideal is the schedule's own (the Map's packing, the route's concurrency) when its CPU floor is under ${WALL_TARGET}`,
      `wall by who held the JavaScript thread (sampling profile, bench/wall-attribution.ts): ${[
        ...figures.wallParts,
      ]
        .sort((a, b) => b[1] - a[1])
        .map(([part, ms]) => `${part} ${seconds(ms)}`)
        .join(
          ', ',
        )} ('other': Node.js itself, no script on the stack); load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs`,
      'the interpreter (aws-local-stepfunctions with its dependencies, e.g. jsonpath-plus) is third-party and local only: Step Functions runs the states itself; the figure without it is what our code and the budget leave',
      `report: ${accountsInWords(figures.report.accounts)} (the management account); largest measured state ${kib(figures.largestStateBytes)}`,
      'USD: state transitions at $0.000025, Lambda GB-s (256 MB) and requests of every function held; Cost Explorer requests billed apart ($0.01 each).',
    ],
  };
}

if (require.main === module) {
  void (async () => {
    const passes = await measureOrganizationPasses();
    process.stdout.write(
      `${formatReport(['organization run (bench/organization.ts)'], [organizationSection(passes)])}\n`,
    );
  })();
}
