/**
 * The OS's Chromium (Debian's `chromium` package, which .ci/run installs) driven
 * by playwright-core: nothing is downloaded at run time, each launch gets a fresh
 * profile directory, and the browser reaches nothing but 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { type Browser, launch } from 'puppeteer-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Where the browser tests write their screenshots (gitignored). */
export const BROWSER_OUTPUT_DIR = path.join(__dirname, '../../test-output/browser');

/** A launched browser and the profile directory it removes on close. */
export interface TestBrowser {
  /** The browser's one context, on the fresh profile. */
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh `--user-data-dir` and no background traffic. */
export async function launchChromium(): Promise<TestBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'etp-chromium-'));
  // playwright passes the profile as --user-data-dir itself (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** One axe-core violation: the rule and the elements it found. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2 A/AA violations of the page as it is. The engine is evaluated
 * through the DevTools protocol, which the page's CSP does not govern, so the
 * page keeps its own strict policy.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, evaluated in the page: its globals (axe, document) are not this program's types.
  return page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
}

/** Where Debian's firefox-esr package puts the browser. */
export const FIREFOX_PATH = '/usr/bin/firefox-esr';

/**
 * Launches Debian's headless Firefox ESR, driven by puppeteer-core over WebDriver
 * BiDi (Firefox's own remote protocol: no geckodriver, nothing downloaded), with a
 * fresh profile puppeteer creates and removes. playwright-core cannot drive it:
 * it speaks only to its own patched Firefox builds (Juggler).
 */
export async function launchFirefox(): Promise<Browser> {
  return launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: {
      // No background traffic: the browser reaches nothing but 127.0.0.1.
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'network.captive-portal-service.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
    },
  });
}
