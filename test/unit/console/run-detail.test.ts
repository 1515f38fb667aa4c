/**
 * A run's page reads each level's findings and report at their own paths: an organization
 * level's per-account files (`levels/<level>/accounts/…`) come first in path order and fill
 * the listed files, which say they are only the first ones. Local workspace, temporary dir.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { localConsoleBackend } from '../../../bin/local/console-backend';
import { consoleCatalog } from '../../../functions/console/catalog-view';
import { handleConsoleRequest } from '../../../functions/console/routes';
import { MAX_LISTED_FILES, type RunDetail } from '../../../functions/console/runs';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../../lib/scenarios/loader';

const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
const RUN = 'run-20261101T000000Z-org';
let localDir: string;

function write(file: string, value: unknown): void {
  const full = path.join(localDir, 'runs', 'acme', 'aws_pulse_org', RUN, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, JSON.stringify(value));
}

const finding = {
  id: 'eip_unattached:1',
  check: 'eip_unattached',
  severity: 'medium',
  resource: 'eipalloc-1',
  region: 'eu-west-1',
  title: 'Elastic IP not attached',
  tool: 'aws_eips_audit',
};

beforeEach(() => {
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-console-detail-'));
});
afterEach(() => {
  rmSync(localDir, { recursive: true, force: true });
});

async function detail(files: number): Promise<RunDetail> {
  for (let account = 0; account < files; account++) {
    write(`levels/collect/accounts/${String(100000000000 + account)}.json`, {});
  }
  write('levels/collect/findings.json', {
    findings: [finding],
    diff: { new: [finding.id], unchanged: [], resolved: [], unknown: [] },
  });
  write('levels/report/finish.json', { summary: 'the organization report' });
  const backend = localConsoleBackend({
    localDir,
    references: new InMemorySecretReferenceStore(),
    scenarios,
    catalog: consoleCatalog(toolCatalog, scenarios),
  });
  const response = await handleConsoleRequest(
    {
      method: 'GET',
      path: `/api/tenants/acme/runs/aws_pulse_org/${RUN}`,
      query: {},
      user: { name: 'tester', tenants: ['acme'] },
    },
    backend,
  );
  expect(response.status).toBe(200);
  return response.body as RunDetail;
}

describe("a run's page", () => {
  // The first case writes MAX_LISTED_FILES + 10 files to a real directory: under 1 s alone, past
  // Jest's default 5 s on a machine busy with the rest of the suite (seen in CI).
  jest.setTimeout(30_000);

  it('shows the findings and the report of a run with more files than it lists, and says the list is cut', async () => {
    // Act
    const run = await detail(MAX_LISTED_FILES + 10);

    // Assess
    expect(run.findings.collect?.map((f) => [f.id, f.status])).toEqual([['eip_unattached:1', 'new']]);
    expect(run.reports).toEqual({ report: 'the organization report' });
    expect(run.files).toHaveLength(MAX_LISTED_FILES);
    expect(run.filesTruncated).toBe(true);
  });

  it('lists every file, and says nothing is cut, when they fit', async () => {
    // Act
    const run = await detail(3);

    // Assess
    expect(run.files.map((file) => file.path)).toHaveLength(5);
    expect(run.filesTruncated).toBeUndefined();
    expect(Object.keys(run.findings)).toEqual(['collect']);
  });
});
