/**
 * The runs list pages: every run of a tenant is reachable, MAX_LISTED_RUNS at a time, newest
 * first, through the `next` cursor each page returns (passed back as `before`), on the local
 * console's own stores (run directories under a temporary local dir).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { localConsoleBackend } from '../../../bin/local/console-backend';
import { consoleCatalog } from '../../../functions/console/catalog-view';
import { handleConsoleRequest } from '../../../functions/console/routes';
import { MAX_LISTED_RUNS } from '../../../functions/console/runs';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../../lib/scenarios/loader';

const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
const user = { name: 'tester', tenants: ['acme'] };

let localDir: string;
let backend: ReturnType<typeof localConsoleBackend>;

/** `count` runs of `scenario` for acme, a second apart from `from` (seconds after midnight), each with one workspace file. */
function writeRuns(scenario: string, count: number, from: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const seconds = from + index * 2;
    const stamp = `20261101T${String(Math.floor(seconds / 3600)).padStart(2, '0')}${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}${String(seconds % 60).padStart(2, '0')}Z`;
    const runId = `run-${stamp}-${scenario.slice(0, 6)}`;
    const dir = path.join(localDir, 'runs', 'acme', scenario, runId, 'levels', 'collect');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'results.json'), '{}');
    return `${scenario}/${runId}`;
  });
}

async function runsPage(query: Record<string, string>) {
  return handleConsoleRequest({ method: 'GET', path: '/api/tenants/acme/runs', query, user }, backend);
}

/** Every run the pages list, following `next` until there is none, and each page's size. */
async function walk(query: Record<string, string>): Promise<{ listed: string[]; sizes: number[] }> {
  const listed: string[] = [];
  const sizes: number[] = [];
  let before: string | undefined;
  for (let page = 0; page < 20; page++) {
    const response = await runsPage(before === undefined ? query : { ...query, before });
    expect(response.status).toBe(200);
    const body = response.body as { runs: { scenario: string; runId: string }[]; next?: string };
    listed.push(...body.runs.map((run) => `${run.scenario}/${run.runId}`));
    sizes.push(body.runs.length);
    before = body.next;
    if (before === undefined) break;
  }
  return { listed, sizes };
}

const newestFirst = (keys: string[]) =>
  [...keys].sort((a, b) => (b.split('/')[1] ?? '').localeCompare(a.split('/')[1] ?? ''));

beforeEach(() => {
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-console-pages-'));
  backend = localConsoleBackend({
    localDir,
    references: new InMemorySecretReferenceStore(),
    scenarios,
    catalog: consoleCatalog(toolCatalog, scenarios),
  });
});
afterEach(() => {
  rmSync(localDir, { recursive: true, force: true });
});

describe('the runs list', () => {
  it('reaches every run of every scenario, a page at a time, newest first, each run once', async () => {
    // Prepare: 2.4 pages of runs over two scenarios, interleaved in time
    const pulse = writeRuns('aws_pulse', MAX_LISTED_RUNS + 20, 0);
    const incident = writeRuns('incident_response', MAX_LISTED_RUNS, 1);

    // Act
    const { listed, sizes } = await walk({});

    // Assess
    expect(sizes).toEqual([MAX_LISTED_RUNS, MAX_LISTED_RUNS, 20]);
    expect(listed).toEqual(newestFirst([...pulse, ...incident]));
  });

  it("pages one scenario's runs alone", async () => {
    // Prepare
    const pulse = writeRuns('aws_pulse', MAX_LISTED_RUNS + 1, 0);
    writeRuns('incident_response', 3, 1);

    // Act
    const { listed, sizes } = await walk({ scenario: 'aws_pulse' });

    // Assess
    expect(sizes).toEqual([MAX_LISTED_RUNS, 1]);
    expect(listed).toEqual(newestFirst(pulse));
  });

  it('gives no next cursor when one page holds every run', async () => {
    // Prepare
    writeRuns('aws_pulse', MAX_LISTED_RUNS, 0);

    // Act
    const response = await runsPage({});

    // Assess
    expect(response.status).toBe(200);
    expect(Object.keys(response.body as object)).toEqual(['runs']);
  });

  it.each(['aws_pulse', '../aws_pulse/run-1', 'aws_pulse/run-1/x', 'AWS/run-1', 'aws_pulse/run 1'])(
    'refuses the cursor %j with what it accepts',
    async (before) => {
      // Act
      const response = await runsPage({ before });

      // Assess
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'invalid_args',
          message: `before: expected <scenario>/<runId>, the next of a runs page (such as aws_pulse/run-20261101T000000Z-a1b2c3), got ${JSON.stringify(before)}`,
        },
      });
    },
  );
});
