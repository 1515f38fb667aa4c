/**
 * Cold-start cost of a bundle: the time a fresh Node.js process spends in
 * `require()` of it (module evaluation: what Lambda's init phase runs before the
 * first invocation), compared with a baseline bundle that holds only the SDK
 * clients the function needs for its own work (not the platform's secret and
 * credential clients), so the ratio shows what our own code and every other
 * dependency add on top of the unavoidable SDK.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bundle, type FunctionBundle, ownSdkClientsIn } from './bundles';
import { quantile } from './report';

const run = promisify(execFile);

/** Fresh processes per bundle; the median is reported. */
export const DEFAULT_COLD_START_RUNS = 15;

/**
 * Runs in the fresh process: measures `require` of the bundle named in argv and
 * prints the CPU time it took, in ms (user + system, every thread of the
 * process). CPU time, not wall time: on a shared machine the wall time of a
 * require includes the time spent waiting for a core, which is noise; the CPU
 * time is the work the init phase does.
 */
const REQUIRE_TIMER = [
  'const start = process.cpuUsage();',
  'require(process.argv[1]);',
  'const used = process.cpuUsage(start);',
  'process.stdout.write(String((used.user + used.system) / 1000));',
].join('\n');

/** Constructor arguments of the Slack SDK clients (AWS SDK clients take `{}`). */
const SDK_CLIENT_ARGUMENT: Readonly<Record<string, string>> = {
  '@slack/web-api': "'xoxb-baseline-test'",
  '@slack/webhook': "'https://hooks.slack.com/services/T0/B0/baseline-test'",
};

/** The client class a Slack SDK package exports. */
const SLACK_CLIENT_CLASS: Readonly<Record<string, string>> = {
  '@slack/web-api': 'WebClient',
  '@slack/webhook': 'IncomingWebhook',
};

/**
 * The exported client class of an SDK v3 client package (`@aws-sdk/client-s3` → `S3Client`), or a Slack SDK's client.
 *
 * @throws Error when the package does not export exactly one `…Client` class.
 */
export function clientClassOf(packageName: string): string {
  const slack = SLACK_CLIENT_CLASS[packageName];
  if (slack) return slack;
  const exported = Object.keys(require(packageName) as Record<string, unknown>).filter((key) =>
    /^[A-Z]\w*Client$/.test(key),
  );
  if (exported.length !== 1) {
    throw new Error(`${packageName} exports ${exported.length} client classes: ${exported.join(', ')}`);
  }
  return exported[0] as string;
}

/** Source of the baseline entry: one client of each package, constructed as a handler module would. */
export function baselineSource(clientPackages: readonly string[]): string {
  const lines = clientPackages.map((pkg, i) => `import { ${clientClassOf(pkg)} as C${i} } from '${pkg}';`);
  lines.push(
    ...clientPackages.map(
      (pkg, i) => `export const client${i} = new C${i}(${SDK_CLIENT_ARGUMENT[pkg] ?? '{}'});`,
    ),
  );
  return lines.length > 0 ? lines.join('\n') : 'export {};';
}

/**
 * A function tool that calls nothing: the platform's fixed part of every tool
 * bundle (the tool harness, Powertools, the secret and idempotency clients).
 */
export const PLATFORM_ONLY_SOURCE = [
  "import * as z from 'zod/mini';",
  "import { defineTool, defineToolSpec } from './functions/runtime/spec';",
  "import { createToolHandler } from './functions/runtime/tool-handler';",
  "const spec = defineToolSpec({ name: 'noop', description: 'nothing', inputSchema: () => z.strictObject({}), tags: [], requiresSecrets: [], sideEffects: 'none', iam: [] });",
  'export const handler = createToolHandler(defineTool(spec, async () => ({ value: null })));',
].join('\n');

/** The module every REST connector tool is built on (functions/runtime/http/). */
const REST_CONNECTOR_MODULE = 'functions/runtime/http/connector.ts';

/** Whether a bundle is a REST connector tool's: it holds the shared connector module. */
export function isRestToolBundle(bundled: FunctionBundle): boolean {
  return Object.keys(bundled.metafile.inputs).some((input) => input.endsWith(REST_CONNECTOR_MODULE));
}

/**
 * The baseline bundle of a function: the SDK clients it needs for its own work
 * ({@link ownSdkClientsIn}), nothing else — not the platform's secret and
 * credential clients, which a call loads only when it needs them. A REST
 * connector tool's own client is the platform's shared HTTP client, inseparable
 * from its fixed part (docs/rest-connectors.md): its baseline is
 * {@link PLATFORM_ONLY_SOURCE}, so the ratio is what the connector adds.
 */
export async function baselineBundle(
  bundled: FunctionBundle,
): Promise<{ bundle: FunctionBundle; clients: string[] }> {
  if (isRestToolBundle(bundled)) {
    return {
      bundle: await bundle('platform-only.baseline', { contents: PLATFORM_ONLY_SOURCE }),
      clients: ['the platform (shared HTTP client)'],
    };
  }
  const clients = ownSdkClientsIn(bundled, bundled.entry);
  return { bundle: await bundle(`${bundled.name}.baseline`, { contents: baselineSource(clients) }), clients };
}

async function requireMs(file: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { stdout } = await run(process.execPath, ['-e', REQUIRE_TIMER, file], { env });
  const ms = Number(stdout);
  if (!Number.isFinite(ms)) throw new Error(`Timing ${file} printed ${JSON.stringify(stdout)}`);
  return ms;
}

/** Median CPU times of requiring a function bundle and its baseline, and their ratio. */
export interface ColdStart {
  readonly functionMs: number;
  readonly baselineMs: number;
  /** functionMs / baselineMs. */
  readonly ratio: number;
}

/**
 * Requires `bundled` and `baseline` in `runs` fresh processes each, alternating so
 * both see the same machine load, and compares the medians.
 *
 * @param env - the environment of each process (the function's load-time configuration).
 */
export async function measureColdStart(
  bundled: FunctionBundle,
  baseline: FunctionBundle,
  env: NodeJS.ProcessEnv,
  runs: number = DEFAULT_COLD_START_RUNS,
): Promise<ColdStart> {
  const own: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < runs; i++) {
    own.push(await requireMs(bundled.file, env));
    base.push(await requireMs(baseline.file, env));
  }
  const functionMs = quantile(own, 0.5);
  const baselineMs = quantile(base, 0.5);
  return { functionMs, baselineMs, ratio: functionMs / baselineMs };
}
