/**
 * The Lead Qualifier benchmark (issue 19, "Benchmark"): one run of the scenario
 * over 200 new leads in the local HubSpot (test/helpers/hubspot-server.ts), its
 * state machine executed by the local interpreter, every tool through the
 * dispatcher core, Slack on 127.0.0.1, the agent level answered by a scripted
 * model that updates every lead read (8 calls a turn, the engine's most) and
 * finishes. Figures: API requests per service, state transitions, the largest
 * state, the run's estimated cost without model tokens.
 *
 * `npx tsx bench/lead-qualifier-run.ts [leads]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scriptedAnswers } from '../bin/local/local-answers';
import { createLocalDispatcher } from '../bin/local/local-dispatcher';
import { createLocalEngine, localModelClient, runScenarioLocally } from '../bin/local/local-run';
import { FileRunRecords } from '../bin/local/local-run-records';
import { localWorkspaceProvider } from '../bin/local/local-workspace';
import { type ScriptedResponse, startScriptedModel } from '../bin/local/scripted-model';
import { workspacesOf } from '../functions/engine/workspaces';
import { logger } from '../functions/runtime/logger';
import { InMemorySecretReferenceStore } from '../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../functions/tools/catalog';
import { findScenario, loadScenarios } from '../lib/scenarios/loader';
import { HUBSPOT_TOKEN, hubspotContact, startHubSpotServer } from '../test/helpers/hubspot-server';
import { isoAt } from '../test/helpers/rest-fake';
import { startSlackServer } from '../test/helpers/slack-server';
import { atMost, formatReport, kib } from './report';

/** Calls one model turn may make (the engine answers more with limit_exceeded). */
const CALLS_PER_TURN = 8;
const MAX_STATE_KIB = 200;

async function main(leads: number): Promise<void> {
  logger.setLogLevel('SILENT');
  const hubspot = await startHubSpotServer({
    contacts: Array.from({ length: leads }, (_, n) => hubspotContact(n + 1)),
    // The bench measures requests, not HubSpot's search limit (the tools keep it themselves).
    searchPerSecond: 100,
  });
  const slack = await startSlackServer();
  const localDir = mkdtempSync(path.join(tmpdir(), 'etp-bench-leads-'));
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    SLACK_API_URL: slack.apiUrl,
    HUBSPOT_API_URL: hubspot.apiUrl,
    BENCH_CRM: JSON.stringify({ provider: 'hubspot', token: HUBSPOT_TOKEN }),
    BENCH_SLACK: JSON.stringify({ bot_token: slack.botToken }),
  });
  const ids = Array.from({ length: leads }, (_, n) => String(501 + n));
  const turns: ScriptedResponse[] = [];
  for (let at = 0; at < ids.length; at += CALLS_PER_TURN) {
    turns.push({
      tool_use: ids.slice(at, at + CALLS_PER_TURN).map((id, i) => ({
        name: 'crm_update_lead',
        input: {
          lead_id: id,
          score: (at + i) % 100,
          status: (at + i) % 100 >= 60 ? 'open' : 'unqualified',
          note: `Score ${(at + i) % 100}: by the profile.`,
        },
      })),
    });
  }
  turns.push({ tool_use: [{ name: 'finish', input: { summary: `${leads} leads scored.` } }] });
  const model = await startScriptedModel(turns);
  try {
    const scenarios = loadScenarios(toolCatalog);
    const references = new InMemorySecretReferenceStore([
      { tenant_id: 'default', secret_name: 'crm_default', ref_kind: 'env', ref_value: 'BENCH_CRM' },
      { tenant_id: 'default', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'BENCH_SLACK' },
    ]);
    const started = performance.now();
    const result = await runScenarioLocally(findScenario(scenarios, 'lead_qualifier'), {
      input: { since: isoAt(0), max_leads: leads, slack_channel: 'C0123ABCD' },
      runId: 'bench-leads',
      scenarios,
      dispatch: createLocalDispatcher({ references, scenarios, requireLevel: true, workspaceDir: localDir }),
      engine: createLocalEngine({
        scenarios,
        workspaces: workspacesOf(localWorkspaceProvider(localDir)),
        records: new FileRunRecords(localDir),
        model: localModelClient(model.url),
      }),
      answers: scriptedAnswers([]),
    });
    const summary = result.output.summary;
    const byEndpoint = new Map<string, number>();
    for (const r of hubspot.requests) {
      const key = `${r.method} ${r.path.replace(/\/\d+$/, '/{id}')}`;
      byEndpoint.set(key, (byEndpoint.get(key) ?? 0) + 1);
    }
    const figures = [
      {
        name: 'leads written',
        value: `${new Set(hubspot.contactUpdates.map((u) => u.id)).size} of ${leads} (notes ${hubspot.notes.length})`,
      },
      {
        name: 'HubSpot requests',
        value: `${hubspot.requests.length} (${[...byEndpoint].map(([k, n]) => `${k}: ${n}`).join(', ')})`,
      },
      { name: 'Slack requests', value: `${slack.requests.length}` },
      { name: 'state transitions', value: `${result.transitions}` },
      { name: 'Lambda invocations', value: `${summary.counts.lambdaInvocations}` },
      ...summary.cost.parts.map((part) => ({
        name: `USD: ${part.part}`,
        value: `$${part.usd.toFixed(6)} (${part.quantity} ${part.unit.split(' (')[0]})`,
      })),
      { name: 'USD without model tokens', value: `$${summary.cost.excludingModelUsd.toFixed(4)}` },
      atMost('largest state', result.largestState.bytes / 1024, MAX_STATE_KIB, 'KiB', 1),
    ];
    process.stdout.write(
      `${formatReport(
        ['lead_qualifier run (bench/lead-qualifier-run.ts)'],
        [
          {
            title: `lead_qualifier over ${leads} new HubSpot leads, scripted model (no latency)`,
            figures,
            notes: [
              `outcome ${summary.outcome}; levels: ${summary.levels.map((l) => `${l.name} ${l.outcome}`).join(', ')}`,
              `largest state: ${kib(result.largestState.bytes)} at ${result.largestState.name}; wall time ${((performance.now() - started) / 1000).toFixed(1)} s`,
              `transitions by level: ${Object.entries(result.transitionsByLevel)
                .map(([l, n]) => `${l} ${n}`)
                .join(', ')}`,
            ],
          },
        ],
      )}\n`,
    );
  } finally {
    await model.stop();
    await slack.stop();
    await hubspot.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const leads = Number(process.argv[2] ?? 200);
  main(Number.isInteger(leads) && leads > 0 ? leads : 200).catch((err: unknown) => {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  });
}
