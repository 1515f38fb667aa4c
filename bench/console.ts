/**
 * `npm run bench:console`: the console's two targets (issue 23, "Small and fast").
 *
 * 1. First load: every file the page fetches before it shows anything (index.html,
 *    its ES modules, app.css, favicon.svg, config.json), gzipped as `etp console` serves
 *    them, against 100 KB. The page has no build step: the files are measured as shipped.
 * 2. API latency on 127.0.0.1: each read route of `etp console`'s server over HTTP,
 *    against local stores holding 3 tenants × 20 finished runs with findings,
 *    p50 and p95 against p50 ≤ 50 ms.
 * 3. The API function's bundle (minified, as the CDK bundles it), for information.
 *
 * A benchmark, not a test: it prints figures and ratios and exits 0.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { localConsoleBackend } from '../bin/local/console-backend';
import { CONSOLE_WEB_DIR, startConsoleServer } from '../bin/local/console-server';
import { consoleCatalog } from '../functions/console/catalog-view';
import { InMemorySecretReferenceStore } from '../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../lib/scenarios/loader';

const FIRST_LOAD_BUDGET_BYTES = 100 * 1024;
const API_P50_BUDGET_MS = 50;
const TENANTS = ['acme', 'globex', 'initech'];
const RUNS_PER_TENANT = 20;
const REQUESTS_PER_ROUTE = 200;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function firstLoad(): { files: { name: string; bytes: number; gzip: number }[]; total: number } {
  // Every file of the page: index.html, its modules (all loaded before the first page shows), CSS, icon.
  const names = readdirSync(CONSOLE_WEB_DIR).sort();
  const files = names.map((name) => {
    const body = readFileSync(path.join(CONSOLE_WEB_DIR, name));
    return { name, bytes: body.byteLength, gzip: gzipSync(body).byteLength };
  });
  const config = Buffer.from(JSON.stringify({ auth: 'none' }));
  files.push({ name: 'config.json', bytes: config.byteLength, gzip: gzipSync(config).byteLength });
  return { files, total: files.reduce((sum, file) => sum + file.gzip, 0) };
}

function writeRuns(localDir: string): void {
  for (const tenant of TENANTS) {
    for (let index = 0; index < RUNS_PER_TENANT; index++) {
      const runId = `run-202611${String(1 + (index % 28)).padStart(2, '0')}T0000${String(index).padStart(2, '0')}Z-bench`;
      const root = path.join(localDir, 'runs', tenant, 'aws_pulse', runId);
      const findings = Array.from({ length: 50 }, (_, n) => ({
        id: `eip_unattached:${n.toString(16).padStart(16, '0')}`,
        check: 'eip_unattached',
        severity: 'medium',
        resource: `eipalloc-${n}`,
        region: 'eu-west-1',
        title: 'Elastic IP not attached',
        tool: 'aws_eips_audit',
      }));
      const files: Record<string, unknown> = {
        'levels/collect/findings.json': {
          runId,
          level: 'collect',
          findings,
          coverage: {},
          diff: { new: findings.slice(0, 10).map((f) => f.id), unchanged: [], resolved: [], unknown: [] },
        },
        'levels/analyse/finish.json': { summary: 'Report text. '.repeat(100) },
        'summary.json': {
          scenario: 'aws_pulse',
          runId,
          tenant,
          outcome: 'succeeded',
          startedAt: `2026-11-01T00:00:${String(index).padStart(2, '0')}.000Z`,
          endedAt: '2026-11-01T00:01:00.000Z',
          levels: [],
          counts: {},
          cost: { totalUsd: 0.01, excludingModelUsd: 0.001, parts: [], notes: [] },
        },
      };
      for (const [file, value] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), JSON.stringify(value));
      }
    }
  }
}

async function apiLatency(): Promise<{ route: string; p50: number; p95: number }[]> {
  const localDir = mkdtempSync(path.join(tmpdir(), 'etp-console-bench-'));
  writeRuns(localDir);
  const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
  const backend = localConsoleBackend({
    localDir,
    references: new InMemorySecretReferenceStore(
      TENANTS.flatMap((tenant) =>
        ['aws_default', 'slack_default'].map((name) => ({
          tenant_id: tenant,
          secret_name: name,
          ref_kind: 'env' as const,
          ref_value: `ETP_${tenant.toUpperCase()}_${name.toUpperCase()}`,
        })),
      ),
    ),
    scenarios,
    catalog: consoleCatalog(toolCatalog, scenarios),
  });
  const server = await startConsoleServer(backend, { name: 'bench', tenants: '*' });
  const run = `run-20261101T000000Z-bench`;
  const routes = [
    'api/session',
    'api/catalog',
    'api/tenants/acme/secrets',
    'api/tenants/acme/runs',
    `api/tenants/acme/runs/aws_pulse/${run}`,
    `api/tenants/acme/runs/aws_pulse/${run}/events`,
    'api/tenants/acme/questions',
  ];
  const figures: { route: string; p50: number; p95: number }[] = [];
  try {
    for (const route of routes) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS_PER_ROUTE + 10; i++) {
        const started = performance.now();
        const response = await fetch(`${server.url}${route}`);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${route}: ${response.status}`);
        if (i >= 10) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      figures.push({ route: `/${route}`, p50: percentile(times, 50), p95: percentile(times, 95) });
    }
  } finally {
    await server.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
  return figures;
}

async function apiBundleBytes(): Promise<number> {
  const result = await build({
    entryPoints: [path.join(__dirname, '../functions/console/handler.ts')],
    bundle: true,
    minify: true,
    keepNames: true,
    platform: 'node',
    target: 'node24',
    write: false,
    define: { ETP_CONSOLE_CATALOG: '{"tools":[],"scenarios":[]}' },
    logLevel: 'silent',
  });
  return result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
}

async function main(): Promise<void> {
  const load = firstLoad();
  console.log('Console first load (gzipped as served):');
  for (const file of load.files)
    console.log(`  ${file.name.padEnd(12)} ${file.bytes} B -> ${file.gzip} B gzip`);
  console.log(
    `  total ${(load.total / 1024).toFixed(1)} KB of ${FIRST_LOAD_BUDGET_BYTES / 1024} KB ` +
      `(ratio ${(load.total / FIRST_LOAD_BUDGET_BYTES).toFixed(3)}, target <= 1)`,
  );
  console.log(
    `\nConsole API on 127.0.0.1 (${REQUESTS_PER_ROUTE} requests per route, ${TENANTS.length} tenants x ${RUNS_PER_TENANT} runs):`,
  );
  for (const figure of await apiLatency()) {
    console.log(
      `  ${figure.route.padEnd(58)} p50 ${figure.p50.toFixed(2)} ms  p95 ${figure.p95.toFixed(2)} ms  ` +
        `(p50 ratio ${(figure.p50 / API_P50_BUDGET_MS).toFixed(3)}, target <= 1)`,
    );
  }
  console.log(`\nConsole API function bundle: ${((await apiBundleBytes()) / 1024).toFixed(0)} KB minified`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
