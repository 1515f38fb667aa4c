/**
 * Dispatcher overhead per call: the real `createDispatcher` in front of a
 * trivial tool, against the same tool's Lambda handler called directly. The
 * invoker runs the handler in-process, so the difference is the dispatcher's own
 * work (envelope narrowing, level whitelist, args parsing and validation, result
 * bounding, logging), without Lambda's transport (serialization, network).
 *
 * Runs in its own process (bench/child.ts): the log level is read at load time
 * from POWERTOOLS_LOG_LEVEL and log lines go to a pipe that is drained.
 */
import * as z from 'zod/mini';
import { createDispatcher } from '../functions/dispatcher/dispatch';
import { fileTool, functionTool, ToolCatalog } from '../functions/runtime/catalog';
import { deadlineIn } from '../functions/runtime/deadline';
import { logger } from '../functions/runtime/logger';
import { resultMaxBytes } from '../functions/runtime/result-limits';
import { defineTool, defineToolSpec } from '../functions/runtime/spec';
import { createToolHandler } from '../functions/runtime/tool-handler';
import { toolCatalog } from '../functions/tools/catalog';
import { fakeLambdaContext, nativeEnvelope } from '../test/helpers/events';
import { reportToParent } from './child';
import { quantile } from './report';

/** Calls before measuring, so the JIT and caches are warm. */
const WARM_UP_CALLS = 500;
/** Measured calls on each side. */
const MEASURED_CALLS = 5_000;

/** A tool that makes no remote call: what is left of a call is the platform's own work. */
const echoSpec = defineToolSpec({
  name: 'bench_echo',
  description: 'Returns its text, repeated. Benchmark only.',
  inputSchema: z.strictObject({
    text: z.string().check(z.maxLength(1000)),
    repeat: z._default(z.int().check(z.minimum(1), z.maximum(10)), 1),
  }),
  tags: ['bench'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
const echoTool = defineTool(echoSpec, async (_ctx, args) => ({
  value: { text: args.text.repeat(args.repeat) },
}));

/** p50 and p99 of one side, in ms. */
export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** What {@link measureDispatcherOverhead} reports. */
export interface DispatcherOverhead {
  readonly calls: number;
  readonly logLevel: string;
  readonly dispatcher: Latency;
  readonly direct: Latency;
  /** dispatcher − direct, quantile by quantile. */
  readonly overhead: Latency;
}

function latencyOf(samples: readonly number[]): Latency {
  return { p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99) };
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/**
 * Alternates a dispatcher call and a direct handler call {@link MEASURED_CALLS}
 * times after {@link WARM_UP_CALLS} of each; both must return `ok: true`.
 *
 * @throws Error when either side fails (the figures would be meaningless).
 */
export async function measureDispatcherOverhead(): Promise<DispatcherOverhead> {
  const context = fakeLambdaContext({ functionName: 'bench-echo', timeoutMs: 60_000 });
  const toolHandler = createToolHandler(echoTool);
  const dispatch = createDispatcher({
    catalog: new ToolCatalog([
      ...toolCatalog.functionTools(),
      ...toolCatalog.fileTools().map(fileTool),
      functionTool(echoSpec, 'bench/echo'),
    ]),
    whitelists: { bench: { call: ['bench_echo'] } },
    invoker: { invoke: (_spec, invocation) => toolHandler(invocation, context) },
    services: { logger },
    logger,
    maxResultBytes: resultMaxBytes(),
    requireLevel: true,
  });
  // Args as a JSON string, as a model-driven level sends them: both sides parse them.
  const event = nativeEnvelope({
    scenario: 'bench',
    level: 'call',
    tool: 'bench_echo',
    args: '{"text":"hello from the benchmark","repeat":2}',
  });
  const viaDispatcher = () => dispatch(event, deadlineIn(context.getRemainingTimeInMillis()));
  const direct = () => toolHandler(event, context);

  for (const call of [viaDispatcher, direct]) {
    const result = await call();
    if (!result.ok) throw new Error(`bench_echo failed: ${result.summary}`);
  }
  for (let i = 0; i < WARM_UP_CALLS; i++) {
    await viaDispatcher();
    await direct();
  }
  const dispatcherMs: number[] = [];
  const directMs: number[] = [];
  for (let i = 0; i < MEASURED_CALLS; i++) {
    dispatcherMs.push(await timed(viaDispatcher));
    directMs.push(await timed(direct));
  }
  const dispatcher = latencyOf(dispatcherMs);
  const directLatency = latencyOf(directMs);
  return {
    calls: MEASURED_CALLS,
    logLevel: logger.getLevelName(),
    dispatcher,
    direct: directLatency,
    overhead: {
      p50Ms: dispatcher.p50Ms - directLatency.p50Ms,
      p99Ms: dispatcher.p99Ms - directLatency.p99Ms,
    },
  };
}

if (require.main === module) reportToParent(measureDispatcherOverhead);
