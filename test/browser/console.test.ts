/**
 * The console in a real browser (headless Chromium from the OS packages): the
 * page and API `etp console` serves, against local stores in a fresh directory
 * and the scripted model. Screenshots of each page go to test-output/browser/.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { localConsoleBackend } from '../../bin/local/console-backend';
import type { ConsoleServer } from '../../bin/local/console-server';
import type { ScriptedModel } from '../../bin/local/scripted-model';
import { MAX_LISTED_RUNS } from '../../functions/console/runs';
import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../lib/scenarios/loader';
import { axeViolations, BROWSER_OUTPUT_DIR, launchChromium, type TestBrowser } from '../helpers/browser';
import { FIXTURE_RUN, type LocalConsole, QUESTION, startLocalConsole, XSS } from '../helpers/console-fixture';

let local: LocalConsole;
let model: ScriptedModel;
let server: ConsoleServer;
let backend: ReturnType<typeof localConsoleBackend>;
let chromium: TestBrowser;
let page: Page;
const pageErrors: string[] = [];

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(BROWSER_OUTPUT_DIR, `console-${name}.png`), fullPage: true });
}

async function expectAccessible(): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

async function xssRan(): Promise<unknown> {
  return page.evaluate('window.__xss');
}

beforeAll(async () => {
  mkdirSync(BROWSER_OUTPUT_DIR, { recursive: true });
  local = await startLocalConsole('etp-console-', { exportLocalDir: true });
  ({ server, backend, model } = local);
  chromium = await launchChromium();
  page = await chromium.context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await local?.stop();
});

describe('the console in Chromium', () => {
  it('seeds a secret reference whose notes render as text', async () => {
    // Act
    await page.goto(`${server.url}#/secrets`);
    await page.getByRole('heading', { name: 'Secret references of acme' }).waitFor();
    await page.getByLabel('Secret name').fill('slack_ops');
    await page.getByLabel('Kind').selectOption('env');
    await page.getByLabel(/Environment variable or secret ARN/).fill('ETP_SLACK_OPS');
    await page.getByLabel('Notes').fill(`ops bot ${XSS}`);
    await page.getByRole('button', { name: 'Seed reference' }).click();

    // Assess
    const row = page.getByRole('row', { name: /slack_ops/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('ETP_SLACK_OPS');
    expect(await row.getByRole('cell').nth(3).textContent()).toBe(`ops bot ${XSS}`);
    expect(await xssRan()).toBeUndefined();
    expect(await backend.references.get('acme', 'slack_ops')).toMatchObject({
      ref_kind: 'env',
      ref_value: 'ETP_SLACK_OPS',
      created_by: 'console:tester',
    });
    await expectAccessible();
    await shoot('secrets');
  }, 60_000);

  it('starts the scripted-model run, shows it live, answers its question and sees it resume', async () => {
    // Prepare
    await page.selectOption('#tenant', 'default');
    await page.goto(`${server.url}#/runs`);
    await page.getByRole('heading', { name: 'Runs of default' }).waitFor();

    // Act: start incident_response, which asks the on-call engineer
    await page.getByLabel('Scenario', { exact: true }).selectOption('incident_response');
    await page
      .getByLabel(/^Input/)
      .fill('{"regions":["eu-west-1"],"pagerduty_incident":"PT4KHLK","github_repo":"acme/api"}');
    await page.getByRole('button', { name: 'Start run' }).click();
    const log = page.getByRole('log', { name: 'Run events' });
    await log.getByText(QUESTION, { exact: false }).waitFor({ timeout: 20_000 });
    await shoot('live-question');
    const liveUrl = page.url();

    // Act: answer from the questions page
    await page.goto(`${server.url}#/questions`);
    await page.getByRole('heading', { name: 'Open questions of default' }).waitFor();
    expect(await page.getByText(QUESTION).count()).toBe(1);
    await expectAccessible();
    await shoot('questions');
    await page.getByLabel('Your answer').fill('eu-west-1, from GuardDuty');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('No open questions.').waitFor();

    // Assess: the run resumed and ended with its summary
    await page.goto(liveUrl);
    await log.getByText('Answered: the run resumes').waitFor({ timeout: 20_000 });
    await log.getByText(/^Run (succeeded|incomplete)/).waitFor({ timeout: 20_000 });
    const text = (await log.textContent()) ?? '';
    expect(text).toContain('Level gather started (plan)');
    expect(text).toContain('Model turn 1');
    expect(text).toContain(`Triage done. ${XSS}`);
    expect(model.requests.length).toBe(2);
    expect(await xssRan()).toBeUndefined();
    await expectAccessible();
    await shoot('live-done');
  }, 60_000);

  it("opens a run's findings: new, unchanged and resolved, names and report as text", async () => {
    // Act
    await page.selectOption('#tenant', 'acme');
    await page.goto(`${server.url}#/runs`);
    await page.getByRole('link', { name: FIXTURE_RUN }).click();
    const findings = page.getByRole('table', { name: 'Findings of collect' });
    await findings.waitFor();

    // Assess
    const rows = await findings
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [tr.children[0]?.textContent, tr.children[3]?.textContent]));
    expect(rows).toEqual([
      ['new', `eipalloc-new ${XSS}`],
      ['unchanged', 'eipalloc-kept'],
      ['resolved', 'eipalloc-gone'],
    ]);
    expect(await page.getByRole('heading', { name: 'Report (analyze)' }).count()).toBe(1);
    expect(await page.getByText(`Slack text: ${XSS}`).count()).toBe(1);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await xssRan()).toBeUndefined();
    await page.getByRole('button', { name: 'summary.json' }).click();
    // The file is fetched on click: wait for its text.
    await page.getByLabel('File content').filter({ hasText: FIXTURE_RUN }).waitFor();
    expect(JSON.parse((await page.getByLabel('File content').textContent()) ?? '')).toMatchObject({
      runId: FIXTURE_RUN,
      outcome: 'succeeded',
    });
    await expectAccessible();
    await shoot('run');
  }, 60_000);

  it('lists the tools with their schema, side effects and IAM actions, and what each level may call', async () => {
    // Act
    await page.goto(`${server.url}#/tools`);
    await page.getByRole('heading', { name: 'Tools' }).waitFor();

    // Assess: every catalog tool has a row, every scenario a table
    for (const spec of toolCatalog.list()) {
      expect(await page.getByText(`Input schema of ${spec.name}`, { exact: true }).count()).toBe(1);
    }
    for (const scenario of loadScenarios(toolCatalog, SCENARIOS_DIR)) {
      expect(
        await page.getByRole('table', { name: `${scenario.name}: what each level may call` }).count(),
      ).toBe(1);
    }
    await expectAccessible();
    await shoot('tools');
  }, 60_000);

  it('shows older runs a page at a time', async () => {
    // Prepare: more runs than one page holds, newer than the fixture run
    const dirs = Array.from({ length: MAX_LISTED_RUNS + 5 }, (_, index) =>
      path.join(
        local.localDir,
        'runs',
        'acme',
        'aws_pulse',
        `run-20261102T0000${String(index).padStart(2, '0')}Z-paged`,
      ),
    );
    for (const dir of dirs) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'notes.txt'), 'paged');
    }
    try {
      await page.goto('about:blank');
      await page.goto(`${server.url}#/runs`);
      const older = page.getByRole('button', { name: 'Older runs' });
      await older.waitFor();
      const table = page.getByRole('table', { name: 'aws_pulse, newest first' });
      const firstPage = await table.getByRole('link', { name: /^run-/ }).count();

      // Act
      await older.click();
      await page.getByRole('link', { name: FIXTURE_RUN }).waitFor();

      // Assess
      expect(firstPage).toBe(MAX_LISTED_RUNS);
      expect(await table.getByRole('link', { name: /^run-/ }).count()).toBe(dirs.length + 1);
      expect(await page.getByRole('button', { name: 'Older runs' }).count()).toBe(0);
      await expectAccessible();
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('is usable from the keyboard: skip link, page links, focus on the new page heading', async () => {
    // Prepare: a fresh load, as a keyboard user arrives
    await page.goto('about:blank');
    await page.goto(`${server.url}#/runs`);
    await page.getByRole('heading', { name: /^Runs of/ }).waitFor();

    // Act
    await page.keyboard.press('Tab');
    const first = await page.evaluate('document.activeElement?.textContent');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const reached = await page.evaluate('document.activeElement?.textContent');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Tools' }).waitFor();

    // Assess
    expect(first).toBe('Skip to content');
    expect(reached).toBe('Tools');
    expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Tools');
  }, 60_000);

  it('ran without JavaScript errors or CSP violations', () => {
    expect(pageErrors).toEqual([]);
  });
});
