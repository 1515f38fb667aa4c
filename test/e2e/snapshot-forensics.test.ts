import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ReceivedConverse, ScriptedResponse } from '../../bin/local/scripted-model';
import { logger } from '../../functions/runtime/logger';
import { toolCatalog } from '../../functions/tools/catalog';
import type { FindingsDocument } from '../../functions/tools/snapshots/findings/model';
import { findingsKey } from '../../functions/tools/snapshots/findings/store';
import { parseScenarioFile } from '../../lib/scenarios/loader';
import { LocalS3Server } from '../helpers/inventory-s3-server';
import { buildInventoryWorld, DESTINATION, PUBLIC_DESTINATION } from '../helpers/inventory-world';
import {
  firstPrompt,
  type ScenarioHarness,
  startScenarioHarness,
  toolResultsOf,
} from '../helpers/scenario-harness';

/**
 * The snapshot investigation, end to end: the shipped snapshot_forensics levels
 * (with a fixed `since`, as the generated histories end on 2026-03-10) as the CDK
 * synthesizes their state machine, run by the local ASL interpreter; the real
 * dispatcher and snapshot tool handlers; S3 (inventory configurations, reports)
 * a local S3 server on 127.0.0.1; the model a scripted Converse server; the
 * conclusion posted to the local Slack.
 */
const FORENSICS_FILE = path.join(__dirname, '../../functions/scenarios/snapshot_forensics.yaml');
const FORENSICS = readFileSync(FORENSICS_FILE, 'utf8')
  .replace('name: snapshot_forensics', 'name: snapshot_forensics_e2e')
  .replace(
    'args: { regions: "{{input.regions}}" }',
    'args: { sources: ["s3_inventory:photos/daily-csv"], since: "2026-03-10" }',
  );

const server = new LocalS3Server();
let harness: ScenarioHarness;
/** The variables this file sets, as they were before, restored after. */
const saved: Record<string, string | undefined> = {};

jest.setTimeout(60_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  await server.start();
  buildInventoryWorld(server);
  harness = await startScenarioHarness({ files: { 'snapshot_forensics_e2e.yaml': FORENSICS } });
  const variables = {
    // The tools' S3 requests go to the local server (path-style: its endpoint is an IP address) with any keys.
    AWS_ENDPOINT_URL_S3: server.url,
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEE2E000000',
    AWS_SECRET_ACCESS_KEY: 'e2e-secret-access-key-not-a-secret-00000',
    // Findings are kept in the run's workspace, here the harness's local directory.
    ETP_LOCAL_DIR: harness.localDir,
  };
  for (const name of Object.keys(variables)) saved[name] = process.env[name];
  Object.assign(process.env, variables);
}, 120_000);

afterAll(async () => {
  for (const name of ['AWS_ENDPOINT_URL_S3', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'ETP_LOCAL_DIR']) {
    delete process.env[name];
  }
  await harness.stop();
  await server.stop();
});

const call = (...uses: { name: string; input: unknown }[]): ScriptedResponse => ({ tool_use: uses });

describe('snapshot_forensics, end to end through the synthesized state machine', () => {
  it('scans once, lets the agent inspect a finding and diff two reports, refuses a forged findings file, posts the conclusion', async () => {
    // Prepare: the model inspects the first ransomware finding the scan showed it, then diffs the last two reports.
    let inspected = '';
    let fullResult = '';
    const model = (request: ReceivedConverse, index: number): ScriptedResponse => {
      if (index === 0) {
        const prompt = firstPrompt(request);
        fullResult = /full result: (levels\/scan\/\S+\.json)/.exec(prompt)?.[1] ?? 'missing';
        return call({ name: 'read_file', input: { path: fullResult } });
      }
      if (index === 1) {
        const [read] = toolResultsOf(request);
        const content = String((read?.json.value as { content?: string } | undefined)?.content);
        inspected = /(ransomware_extension:[0-9a-f]{16})/.exec(content)?.[1] ?? 'missing';
        return call(
          { name: 'inspect_finding', input: { id: inspected } },
          { name: 'write_file', input: { path: 'snapshots/findings.json', content: '{"findings":[]}' } },
        );
      }
      if (index === 2) {
        return call({
          name: 'diff_snapshots',
          input: {
            a: 's3_inventory:photos/daily-csv/2026-03-09T01-00Z',
            b: 's3_inventory:photos/daily-csv/2026-03-10T01-00Z',
          },
        });
      }
      return call({
        name: 'finish',
        input: {
          summary:
            'photos/daily-csv: 2,500 files rewritten as .locked on 2026-03-10, ransom notes beside them.',
        },
      });
    };
    const posted = harness.slack.messages.length;

    // Act
    const run = await harness.run('snapshot_forensics_e2e', {
      runId: 'forensics-1',
      input: { slack_channel: 'C0123ABCD' },
      model,
    });

    // Assess: the scan wrote the run's findings once, in the run's workspace.
    const key = findingsKey({ tenant: 'default', scenario: 'snapshot_forensics_e2e', runId: 'forensics-1' });
    const document = JSON.parse(readFileSync(path.join(harness.localDir, key), 'utf8')) as FindingsDocument;
    expect(run.output.levels.scan).toMatchObject({ kind: 'plan' });
    expect(document.findings.map((finding) => finding.check)).toEqual(
      expect.arrayContaining([
        'change_spike',
        'ransomware_extension',
        'ransom_note_names',
        'snapshots_stopped',
      ]),
    );
    // …the agent was offered the snapshot tools and the file tools, nothing else…
    const investigate = parseScenarioFile(FORENSICS_FILE, toolCatalog).levels.find(
      (level) => level.name === 'investigate',
    );
    expect(run.modelRequests[0]?.body.toolConfig?.tools?.map((tool) => tool.toolSpec?.name).sort()).toEqual(
      [...(investigate?.intra_tools ?? []), ...toolCatalog.fileToolNames()].sort(),
    );
    expect(investigate?.intra_tools).toContain('inspect_finding');
    // …inspect_finding returned the finding exactly as written, and the forged findings file was refused…
    const [finding, forged] = toolResultsOf(run.modelRequests[2]);
    expect(fullResult).toBe('levels/scan/0-scan_snapshots.json');
    expect(inspected).not.toBe('missing');
    expect(finding?.json).toMatchObject({
      ok: true,
      value: document.findings.find((f) => f.id === inspected),
    });
    expect(forged).toMatchObject({
      status: 'error',
      json: {
        ok: false,
        error: { code: 'invalid_args', message: expect.stringContaining('written by the platform') },
      },
    });
    expect(JSON.parse(readFileSync(path.join(harness.localDir, key), 'utf8'))).toEqual(document);
    // …the diff saw the encryption wave…
    const [diff] = toolResultsOf(run.modelRequests[3]);
    expect(diff?.json).toMatchObject({ ok: true, value: { added: { count: expect.any(Number) } } });
    const added = (diff?.json.value as { added?: { count?: number } } | undefined)?.added?.count;
    expect(added).toBeGreaterThanOrEqual(2500);
    // …the conclusion went to Slack, and no request read anything but inventory reports.
    expect(harness.slack.messages.slice(posted).map((message) => message.text)).toEqual([
      'Snapshot forensics for tenant default (run forensics-1)\n' +
        'photos/daily-csv: 2,500 files rewritten as .locked on 2026-03-10, ransom notes beside them.',
    ]);
    expect(run.output.summary.outcome).toBe('succeeded');
    const reads = server.requests.filter((request) => request.operation === 'GetObject');
    expect(reads.length).toBeGreaterThan(0);
    expect(
      reads.filter(
        (request) =>
          ![DESTINATION, PUBLIC_DESTINATION].includes(request.bucket ?? '') ||
          !/(\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}Z\/manifest\.json|\/data\/[0-9a-f-]{36}\.(csv\.gz|parquet))$/.test(
            request.key ?? '',
          ),
      ),
    ).toEqual([]);
  });
});
