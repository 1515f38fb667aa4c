/**
 * The console in Firefox (Debian's firefox-esr, headless, driven by puppeteer-core
 * over WebDriver BiDi): the same page and API `etp console` serves, against local
 * stores and the scripted triage model. Every page is used as a person would:
 * seed a reference, start a run and watch it live, answer its question and see it
 * resume, open a run's findings, the tools; no JavaScript error, no CSP violation,
 * every hostile text rendered as text. Screenshots go to test-output/browser/.
 */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { localConsoleBackend } from '../../bin/local/console-backend';
import type { ConsoleServer } from '../../bin/local/console-server';
import type { ScriptedModel } from '../../bin/local/scripted-model';
import { toolCatalog } from '../../functions/tools/catalog';
import { BROWSER_OUTPUT_DIR, launchFirefox } from '../helpers/browser';
import { FIXTURE_RUN, type LocalConsole, QUESTION, startLocalConsole, XSS } from '../helpers/console-fixture';

let local: LocalConsole;
let model: ScriptedModel;
let server: ConsoleServer;
let backend: ReturnType<typeof localConsoleBackend>;
let firefox: Browser;
let page: Page;
const pageErrors: string[] = [];

/** Records CSP violations in the page (a preload script: the page's CSP does not govern it). */
const RECORD_CSP = `window.__csp = []; document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`;

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(BROWSER_OUTPUT_DIR, `firefox-${name}.png`), fullPage: true });
}

/** Waits until the main content shows `text`. */
async function seen(text: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    `document.querySelector('main')?.textContent?.includes(${JSON.stringify(text)})`,
    {
      timeout,
    },
  );
}

/** The id of the control a label starting with `text` names. */
async function controlOf(text: string): Promise<string> {
  const id = await page.evaluate(
    `[...document.querySelectorAll('label')].find((l) => l.textContent.startsWith(${JSON.stringify(text)}))?.htmlFor`,
  );
  if (!id) throw new Error(`no control labelled ${text}`);
  return `#${id}`;
}

async function fill(label: string, value: string): Promise<void> {
  const selector = await controlOf(label);
  await page.$eval(selector, (element) => {
    (element as unknown as { value: string }).value = '';
  });
  await page.type(selector, value);
}

async function press(button: string): Promise<void> {
  await page.locator(`button::-p-text(${button})`).click();
}

async function xssRan(): Promise<unknown> {
  return page.evaluate('window.__xss');
}

beforeAll(async () => {
  mkdirSync(BROWSER_OUTPUT_DIR, { recursive: true });
  local = await startLocalConsole('etp-console-ff-');
  ({ server, backend, model } = local);
  firefox = await launchFirefox();
  page = await firefox.newPage();
  await page.evaluateOnNewDocument(RECORD_CSP);
  page.on('pageerror', (err) => pageErrors.push(String((err as Error).message ?? err)));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await firefox?.close();
  await local?.stop();
});

describe('the console in Firefox', () => {
  it('runs Firefox ESR through WebDriver BiDi', async () => {
    expect(await firefox.version()).toMatch(/^firefox\/\d+/);
  });

  it('seeds a secret reference whose notes render as text', async () => {
    // Act
    await page.goto(`${server.url}#/secrets`);
    await seen('Secret references of acme');
    await fill('Secret name', 'slack_ops');
    await page.select(await controlOf('Kind'), 'env');
    await fill('Environment variable or secret ARN', 'ETP_SLACK_OPS');
    await fill('Notes', `ops bot ${XSS}`);
    await press('Seed reference');
    await seen(`ops bot ${XSS}`);

    // Assess
    const cells = await page.$$eval('main tbody tr', (rows) =>
      rows.map((row) => [...row.children].slice(0, 4).map((cell) => cell.textContent)),
    );
    expect(cells).toContainEqual(['slack_ops', 'env', 'ETP_SLACK_OPS', `ops bot ${XSS}`]);
    expect(await xssRan()).toBeUndefined();
    expect(await backend.references.get('acme', 'slack_ops')).toMatchObject({
      ref_value: 'ETP_SLACK_OPS',
      created_by: 'console:tester',
    });
    await shoot('secrets');
  }, 60_000);

  it('starts the scripted-model run, shows it live, answers its question and sees it resume', async () => {
    // Prepare
    await page.select('#tenant', 'default');
    await page.goto(`${server.url}#/runs`);
    await seen('Runs of default');

    // Act: start incident_response, which asks the on-call engineer
    await page.select(await controlOf('Scenario'), 'incident_response');
    await fill('Input', '{"regions":["eu-west-1"],"pagerduty_incident":"PT4KHLK","github_repo":"acme/api"}');
    await press('Start run');
    await seen(QUESTION);
    const liveUrl = page.url();
    await shoot('live-question');

    // Act: answer from the questions page
    await page.goto(`${server.url}#/questions`);
    await seen('Open questions of default');
    await fill('Your answer', 'eu-west-1, from GuardDuty');
    await press('Send answer');
    await seen('No open questions.');

    // Assess: the run resumed and ended with its summary
    await page.goto(liveUrl);
    await seen('Answered: the run resumes');
    await page.waitForFunction(
      "/Run (succeeded|incomplete)/.test(document.querySelector('main').textContent)",
      {
        timeout: 20_000,
      },
    );
    const text = await page.$eval('main', (main) => main.textContent ?? '');
    expect(text).toContain('Level gather started (plan)');
    expect(text).toContain(`Triage done. ${XSS}`);
    expect(model.requests.length).toBe(2);
    expect(await xssRan()).toBeUndefined();
    await shoot('live-done');
  }, 90_000);

  it("opens a run's findings: new, unchanged and resolved, names and report as text", async () => {
    // Act
    await page.select('#tenant', 'acme');
    await page.goto(`${server.url}#/run/acme/aws_pulse/${FIXTURE_RUN}`);
    await seen('Findings of collect');

    // Assess
    const rows = await page.$$eval('main table', (tables) => {
      const findings = tables.find((t) => t.querySelector('caption')?.textContent === 'Findings of collect');
      return [...(findings?.querySelectorAll('tbody tr') ?? [])].map((tr) => [
        tr.children[0]?.textContent,
        tr.children[3]?.textContent,
      ]);
    });
    expect(rows).toEqual([
      ['new', `eipalloc-new ${XSS}`],
      ['unchanged', 'eipalloc-kept'],
      ['resolved', 'eipalloc-gone'],
    ]);
    await seen(`Slack text: ${XSS}`);
    expect(await page.$$eval('main img, main script', (found) => found.length)).toBe(0);
    expect(await xssRan()).toBeUndefined();
    await shoot('run');
  }, 60_000);

  it('lists every catalog tool', async () => {
    // Act
    await page.goto(`${server.url}#/tools`);
    await seen('Input schema of');

    // Assess
    const text = await page.$eval('main', (main) => main.textContent ?? '');
    for (const spec of toolCatalog.list()) expect(text).toContain(`Input schema of ${spec.name}`);
    await shoot('tools');
  }, 60_000);

  it('ran without JavaScript errors or CSP violations', async () => {
    expect(pageErrors).toEqual([]);
    expect(await page.evaluate('window.__csp')).toEqual([]);
  });
});
