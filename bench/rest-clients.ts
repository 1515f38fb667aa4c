/**
 * Octokit and pdjs against the shared REST client, by cold start: each GitHub
 * and PagerDuty tool's bundle is required in fresh processes beside a bundle of
 * only the vendor's client (`@octokit/core` with the paginate, retry and
 * throttling plugins; `@pagerduty/pdjs`), constructed once, as a function using
 * it would at load. The clients are not dependencies of the project: install
 * them in a directory of their own and name it in REST_CLIENTS_DIR.
 *
 *   mkdir -p /tmp/rest-clients && cd /tmp/rest-clients && npm init -y >/dev/null &&
 *     npm install -E @octokit/core@7.0.6 @octokit/plugin-paginate-rest@14.0.0 \
 *       @octokit/plugin-retry@8.0.3 @octokit/plugin-throttling@11.0.3 @pagerduty/pdjs@2.2.4
 *   REST_CLIENTS_DIR=/tmp/rest-clients npx tsx bench/rest-clients.ts
 *
 * Prints one row per tool: its bundle's KiB and require time, the client-only
 * bundle's and the ratio (the target: at most 1.10), and the ratio to
 * the platform's own fixed part (the tool harness, Powertools, the secret and
 * idempotency clients every function tool holds, with a tool that calls nothing):
 * what the connector itself adds. The vendor client would come on top of that.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { bundle, type FunctionBundle } from './bundles';
import { measureColdStart, PLATFORM_ONLY_SOURCE } from './cold-start';

const clientsDir = process.env.REST_CLIENTS_DIR;
if (!clientsDir) {
  process.stderr.write(
    'Set REST_CLIENTS_DIR to a directory where the vendor clients are installed (see the header).\n',
  );
  process.exit(2);
}

const CLIENT_ONLY: Readonly<Record<string, string>> = {
  octokit: [
    "const { Octokit } = require('@octokit/core');",
    "const { paginateRest } = require('@octokit/plugin-paginate-rest');",
    "const { retry } = require('@octokit/plugin-retry');",
    "const { throttling } = require('@octokit/plugin-throttling');",
    'const Client = Octokit.plugin(paginateRest, retry, throttling);',
    "module.exports = new Client({ auth: 'ghp_baseline', throttle: { onRateLimit: () => false, onSecondaryRateLimit: () => false } });",
  ].join('\n'),
  pdjs: "const { api } = require('@pagerduty/pdjs');\nmodule.exports = api({ token: 'baseline-token' });",
};

async function clientBundle(name: string): Promise<FunctionBundle> {
  const file = path.join(clientsDir as string, 'bundles', name, 'index.js');
  const result = await build({
    stdin: { contents: CLIENT_ONLY[name] as string, resolveDir: clientsDir as string, loader: 'js' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    keepNames: true,
    outfile: file,
    metafile: true,
    logLevel: 'silent',
  });
  const bytes = Object.values(result.metafile.outputs).reduce((sum, out) => sum + out.bytes, 0);
  return { name, entry: '(client only)', file, bytes, metafile: result.metafile };
}

const TOOLS: readonly [string, string][] = [
  ['github/merged-pulls', 'octokit'],
  ['github/recent-changes', 'octokit'],
  ['github/security-alerts', 'octokit'],
  ['github/create-issue', 'octokit'],
  ['pagerduty/incidents', 'pdjs'],
  ['pagerduty/incident', 'pdjs'],
  ['pagerduty/oncall', 'pdjs'],
  ['pagerduty/add-note', 'pdjs'],
];

async function main(): Promise<void> {
  const clients = { octokit: await clientBundle('octokit'), pdjs: await clientBundle('pdjs') };
  const platform = await bundle('platform-only', { contents: PLATFORM_ONLY_SOURCE });
  const runs = Number(process.env.COLD_START_RUNS ?? 15);
  process.stdout.write(
    'tool\tKiB\trequire ms\tclient\tclient KiB\tclient ms\tratio\tplatform KiB\tplatform ms\tratio to platform\n',
  );
  for (const [implementation, client] of TOOLS) {
    const own = await bundle(implementation.replace('/', '-'), {
      entry: `functions/tools/${implementation}.ts`,
    });
    const base = clients[client as keyof typeof clients];
    const figures = await measureColdStart(own, base, { ...process.env }, runs);
    const fixed = await measureColdStart(own, platform, { ...process.env }, runs);
    process.stdout.write(
      `${[
        implementation,
        (own.bytes / 1024).toFixed(0),
        figures.functionMs.toFixed(1),
        client,
        (base.bytes / 1024).toFixed(0),
        figures.baselineMs.toFixed(1),
        figures.ratio.toFixed(2),
        (platform.bytes / 1024).toFixed(0),
        fixed.baselineMs.toFixed(1),
        fixed.ratio.toFixed(2),
      ].join('\t')}\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
