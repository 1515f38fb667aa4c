/**
 * What both browser suites (Chromium, Firefox) run the console against: a finished
 * aws_pulse run with hostile names in it, and a scripted triage model that asks a
 * question before it finishes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { localConsoleBackend } from '../../bin/local/console-backend';
import { type ConsoleServer, startConsoleServer } from '../../bin/local/console-server';
import { type ScriptedModel, startScriptedModel } from '../../bin/local/scripted-model';
import { consoleCatalog } from '../../functions/console/catalog-view';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../lib/scenarios/loader';

/** Markup that would run script if any text were parsed as HTML: it sets `window.__xss`. */
export const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';
export const QUESTION = `Which region did the alert come from? ${XSS}`;
export const FIXTURE_RUN = 'run-20261101T000000Z-fixture';

/** A finished aws_pulse run of tenant acme, as the engine writes its workspace, with hostile names in it. */
export function writeFixtureRun(localDir: string): void {
  const root = path.join(localDir, 'runs', 'acme', 'aws_pulse', FIXTURE_RUN);
  const finding = (id: string, resource: string) => ({
    id: `eip_unattached:${id}`,
    check: 'eip_unattached',
    severity: 'medium',
    resource,
    region: 'eu-west-1',
    title: 'Elastic IP not attached',
    tool: 'aws_eips_audit',
    monthlyCost: { usd: 3.65, priceSource: 'Amazon EC2 pricing' },
  });
  const files: Record<string, unknown> = {
    'levels/collect/findings.json': {
      runId: FIXTURE_RUN,
      level: 'collect',
      findings: [
        finding('00000000000000a1', `eipalloc-new ${XSS}`),
        finding('00000000000000a2', 'eipalloc-kept'),
      ],
      coverage: { aws_eips_audit: { ok: true, complete: true } },
      diff: {
        previousRunId: 'run-20261001T000000Z-before',
        new: ['eip_unattached:00000000000000a1'],
        unchanged: ['eip_unattached:00000000000000a2'],
        resolved: [finding('00000000000000a3', 'eipalloc-gone')],
        unknown: [],
      },
    },
    'levels/analyze/finish.json': { summary: `Slack text: ${XSS}`, data: {} },
    'summary.json': {
      scenario: 'aws_pulse',
      runId: FIXTURE_RUN,
      tenant: 'acme',
      outcome: 'succeeded',
      startedAt: '2026-11-01T00:00:00.000Z',
      endedAt: '2026-11-01T00:00:09.000Z',
      levels: [
        {
          name: 'collect',
          kind: 'plan',
          outcome: 'ok',
          hasResult: true,
          summary: '1 call: 1 ok',
          calls: [{ callId: 'collect/0', tool: 'aws_eips_audit', ok: true, durationMs: 120 }],
        },
        {
          name: 'analyze',
          kind: 'agent',
          outcome: 'finished',
          hasResult: true,
          summary: 'ranked',
          calls: [],
          turns: 1,
          inputTokens: 1200,
          outputTokens: 300,
          model: 'scripted',
        },
      ],
      counts: {
        stateTransitions: 12,
        lambdaInvocations: 4,
        lambdaGbSeconds: 0.1,
        modelInputTokens: 1200,
        modelOutputTokens: 300,
        costExplorerRequests: 0,
      },
      cost: {
        totalUsd: 0.0031,
        excludingModelUsd: 0.0004,
        parts: [
          { part: 'model', quantity: 1500, unit: 'tokens', usd: 0.0027, source: 'Amazon Bedrock pricing' },
        ],
        notes: [],
      },
    },
  };
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), JSON.stringify(value));
  }
}

/** The scripted triage: ask the on-call engineer first, finish once the answer is in the conversation. */
export async function scriptedTriage(): Promise<ScriptedModel> {
  return startScriptedModel((request) => {
    const answered = (request.body.messages ?? []).some((message) =>
      message.content.some((block) => 'toolResult' in block),
    );
    return answered
      ? { tool_use: [{ name: 'finish', input: { summary: `Triage done. ${XSS}` } }] }
      : { text: 'I need one fact first.', tool_use: [{ name: 'ask_user', input: { question: QUESTION } }] };
  });
}

/** `etp console` as the browser suites use it: local stores in a fresh directory holding the fixture run, the scripted triage model. */
export interface LocalConsole {
  readonly localDir: string;
  readonly server: ConsoleServer;
  readonly backend: ReturnType<typeof localConsoleBackend>;
  readonly model: ScriptedModel;
  /** Stops the server and the model once the backend's runs have settled, and removes the directory. */
  stop(): Promise<void>;
}

/** Starts {@link LocalConsole} in a new directory under the OS's temp dir named `<prefix>XXXXXX`. */
export async function startLocalConsole(
  prefix: string,
  options: { exportLocalDir?: boolean } = {},
): Promise<LocalConsole> {
  const localDir = mkdtempSync(path.join(tmpdir(), prefix));
  writeFixtureRun(localDir);
  // Runs the page starts read their directory from ETP_LOCAL_DIR, as `etp console` sets it.
  if (options.exportLocalDir) process.env.ETP_LOCAL_DIR = localDir;
  const model = await scriptedTriage();
  const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
  const backend = localConsoleBackend({
    localDir,
    references: new InMemorySecretReferenceStore(),
    scenarios,
    catalog: consoleCatalog(toolCatalog, scenarios),
    modelEndpoint: model.url,
  });
  const server = await startConsoleServer(backend, { name: 'tester', tenants: '*' });
  return {
    localDir,
    server,
    backend,
    model,
    async stop() {
      await backend.settled();
      await server.stop();
      await model.stop();
      rmSync(localDir, { recursive: true, force: true });
    },
  };
}
