/**
 * CLI start-up (issue 21, "Start-up"), each command side by side with its
 * baseline in the same run, alternating, median of {@link STARTUP_RUNS} runs each:
 *
 * - `etp --version` against `node -e ""` (target ≤ 1.5×: the version needs no work);
 * - `etp tools list` against `bench/catalog-only.js`, which does its work alone
 *   (loads the catalog through tsx and prints it; target ≤ 1.5×);
 * - an MCP client's time from spawning `etp mcp` to the `tools/list` result,
 *   against `bench/minimal-mcp-server.js` on the same SDK serving the same
 *   tools (the very list `etp mcp` returned; target ≤ 1.5×).
 *
 * Every process runs on the Node running the bench (the project's Node 24 under
 * `npm run bench`). `npm run bench` includes this section; `npx tsx bench/startup.ts`
 * prints it alone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { atMost, type Figure, formatReport, quantile, type Section } from './report';

/** Runs of each command (odd: the median is one run). */
export const STARTUP_RUNS = 7;
/** Start-up target: each command within 1.5× its baseline (issue 21). */
export const STARTUP_RATIO_TARGET = 1.5;

const ROOT = path.join(__dirname, '..');
const ETP = path.join(ROOT, 'bin/etp.js');
const OUT_DIR = path.join(__dirname, 'out');

/** The environment of every measured process: no credentials, no instance metadata lookups. */
const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  AWS_REGION: 'eu-west-1',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_CONFIG_FILE: path.join(OUT_DIR, 'no-such-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: path.join(OUT_DIR, 'no-such-aws-credentials'),
};

/** Wall time of `node <args>` until it exits, ms. @throws Error on a non-zero exit. */
function timeProcess(args: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** What an MCP client saw: the time from spawn to the `tools/list` result, and the tools. */
async function timeToToolsList(args: readonly string[]): Promise<{ ms: number; tools: unknown[] }> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args],
    cwd: ROOT,
    env: ENV as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'etp-startup-bench', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  return { ms, tools };
}

/** Median time of `measure` and of `baseline`, measured alternately. */
async function sideBySide(
  measure: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<{ measured: number; baseline: number }> {
  // One unmeasured run each: tsx's transform cache and the OS file cache are warm for both.
  await measure();
  await baseline();
  const measured: number[] = [];
  const base: number[] = [];
  for (let run = 0; run < STARTUP_RUNS; run++) {
    measured.push(await measure());
    base.push(await baseline());
  }
  return { measured: quantile(measured, 0.5), baseline: quantile(base, 0.5) };
}

function figures(
  label: string,
  baselineLabel: string,
  times: { measured: number; baseline: number },
): Figure[] {
  return [
    { name: `${label} (median ms)`, value: times.measured.toFixed(0) },
    { name: `${baselineLabel} (median ms)`, value: times.baseline.toFixed(0) },
    atMost(`${label} / baseline`, times.measured / times.baseline, STARTUP_RATIO_TARGET),
  ];
}

/** The start-up section of the bench report. */
export async function measureStartup(): Promise<Section> {
  mkdirSync(OUT_DIR, { recursive: true });
  const version = await sideBySide(
    () => timeProcess([ETP, '--version']),
    () => timeProcess(['-e', '']),
  );
  const list = await sideBySide(
    () => timeProcess([ETP, 'tools', 'list']),
    () => timeProcess([path.join(__dirname, 'catalog-only.js')]),
  );
  const etpMcp = [ETP, 'mcp', '--tenant', 'default'];
  // Outside the project: a bench run leaves nothing for the linter to format.
  const toolsFile = path.join(os.tmpdir(), `etp-bench-mcp-tools-${process.pid}.json`);
  const served = await timeToToolsList(etpMcp);
  writeFileSync(toolsFile, JSON.stringify(served.tools));
  const mcp = await sideBySide(
    async () => (await timeToToolsList(etpMcp)).ms,
    async () => (await timeToToolsList([path.join(__dirname, 'minimal-mcp-server.js'), toolsFile])).ms,
  );
  return {
    title: 'CLI start-up (side by side, alternating)',
    figures: [
      ...figures('etp --version', 'node -e ""', version),
      ...figures('etp tools list', 'catalog-only.js', list),
      ...figures(`etp mcp to tools/list (${served.tools.length} tools)`, 'minimal SDK server', mcp),
    ],
    notes: [
      `median of ${STARTUP_RUNS} runs each, on ${process.execPath}; reproduce: npx tsx bench/startup.ts`,
    ],
  };
}

if (require.main === module) {
  measureStartup()
    .then((section) =>
      process.stdout.write(formatReport([`etp start-up, node ${process.version}`], [section])),
    )
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
