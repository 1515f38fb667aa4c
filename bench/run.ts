/**
 * `npm run bench`: the platform's figures against their targets (issue 2, last
 * bullet; issue 3, "Benchmark"). Prints the report and writes it to
 * `bench/out/latest.txt`. A benchmark, not a test: it exits 0 whatever the figures.
 *
 * 1. Minified bundle size of each Lambda function (the dispatcher and every tool
 *    placed in its own function), bundled as the CDK bundles them.
 * 2. The dispatcher bundle's largest packages and its AWS SDK clients (only
 *    Lambda, S3 and DynamoDB are allowed).
 * 3. Cold start: `require` time of each bundle in a fresh process, as a ratio to a
 *    bundle holding only the SDK clients the function needs for its own work
 *    (target ≤ 1.10 for every function, the dispatcher included: issues 6 and 22).
 * 4. Dispatcher overhead per call against calling the tool's handler directly
 *    (target p50 ≤ 1 ms), with logging at ERROR and at INFO.
 * 5. aws_ec2_inventory over 10,000 instances in 17 regions with 50 ms per page:
 *    wall time / ideal (target ≤ 1.3), peak memory (target ≤ 256 MB), output bytes.
 * 6. AWS API calls per run of each AWS tool, and HTTP requests per call of each REST
 *    tool (GitHub, PagerDuty, CRM, ATS) against the loopback fakes, each ≤ its
 *    documented page budget (bench/rest-requests.ts; issue 19).
 * 7. `redact()` on a 64 KiB result, p50 and p99 (target p50 ≤ 2 ms; issue 8), and
 *    `redactString()` over a 10 MB log of the platform's output side by side with
 *    secretlint (wall ratio ≤ 1, every planted credential found, ≤ 0.1 % of lines
 *    altered without one; issues 18 and 22).
 * 8. Secret resolutions for 1,000 calls over 3 tenants in a warm container (issue 8).
 * 9. The claim-check of large results (issue 7), and the entry points' MCP path (issue 12).
 * 10. CLI start-up (bench/startup.ts): `etp --version`, `etp tools list` and an MCP
 *     client's time to `tools/list` from `etp mcp`, each beside its baseline (target ≤ 1.5×; issue 21).
 * 11. One aws_pulse run on a generated 1,000-resource account with the scripted model:
 *     transitions, invocations, GB-s, tokens, Cost Explorer requests, USD (issue 7).
 * 11b. An organization run (bench/organization.ts, issue 20): 1,000 simulated accounts ×
 *     17 Regions on the per-account Distributed Map: wall time / the concurrency budget's
 *     ideal (≤ 1.2) beside the CPU floor (process CPU ÷ cores ÷ ideal), then a second pass
 *     with every modeled latency × 10 (`ORG_BENCH_LATENCY_SCALE`), the schedule check
 *     (wall ÷ ideal ≤ 1.2), peak functions (≤ the budget), functions per in-flight call (1.0),
 *     largest state (≤ 200 KiB), transitions and USD per account (≤ 0.01), Cost Explorer
 *     requests per organization run (≤ 3).
 * 12. The snapshot tools over 1,000,000-object inventory reports (issue 11), and side by
 *     side with DuckDB on the same reports (bench/snapshots-duckdb.ts, issue 22), and the
 *     Athena route at a simulated 1,000,000,000-object report (bench/snapshots-athena.ts, issue 22).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { version as esbuildVersion } from 'esbuild';
import { DEFAULT_RESULT_INLINE_BYTES } from '../functions/runtime/result-limits';
import { countApiCalls } from './api-calls';
import {
  bundle,
  bytesByPackage,
  type FunctionBundle,
  LAMBDA_BUILD_OPTIONS,
  lambdaEntries,
  OUT_DIR,
  sdkClientsIn,
} from './bundles';
import { runInChild } from './child';
import { type ClaimCheckFigure, measureClaimCheck } from './claim-check';
import { baselineBundle, DEFAULT_COLD_START_RUNS, measureColdStart } from './cold-start';
import type { DispatcherOverhead } from './dispatcher-overhead';
import type { Ec2InventoryScale } from './ec2-inventory-scale';
import { measureEntryPoints } from './entry-points';
import { loadTimeEnvironment } from './load-time-environment';
import { measureOrganizationPasses, organizationSection } from './organization';
import { measureOrganizationSessions } from './organization-sessions';
import { measureRedaction, redactionSection } from './redact';
import { measureRedactionScan, redactionScanSection } from './redact-scan';
import { atMost, type Figure, formatReport, kib, type Section } from './report';
import { restRequestsSection } from './rest-requests';
import { measureScenarioRun, scenarioRunSection } from './scenario-run';
import { benchSecrets } from './secrets';
import { measureSnapshotTools } from './snapshots';
import { measureAthenaRoute } from './snapshots-athena';
import { measureAgainstDuckDb } from './snapshots-duckdb';
import { measureStartup } from './startup';

/** Clients the dispatcher may hold (docs/design.md: it invokes tools, reads the secret table, writes claim-checks). */
const DISPATCHER_ALLOWED_CLIENTS = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/client-lambda',
  '@aws-sdk/client-s3',
  // the tenant sessions it vends (docs/tenant-isolation.md)
  '@aws-sdk/client-sts',
];
const TOOL_COLD_START_RATIO_TARGET = 1.1;
// Issue 22: the dispatcher too, against its own clients (Lambda, S3), not a wider baseline.
const DISPATCHER_COLD_START_RATIO_TARGET = 1.1;
const OVERHEAD_P50_TARGET_MS = 1;
const WALL_RATIO_TARGET = 1.3;
const PEAK_MEMORY_TARGET_MB = 256;
const MB = 1024 * 1024;

function bundleSection(bundles: readonly FunctionBundle[]): Section {
  return {
    title: 'Bundle size (minified, source map excluded)',
    figures: bundles.map((b) => ({ name: b.name, value: kib(b.bytes) })),
    notes: [],
  };
}

function dispatcherSection(dispatcher: FunctionBundle): Section {
  const packages = bytesByPackage(dispatcher);
  const clients = sdkClientsIn(dispatcher);
  const extra = clients.filter((c) => !DISPATCHER_ALLOWED_CLIENTS.includes(c));
  return {
    title: 'Dispatcher bundle: largest packages (bytes in output)',
    figures: [
      ...packages.slice(0, 10).map((p) => ({ name: p.name, value: kib(p.bytes) })),
      {
        name: 'SDK clients only Lambda/S3/DynamoDB',
        value: clients.map((c) => c.replace('@aws-sdk/client-', '')).join(',') || 'none',
        target: 'subset',
        pass: extra.length === 0,
      },
    ],
    notes: extra.length > 0 ? [`not allowed in the dispatcher: ${extra.join(', ')}`] : [],
  };
}

async function coldStartSection(
  bundles: readonly FunctionBundle[],
  env: NodeJS.ProcessEnv,
): Promise<Section> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  for (const bundled of bundles) {
    progress(`cold start of ${bundled.name}`);
    const baseline = await baselineBundle(bundled);
    const measured = await measureColdStart(bundled, baseline.bundle, env);
    const target =
      bundled.name === 'dispatcher' ? DISPATCHER_COLD_START_RATIO_TARGET : TOOL_COLD_START_RATIO_TARGET;
    figures.push(atMost(`${bundled.name} ratio`, measured.ratio, target));
    notes.push(
      `${bundled.name}: ${measured.functionMs.toFixed(1)} ms vs ${measured.baselineMs.toFixed(1)} ms baseline ` +
        `(${kib(baseline.bundle.bytes)}; ${baseline.clients.map((c) => c.replace('@aws-sdk/client-', '')).join(', ') || 'no client'})`,
    );
  }
  notes.push(
    "each process: lib's function environment (no NODE_OPTIONS: stack traces mapped by the injected module), AWS_REGION, " +
      "POWERTOOLS_LOG_LEVEL=ERROR, SECRET_REFS_TABLE; the dispatcher bundled with the scenario files' whitelists",
    'REST connector tools (GitHub, PagerDuty, CRM, ATS) against the platform-only bundle (a tool that calls ' +
      'nothing): their client is the shared HTTP client, part of that fixed part (bench/cold-start.ts, baselineBundle)',
  );
  return {
    title: `Cold start: median CPU time of require() in a fresh process, ${DEFAULT_COLD_START_RUNS} runs, vs own-SDK-clients-only bundle`,
    figures,
    notes,
  };
}

/** Bundles the measurement module `bench/<name>.ts` as a function would be, and runs it in its own process. */
async function runMeasurement<T>(
  name: string,
  env: Readonly<Record<string, string>>,
  nodeOptions: readonly string[] = [],
): Promise<T> {
  const bundled = await bundle(`bench-${name}`, { entry: path.join(__dirname, `${name}.ts`) });
  return runInChild<T>(bundled.file, env, nodeOptions);
}

async function overheadSection(): Promise<Section> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  for (const level of ['ERROR', 'INFO']) {
    progress(`dispatcher overhead, log level ${level}`);
    const m = await runMeasurement<DispatcherOverhead>('dispatcher-overhead', {
      POWERTOOLS_LOG_LEVEL: level,
      AWS_REGION: 'us-east-1',
      SECRET_REFS_TABLE: 'etp-secret-references',
    });
    figures.push(
      atMost(`overhead p50, log level ${m.logLevel}`, m.overhead.p50Ms, OVERHEAD_P50_TARGET_MS, 'ms', 3),
    );
    figures.push({
      name: `overhead p99, log level ${m.logLevel}`,
      value: `${m.overhead.p99Ms.toFixed(3)} ms`,
    });
    notes.push(
      `${m.logLevel}: ${m.calls} calls each; dispatcher p50 ${m.dispatcher.p50Ms.toFixed(3)} / p99 ${m.dispatcher.p99Ms.toFixed(3)} ms, ` +
        `direct handler p50 ${m.direct.p50Ms.toFixed(3)} / p99 ${m.direct.p99Ms.toFixed(3)} ms`,
    );
  }
  return { title: 'Dispatcher overhead per call (dispatcher − direct tool handler)', figures, notes };
}

async function inventorySection(): Promise<Section> {
  progress('aws_ec2_inventory at scale');
  const m = await runMeasurement<Ec2InventoryScale>(
    'ec2-inventory-scale',
    { POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_REGION: 'us-east-1' },
    ['--expose-gc'],
  );
  return {
    title: `aws_ec2_inventory: ${m.instances.toLocaleString('en-US')} instances, ${m.regions} regions, ${m.latencyMs} ms per page`,
    figures: [
      atMost('wall time / ideal', m.wallMs / m.idealMs, WALL_RATIO_TARGET),
      atMost('peak RSS', m.peakRssBytes / MB, PEAK_MEMORY_TARGET_MB, 'MB', 1),
      atMost('peak heap used', m.peakHeapBytes / MB, PEAK_MEMORY_TARGET_MB, 'MB', 1),
      { name: 'output (bounded ToolResult JSON)', value: `${m.outputBytes} B` },
      { name: 'instances counted', value: `${m.counted}` },
    ],
    notes: [
      `wall ${m.wallMs.toFixed(0)} ms (median of 3), ideal ${m.idealMs} ms = slowest region's pages × latency; ` +
        `CPU ${m.cpuMs.toFixed(0)} ms per run; region concurrency ${m.regionConcurrency}; ` +
        `${m.describeInstancesCalls} DescribeInstances calls; truncated=${m.truncated}`,
      `memory sampled every 2 ms during the runs, in a bundled process (plain node); before them, after a GC: ` +
        `heap ${(m.startHeapBytes / MB).toFixed(1)} MB, RSS ${(m.startRssBytes / MB).toFixed(1)} MB ` +
        `(code, the SDK mock and the generated account it holds)`,
    ],
  };
}

function claimCheckSection(figures: readonly ClaimCheckFigure[]): Section {
  return {
    title: `Claim-check of large results (inline budget ${DEFAULT_RESULT_INLINE_BYTES} B, local directory)`,
    figures: figures.flatMap((f) => [
      { name: `${kib(f.valueBytes)} result, claim-checked`, value: `${f.claimCheckMs.toFixed(0)} ms` },
      { name: `${kib(f.valueBytes)} result, shrunk instead`, value: `${f.shrinkMs.toFixed(0)} ms` },
      atMost(`${kib(f.valueBytes)} result, inline bytes`, f.inlineBytes, DEFAULT_RESULT_INLINE_BYTES, 'B', 0),
    ]),
    notes: figures.map((f) => `stored ${f.storedBytes} B for a ${f.valueBytes} B value`),
  };
}

async function apiCallsSection(): Promise<Section> {
  progress('AWS API calls per tool');
  const { counts, missing, unavailable } = await countApiCalls();
  return {
    title: 'AWS API calls per run (representative account, bench/api-call-cases.ts)',
    figures: counts.map((c) => ({ name: c.tool, value: `${c.calls}` })),
    notes: [
      ...counts.map(
        (c) =>
          `${c.tool} (${c.account}): ${Object.entries(c.byCommand)
            .map(([command, n]) => `${command} ${n}`)
            .join(', ')}${c.error ? `; FAILED: ${c.error}` : ''}`,
      ),
      ...missing,
      ...(unavailable.length > 0
        ? [`cases whose tool is not registered yet: ${unavailable.join(', ')}`]
        : []),
    ],
  };
}

/** Progress on stderr, so the report on stdout stays clean. */
function progress(step: string): void {
  process.stderr.write(`bench: ${step}\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  mkdirSync(OUT_DIR, { recursive: true });
  const entries = lambdaEntries();
  const bundles: FunctionBundle[] = [];
  for (const entry of entries) {
    progress(`bundling ${entry.name}`);
    bundles.push(await bundle(entry.name, entry));
  }
  const dispatcher = bundles.find((b) => b.name === 'dispatcher') as FunctionBundle;
  const env = loadTimeEnvironment();

  const sections: Section[] = [bundleSection(bundles), dispatcherSection(dispatcher)];
  sections.push(await coldStartSection(bundles, env));
  sections.push(await overheadSection());
  sections.push(await inventorySection());
  sections.push(await apiCallsSection());
  progress('HTTP requests per call of each REST tool');
  sections.push(await restRequestsSection());
  progress('redact() on a 64 KiB result');
  sections.push(redactionSection(await measureRedaction()));
  progress("redaction vs secretlint on a 10 MB log of the platform's output");
  sections.push(redactionScanSection(await measureRedactionScan()));
  progress('secret resolutions in a warm container');
  sections.push(await benchSecrets());
  progress('claim-check of large results');
  sections.push(claimCheckSection(await measureClaimCheck()));
  progress('an organization of 1,000 simulated accounts: planning, Cost Explorer, long-run sessions');
  sections.push(await measureOrganizationSessions());
  progress('entry points: dispatcher bundle and the MCP path');
  sections.push({
    title: 'Entry points (dispatcher with the MCP path)',
    figures: [],
    notes: (await measureEntryPoints()).split('\n'),
  });
  progress('CLI start-up: etp --version, etp tools list, etp mcp to tools/list, side by side with baselines');
  sections.push(await measureStartup());
  progress('aws_pulse run on a generated 1,000-resource account, scripted model');
  sections.push(scenarioRunSection(await measureScenarioRun()));
  progress(
    'organization run: 1,000 simulated accounts × 17 Regions on the Distributed Map, then latencies × 10',
  );
  sections.push(organizationSection(await measureOrganizationPasses()));
  progress('snapshot tools over two inventory reports of 1,000,000 objects each (about 10 minutes)');
  sections.push(...(await measureSnapshotTools()));
  progress('snapshot tools side by side with DuckDB on the same reports');
  sections.push(await measureAgainstDuckDb());
  progress('snapshot_stats on the Athena route: its SQL on DuckDB, scaled to 1,000,000,000 objects');
  sections.push(await measureAthenaRoute());

  const header = [
    `etp benchmark, ${new Date().toISOString()}, node ${process.version} (${process.execPath}), esbuild ${esbuildVersion}`,
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg()[0]?.toFixed(2)}; ` +
      `bundling: ${JSON.stringify(LAMBDA_BUILD_OPTIONS)}`,
  ];
  const report = formatReport(header, sections);
  process.stdout.write(report);
  writeFileSync(path.join(OUT_DIR, 'latest.txt'), report);
  process.stdout.write(
    `(${((Date.now() - started) / 1000).toFixed(0)} s; written to bench/out/latest.txt)\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
