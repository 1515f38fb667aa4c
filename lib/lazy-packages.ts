import * as path from 'node:path';

/**
 * A package kept out of a function's bundle file: the function's code requires
 * it only on a path few invocations take (the dispatcher's MCP SDK, on MCP
 * requests of its function URL), and code in the bundle file is compiled at
 * every cold start even when it is never run. The package's modules the code
 * imports are bundled together into one file of the asset,
 * `node_modules/<name>/etp-lazy-bundle.js`, evaluated on the first `require` of
 * any of them; each module path gets a stub there re-exporting its part, so
 * Node's own resolution from `index.js` finds it. One bundle, so the modules
 * share one copy of the package's internals (its classes and schemas), and none
 * of the project's code is in it: the project's classes exist once, in
 * `index.js`.
 */
export interface LazyPackage {
  /** The package name (`@modelcontextprotocol/sdk`); esbuild marks it and every subpath external. */
  readonly name: string;
  /**
   * The module subpaths the function's code imports (`server/index.js` for
   * `@modelcontextprotocol/sdk/server/index.js`): exactly those, the bundling
   * test checks the function's bundle requires no other.
   */
  readonly modules: readonly string[];
}

/** The file, under `node_modules/<name>/`, holding a lazy package's bundled modules. */
export const LAZY_BUNDLE_FILE = 'etp-lazy-bundle.js';

/**
 * The MCP SDK (with its zod, ajv and fast-uri: about 310 KB of the dispatcher's
 * 1.34 MB bundle, the most of its cold start above its own SDK clients) is
 * loaded only for MCP requests on the function URL (adapters/route.ts).
 */
export const DISPATCHER_LAZY_PACKAGES: readonly LazyPackage[] = [
  {
    name: '@modelcontextprotocol/sdk',
    modules: ['server/index.js', 'server/webStandardStreamableHttp.js', 'types.js'],
  },
];

/** The repository root, where esbuild resolves the packages from (the lockfile's versions). */
const PROJECT_ROOT = path.join(__dirname, '..');

/** Quotes a value for bash (single quotes; an embedded quote closed, escaped and reopened). */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The bundle's entry: each module's namespace under its index (`export * as m0 from '<name>/<module>'`). */
export function lazyBundleEntry(pkg: LazyPackage): string {
  return pkg.modules.map((module, i) => `export * as m${i} from '${pkg.name}/${module}';`).join('\n');
}

/** The stub at `node_modules/<name>/<module>` for each module: its part of {@link LAZY_BUNDLE_FILE}. */
export function lazyModuleStubs(pkg: LazyPackage): { readonly file: string; readonly contents: string }[] {
  return pkg.modules.map((module, i) => {
    const toBundle = path.posix.relative(path.posix.dirname(module), LAZY_BUNDLE_FILE);
    const specifier = toBundle.startsWith('../') ? toBundle : `./${toBundle}`;
    return {
      file: module,
      contents: `module.exports = require(${JSON.stringify(specifier)}).m${i};\n`,
    };
  });
}

/**
 * Bash commands (NodejsFunction's `afterBundling` hook, run in the project root)
 * that write each package's {@link LAZY_BUNDLE_FILE} and stubs under
 * `<outputDir>/node_modules/`, bundled as the function itself is (minified,
 * CommonJS, `keepNames`, node24, a linked source map without sources content).
 */
export function lazyPackageCommands(packages: readonly LazyPackage[], outputDir: string): string[] {
  const esbuild = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'esbuild');
  return packages.flatMap((pkg) => {
    const dir = path.join(outputDir, 'node_modules', pkg.name);
    const bundleArgs = [
      '--bundle',
      '--platform=node',
      '--format=cjs',
      '--target=node24',
      '--minify',
      '--keep-names',
      '--sourcemap',
      '--sources-content=false',
      '--log-level=error',
      `--sourcefile=${pkg.name}/${LAZY_BUNDLE_FILE}`,
      `--outfile=${path.join(dir, LAZY_BUNDLE_FILE)}`,
    ];
    return [
      `printf '%s' ${shellQuote(lazyBundleEntry(pkg))} | ${shellQuote(esbuild)} ${bundleArgs.map(shellQuote).join(' ')}`,
      ...lazyModuleStubs(pkg).flatMap(({ file, contents }) => {
        const target = path.join(dir, file);
        return [
          `mkdir -p ${shellQuote(path.dirname(target))}`,
          `printf '%s' ${shellQuote(contents)} > ${shellQuote(target)}`,
        ];
      }),
    ];
  });
}
