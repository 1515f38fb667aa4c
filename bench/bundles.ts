/**
 * Bundles each Lambda function the way the CDK's NodejsFunction does (esbuild,
 * local, no Docker) and reads esbuild's metafile: output size, bytes per
 * package, and the AWS SDK service clients a bundle holds.
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { DISPATCHER_CONFIG_GLOBAL } from '../functions/dispatcher/config';
import { ENGINE_CONFIG_GLOBAL } from '../functions/engine/config';
import { toolCatalog } from '../functions/tools/catalog';
import { DISPATCHER_LAZY_PACKAGES, type LazyPackage, lazyPackageCommands } from '../lib/lazy-packages';
import { SOURCE_MAP_STACKS_MODULE } from '../lib/platform-function';
import { engineConfig, functionMemory } from '../lib/scenarios/engine-config';
import { levelWhitelists } from '../lib/scenarios/level-tables';
import { loadScenarios } from '../lib/scenarios/loader';
import { toolEntryPath } from '../lib/tool-function';

/** The repository root (esbuild's working directory, as the CDK's `projectRoot`). */
export const PROJECT_ROOT = path.join(__dirname, '..');

/** Where the report is written (gitignored). */
export const OUT_DIR = path.join(__dirname, 'out');

/**
 * Where bundles are written: outside the repository, because Biome checks every
 * file under bench/ and would lint minified output.
 */
export const BUNDLES_DIR = path.join(os.tmpdir(), 'etp-bench-bundles');

/**
 * esbuild options equivalent to the platform's NodejsFunction bundling
 * (lib/platform-function.ts: minify, source maps without sources content,
 * keepNames, target node24, CommonJS, SDK v3 bundled, i.e. no externals, and
 * SOURCE_MAP_STACKS_MODULE injected), in esbuild's JS API form, as the CDK
 * translates them into esbuild arguments (`sourceMap: true` becomes
 * `--sourcemap`: a linked map, which the injected module reads on the first stack
 * trace formatted, never at load). Baselines are bundled with the same options.
 * A function's lazy packages (lib/lazy-packages.ts) are external and written next
 * to it by the very commands the CDK runs after bundling. lib/ keeps its options
 * inside the construct as CDK BundlingOptions, so they are restated here once;
 * keep the two in step.
 */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  sourcesContent: false,
  inject: [SOURCE_MAP_STACKS_MODULE],
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  external: [],
  logLevel: 'error',
} as const satisfies BuildOptions;

/** A function to deploy: the dispatcher, or a tool placed in its own function. */
export interface LambdaEntry {
  /** `dispatcher` or the tool's name. */
  readonly name: string;
  /** Absolute path of the TypeScript entry (exports `handler`). */
  readonly entry: string;
  /** esbuild `define`s, as the CDK bundles the function with them (the dispatcher's configuration). */
  readonly define?: Readonly<Record<string, string>>;
  /** Packages bundled apart into the asset's `node_modules`, as the CDK does for the function (lib/lazy-packages.ts). */
  readonly lazyPackages?: readonly LazyPackage[];
}

/** A bundled function. */
export interface FunctionBundle extends LambdaEntry {
  /** Absolute path of the bundle (`index.js`). */
  readonly file: string;
  /** Size of the minified bundle, source map excluded, in bytes. */
  readonly bytes: number;
  readonly metafile: Metafile;
}

/**
 * The dispatcher and the scenario engine (each bundled with the configuration the
 * CDK gives it, from the scenario files) and every function tool of the catalog.
 */
export function lambdaEntries(): LambdaEntry[] {
  const config = {
    scenarios: levelWhitelists(loadScenarios(toolCatalog)),
    toolFunctionNamePrefix: 'etp-',
  };
  const scenarios = loadScenarios(toolCatalog);
  return [
    {
      name: 'dispatcher',
      entry: path.join(PROJECT_ROOT, 'functions/dispatcher/handler.ts'),
      define: { [DISPATCHER_CONFIG_GLOBAL]: JSON.stringify(config) },
      lazyPackages: DISPATCHER_LAZY_PACKAGES,
    },
    {
      name: 'engine',
      entry: path.join(PROJECT_ROOT, 'functions/engine/handler.ts'),
      define: {
        [ENGINE_CONFIG_GLOBAL]: JSON.stringify(engineConfig(scenarios, functionMemory(toolCatalog))),
      },
    },
    ...toolCatalog.functionTools().map((tool) => ({ name: tool.spec.name, entry: toolEntryPath(tool) })),
  ];
}

/**
 * Bundles one entry into `<BUNDLES_DIR>/<name>/index.js` (entry given as a file,
 * or as source text resolved from the project root), its lazy packages into
 * `<BUNDLES_DIR>/<name>/node_modules/`.
 */
export async function bundle(
  name: string,
  source: Pick<LambdaEntry, 'entry' | 'define' | 'lazyPackages'> | { readonly contents: string },
): Promise<FunctionBundle> {
  const file = path.join(BUNDLES_DIR, name, 'index.js');
  const lazyPackages = ('entry' in source ? source.lazyPackages : undefined) ?? [];
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    ...('entry' in source
      ? { entryPoints: [source.entry], define: { ...source.define } }
      : { stdin: { contents: source.contents, resolveDir: PROJECT_ROOT, loader: 'ts' } }),
    external: lazyPackages.map((pkg) => pkg.name),
    absWorkingDir: PROJECT_ROOT,
    outfile: file,
    metafile: true,
  });
  const output = Object.entries(result.metafile.outputs).find(([out]) => out.endsWith('.js'))?.[1];
  if (!output) throw new Error(`esbuild reported no JavaScript output for ${name}`);
  for (const command of lazyPackageCommands(lazyPackages, path.dirname(file))) {
    execFileSync('bash', ['-c', command], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return {
    name,
    entry: 'entry' in source ? source.entry : '(generated)',
    file,
    bytes: output.bytes,
    metafile: result.metafile,
  };
}

/** The package an input path belongs to (`@aws-sdk/client-s3`), or `(project code)`. */
export function packageOf(input: string): string {
  const marker = 'node_modules/';
  const at = input.lastIndexOf(marker);
  if (at < 0) return '(project code)';
  const [first, second] = input.slice(at + marker.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : (first ?? input);
}

/** Bytes each package contributes to the bundle's JavaScript output, largest first. */
export function bytesByPackage(bundled: FunctionBundle): { name: string; bytes: number }[] {
  const totals = new Map<string, number>();
  for (const output of Object.values(bundled.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .filter((p) => p.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

/** Slack's SDK packages a function may hold, counted as SDK clients like AWS's. */
export const SLACK_SDK_CLIENTS: readonly string[] = ['@slack/web-api', '@slack/webhook'];

/**
 * Modules through which the platform reaches its own clients on a tool's behalf:
 * secrets (the reference table in DynamoDB, Secrets Manager) and credentials (STS).
 */
const PLATFORM_CLIENT_MODULES = /^functions\/runtime\/(?:secrets\/|aws\/credentials\.ts$)/;

function isSdkClient(name: string): boolean {
  return name.startsWith('@aws-sdk/client-') || SLACK_SDK_CLIENTS.includes(name);
}

/**
 * The SDK clients a function needs for its own work: those its entry reaches
 * without passing through the platform's secret and credential modules (whose
 * clients a call loads only when it needs them). The baseline a function's cold
 * start is measured against holds these and nothing else, so the platform's
 * clients count against the function, as they would in Lambda's init phase if
 * they were loaded there.
 */
export function ownSdkClientsIn(bundled: FunctionBundle, entry: string): string[] {
  const { inputs } = bundled.metafile;
  const start = path.relative(PROJECT_ROOT, entry);
  const seen = new Set<string>([start]);
  const pending = [start];
  const clients = new Set<string>();
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const imported of inputs[file]?.imports ?? []) {
      if (seen.has(imported.path) || PLATFORM_CLIENT_MODULES.test(imported.path)) continue;
      seen.add(imported.path);
      const name = packageOf(imported.path);
      if (isSdkClient(name)) clients.add(name);
      else pending.push(imported.path);
    }
  }
  return [...clients].sort();
}

/** The AWS SDK v3 service client packages (`@aws-sdk/client-*`) and Slack's with code in the bundle, sorted. */
export function sdkClientsIn(bundled: FunctionBundle): string[] {
  return bytesByPackage(bundled)
    .map((p) => p.name)
    .filter(isSdkClient)
    .sort();
}
