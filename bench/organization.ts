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
 * printed beside, since on a loaded machine it, not the budget, sets the wall time.
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
import type { OrgReport } from '../functions/engine/org-report';
import { LAMBDA_GB_SECOND_USD, LAMBDA_REQUEST_USD, STATE_TRANSITION_USD } from '../functions/engine/pricing';
import { ENGINE_PATHS, readJson, workspacesOf } from '../functions/engine/workspaces';
import { DEFAULT_ORG_SECRET } from '../functions/runtime/aws/organization';
import { resolveAccounts } from '../functions/runtime/aws/organization-accounts';
import { logger } from '../functions/runtime/logger';
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
import { atMost, formatReport, kib, type Section } from './report';
import { attributeWall, packageOfUrl, packageWithDependencies } from './wall-attribution';

const ACCOUNTS = 1000;
/** Scripts of this repository (functions/, bin/, lib/, bench/, test/helpers/): the platform's own code. */
const REPOSITORY_URL = pathToFileURL(path.resolve(__dirname, '..')).href;
/** The third-party local interpreter (bin/local/local-execution.ts). */
const LOCAL_INTERPRETER = 'aws-local-stepfunctions';
const BUCKET = 'etp-bench-runs';
/** Memory of the dispatcher and of a tool function, MB, for the Lambda estimate (the CDK's defaults). */
const FUNCTION_MB = 256;
/** The engine's measured time is counted; each dispatcher adds its overhead to the call's duration (bench/dispatcher-overhead.ts). */
const DISPATCHER_OVERHEAD_MS = 5;

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

/** A call's time in an account: its slowest Region's DescribeInstances pages × the latency, Regions in parallel. */
function callMsOf(accountIndex: number): number {
  const instances = 100 + ((accountIndex * 7919) % 9901);
  const account = unevenAccount(instances, DEFAULT_ENABLED_REGIONS);
  return Math.max(...DEFAULT_ENABLED_REGIONS.map((region) => pagesIn(account, region))) * BENCH_LATENCY_MS;
}

/** Static keys of the bench's own clients (an AWS docs example key), so no credential chain is searched. */
const BENCH_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // fake test example
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OrganizationFigures {
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
  /** Measured ms of the engine's states outside the Map (`org_targets`, `org_done`, start, summary). */
  readonly serialMs: number;
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

export async function measureOrganization(): Promise<OrganizationFigures> {
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
      const ms = callMsOf(indexOf.get(call.account) ?? 0);
      await held(() => sleep(DISPATCHER_OVERHEAD_MS));
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
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const interpreter = new Set(packageWithDependencies(LOCAL_INTERPRETER));
    const { ms: wallParts } = await attributeWall(
      () =>
        executeLocally(
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
            runId: 'org-bench-1',
            objects: directoryObjectStore(dir, BUCKET),
            onStateEntered: (event) => {
              transitions++;
              largest = Math.max(largest, Buffer.byteLength(JSON.stringify(event.data ?? null)));
            },
            onStateExited: (event) => {
              largest = Math.max(largest, Buffer.byteLength(JSON.stringify(event.data ?? null)));
            },
          },
        ),
      (url) => {
        const pkg = packageOfUrl(url);
        if (pkg !== undefined) return interpreter.has(pkg) ? 'interpreter' : 'other packages';
        // Node.js's own modules (node:…) count for whoever called them.
        return url.startsWith(REPOSITORY_URL) ? 'platform' : undefined;
      },
    );
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpuBefore);
    await costByLinkedAccount(
      new CostExplorerClient({ region: 'us-east-1', credentials: BENCH_CREDENTIALS }),
    );
    const report = await readJson<OrgReport>(
      workspacesOf(localWorkspaceProvider(dir))({
        tenant: 'default',
        scenario: scenario.name,
        runId: 'org-bench-1',
      }),
      ENGINE_PATHS.organization(level.name),
    );
    const waves = Math.ceil(level.calls.length / level.concurrency);
    const auditedIds = new Set(report.rollUp.map((row) => row.accountId));
    const times = world.accounts
      .filter((account) => auditedIds.has(account.accountId))
      .map((account) => waves * (callMsOf(indexOf.get(account.accountId) ?? 0) + DISPATCHER_OVERHEAD_MS));
    const atOnce = budget.maxConcurrency;
    const mapIdealMs = Math.max(times.reduce((sum, t) => sum + t, 0) / atOnce, Math.max(...times));
    const idealMs = serialMs + mapIdealMs;
    const audited = report.rollUp.length;
    const usd =
      transitions * STATE_TRANSITION_USD +
      (functionMs / 1000) * (FUNCTION_MB / 1024) * LAMBDA_GB_SECOND_USD +
      invocations * LAMBDA_REQUEST_USD;
    return {
      accounts: audited,
      regions: DEFAULT_ENABLED_REGIONS.length,
      budget: DEFAULT_LAMBDA_CONCURRENCY,
      maxConcurrency: budget.maxConcurrency,
      functionsPerCall: callFunctionMs / Math.max(1, callInFlightMs),
      budgetFunctionsPerCall: functionsPerInFlightCall(level),
      wallMs,
      idealMs,
      serialMs,
      cpuMs: (user + system) / 1000,
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

/** The figures against issue 20's targets. */
export function organizationSection(figures: OrganizationFigures): Section {
  return {
    title: `Organization run: ${figures.accounts} accounts × ${figures.regions} Regions (bench/organization.ts)`,
    figures: [
      atMost('wall time / ideal of the concurrency budget', figures.wallMs / figures.idealMs, 1.2),
      {
        name: 'wall time less the local interpreter’s / ideal',
        value: ((figures.wallMs - figures.interpreterMs) / figures.idealMs).toFixed(2),
      },
      {
        name: 'local interpreter per state transition (wall, measured)',
        value: `${(figures.interpreterMs / (figures.transitionsPerAccount * figures.accounts)).toFixed(3)} ms`,
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
      `wall ${(figures.wallMs / 1000).toFixed(1)} s, ideal ${(figures.idealMs / 1000).toFixed(1)} s (the engine's states outside the Map ${(figures.serialMs / 1000).toFixed(1)} s as measured, then ${figures.maxConcurrency} accounts at once: ${figures.budget} functions / ${figures.budgetFunctionsPerCall} per call / calls in flight), CPU of the local interpreter and engine ${(figures.cpuMs / 1000).toFixed(1)} s`,
      `wall by who held the JavaScript thread (sampling profile, bench/wall-attribution.ts): ${[
        ...figures.wallParts,
      ]
        .sort((a, b) => b[1] - a[1])
        .map(([part, ms]) => `${part} ${(ms / 1000).toFixed(1)} s`)
        .join(
          ', ',
        )} ('other': Node.js itself, no script on the stack); load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs`,
      'the interpreter (aws-local-stepfunctions with its dependencies, e.g. jsonpath-plus) is third-party and local only: Step Functions runs the states itself; the figure without it is what our code and the budget leave',
      `report: ${figures.report.accounts.audited} audited, ${figures.report.accounts.failed} failed, ${figures.report.accounts.notAudited} not audited (the management account); largest measured state ${kib(figures.largestStateBytes)}`,
      'USD: state transitions at $0.000025, Lambda GB-s (256 MB) and requests of every function held; Cost Explorer requests billed apart ($0.01 each).',
    ],
  };
}

if (require.main === module) {
  void (async () => {
    const figures = await measureOrganization();
    process.stdout.write(
      `${formatReport(['organization run (bench/organization.ts)'], [organizationSection(figures)])}\n`,
    );
  })();
}
