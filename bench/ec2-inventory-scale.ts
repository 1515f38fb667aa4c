/**
 * `aws_ec2_inventory` at scale: the real tool through `runTool` and the
 * dispatcher's `boundResult`, EC2 mocked with generated DescribeInstances pages
 * that each resolve after {@link BENCH_LATENCY_MS}. Runs bundled in its own
 * process (bench/child.ts) so the memory figures are the inventory's, in a
 * process shaped like the Lambda function's (one minified bundle, plain node).
 */
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { DEFAULT_REGION_CONCURRENCY } from '../functions/runtime/aws/region-fan-out';
import { boundResult, jsonByteLength } from '../functions/runtime/bound';
import { deadlineIn } from '../functions/runtime/deadline';
import { runTool } from '../functions/runtime/harness';
import { resultMaxBytes } from '../functions/runtime/result-limits';
import { ec2InventoryTool } from '../functions/tools/aws/ec2-inventory';
import { describeInstancesResponder, instanceCount, pagesIn } from '../test/helpers/ec2-pages';
import { toolInvocation } from '../test/helpers/events';
import { BENCH_ACCOUNT, BENCH_LATENCY_MS, staticKeyServices } from './aws-fixtures';
import { reportToParent } from './child';
import { quantile } from './report';

/** Measured runs; the median wall time is reported. */
const RUNS = 3;
/** How often heap and RSS are sampled during the measured runs, in ms. */
const SAMPLE_EVERY_MS = 2;

/** What {@link measureEc2InventoryScale} reports. Bytes and ms. */
export interface Ec2InventoryScale {
  readonly instances: number;
  readonly regions: number;
  readonly latencyMs: number;
  readonly regionConcurrency: number;
  /** The slowest region's pages × latency: the wall time with every region in parallel and no overhead. */
  readonly idealMs: number;
  /** Median over {@link RUNS}. */
  readonly wallMs: number;
  /** CPU time (user + system) of the process per run, median: what adds to the ideal when the CPU is shared. */
  readonly cpuMs: number;
  /** Instances the tool counted in the last run (must equal `instances`). */
  readonly counted: number;
  readonly truncated: boolean;
  readonly describeInstancesCalls: number;
  /** JSON size of the bounded ToolResult the dispatcher would return. */
  readonly outputBytes: number;
  /** Highest resident set sampled during the measured runs. */
  readonly peakRssBytes: number;
  /** Highest V8 heap use sampled during the measured runs. */
  readonly peakHeapBytes: number;
  /** Heap in use after a full GC before the runs: code plus the generated account the mock holds. */
  readonly startHeapBytes: number;
  /** Resident set after that GC. */
  readonly startRssBytes: number;
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs the inventory once to warm up (the mock generates the pages then and
 * reuses them, so generation stays out of the timed runs), then {@link RUNS}
 * times sampling memory.
 */
export async function measureEc2InventoryScale(): Promise<Ec2InventoryScale> {
  const ec2 = mockClient(EC2Client);
  const services = staticKeyServices();
  const regions = Object.keys(BENCH_ACCOUNT.instancesByRegion);
  const invocation = toolInvocation({ tool: ec2InventoryTool.name, args: { regions } });
  const inventory = async () =>
    boundResult(await runTool(ec2InventoryTool, invocation, deadlineIn(120_000), services), resultMaxBytes());

  ec2
    .on(DescribeInstancesCommand)
    .callsFake(describeInstancesResponder(BENCH_ACCOUNT, { latencyMs: BENCH_LATENCY_MS, reusePages: true }));
  await inventory();

  ec2.resetHistory();
  collectGarbage();
  const startHeapBytes = process.memoryUsage().heapUsed;
  const startRssBytes = process.memoryUsage.rss();
  let peakHeapBytes = startHeapBytes;
  let peakRssBytes = startRssBytes;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peakHeapBytes = Math.max(peakHeapBytes, usage.heapUsed);
    peakRssBytes = Math.max(peakRssBytes, usage.rss);
  }, SAMPLE_EVERY_MS);
  const wall: number[] = [];
  const cpu: number[] = [];
  let last: Awaited<ReturnType<typeof inventory>> | undefined;
  try {
    for (let run = 0; run < RUNS; run++) {
      ec2.resetHistory();
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      last = await inventory();
      wall.push(performance.now() - started);
      const { user, system } = process.cpuUsage(cpuBefore);
      cpu.push((user + system) / 1000);
    }
  } finally {
    clearInterval(sampler);
  }
  if (!last?.ok) throw new Error(`aws_ec2_inventory failed: ${last?.summary}`);
  return {
    instances: instanceCount(BENCH_ACCOUNT),
    regions: regions.length,
    latencyMs: BENCH_LATENCY_MS,
    regionConcurrency: DEFAULT_REGION_CONCURRENCY,
    idealMs: Math.max(...regions.map((r) => pagesIn(BENCH_ACCOUNT, r))) * BENCH_LATENCY_MS,
    wallMs: quantile(wall, 0.5),
    cpuMs: quantile(cpu, 0.5),
    counted: (last.value as { totalInstances: number }).totalInstances,
    truncated: last.truncated,
    describeInstancesCalls: ec2.commandCalls(DescribeInstancesCommand).length,
    outputBytes: jsonByteLength(last),
    peakRssBytes,
    peakHeapBytes,
    startHeapBytes,
    startRssBytes,
  };
}

if (require.main === module) reportToParent(measureEc2InventoryScale);
