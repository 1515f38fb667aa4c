/**
 * What the entry points cost the dispatcher (`npx tsx bench/entry-points.ts`):
 * its bundle file's size and the size of the MCP SDK bundled apart into the
 * asset's `node_modules` (lib/lazy-packages.ts), the load time of the bundle file
 * (every caller's cold start: the MCP module is neither evaluated nor compiled),
 * and the first MCP request on the function URL (which loads it). Each sample
 * runs in a fresh Node process, as a cold Lambda container would.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { LAZY_BUNDLE_FILE } from '../lib/lazy-packages';
import { bundle, lambdaEntries } from './bundles';
import { kib, quantile } from './report';

/** Samples per measured figure. */
const RUNS = 9;

/** The script a child runs: load the bundle, optionally answer one MCP `initialize` over the function URL; print ms. */
function childScript(file: string, withMcp: boolean): string {
  const event = {
    version: '2.0',
    rawPath: '/mcp',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    requestContext: {
      domainName: 'bench.local',
      http: { method: 'POST' },
      requestId: 'bench',
      accountId: '123456789012',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
    isBase64Encoded: false,
  };
  return `
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    const t0 = performance.now();
    const { handler } = require(${JSON.stringify(file)});
    const loaded = performance.now() - t0;
    const context = { getRemainingTimeInMillis: () => 30000, awsRequestId: 'bench', functionName: 'bench' };
    (async () => {
      let first = 0;
      if (${withMcp}) {
        const t1 = performance.now();
        const response = await handler(${JSON.stringify(event)}, context);
        if (response.statusCode !== 200) throw new Error('MCP initialize answered ' + response.statusCode);
        first = performance.now() - t1;
      }
      process.stdout.write(JSON.stringify({ loaded, first }));
    })();`;
}

/** Measures and prints the figures. */
export async function measureEntryPoints(): Promise<string> {
  const entry = lambdaEntries().find((candidate) => candidate.name === 'dispatcher');
  if (!entry) throw new Error('no dispatcher entry');
  const config = JSON.parse(Object.values(entry.define ?? {})[0] ?? '{}') as Record<string, unknown>;
  const bundled = await bundle('dispatcher-entry-points', {
    entry: entry.entry,
    lazyPackages: entry.lazyPackages,
    define: {
      ETP_DISPATCHER_CONFIG: JSON.stringify({
        ...config,
        accessProfiles: { bench: { tenant: 'bench', tools: ['aws_ec2_inventory'] } },
        entryPoints: { mcpFunctionUrl: 'bench' },
      }),
    },
  });
  const mcpBytes = (entry.lazyPackages ?? []).reduce(
    (sum, pkg) =>
      sum + statSync(path.join(path.dirname(bundled.file), 'node_modules', pkg.name, LAZY_BUNDLE_FILE)).size,
    0,
  );
  const samples = (withMcp: boolean) =>
    Array.from(
      { length: RUNS },
      () =>
        JSON.parse(
          execFileSync(process.execPath, ['-e', childScript(bundled.file, withMcp)], {
            env: { ...process.env, AWS_REGION: 'eu-west-1' },
          }).toString(),
        ) as { loaded: number; first: number },
    );
  const plain = samples(false);
  const mcp = samples(true);
  const median = (values: number[]) => quantile(values, 0.5).toFixed(1);
  return [
    `dispatcher bundle file: ${kib(bundled.bytes)}; MCP SDK bundled apart (loaded by MCP requests only): ${kib(mcpBytes)}`,
    `bundle load (every caller's cold start), median of ${RUNS}: ${median(plain.map((s) => s.loaded))} ms`,
    `first MCP initialize on the function URL (lazy MCP load), median of ${RUNS}: ${median(mcp.map((s) => s.first))} ms`,
  ].join('\n');
}

if (require.main === module) {
  void measureEntryPoints().then((text) => process.stdout.write(`${text}\n`));
}
