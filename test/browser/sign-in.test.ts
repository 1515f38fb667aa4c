/**
 * The deployed page's sign-in, in headless Chromium, against a loopback fake of
 * a Cognito user pool's hosted UI and OAuth 2.0 endpoints (test/helpers/fake-cognito.ts):
 * the authorization code flow with PKCE as sign-in.js runs it, the ID token kept in
 * the tab, every API request carrying it, and the API accepting only tokens that
 * verify against the pool's JWKS (as API Gateway's JWT authorizer checks them),
 * with the user's tenants from its `cognito:groups`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { localConsoleBackend } from '../../bin/local/console-backend';
import { type ConsoleServer, startConsoleServer } from '../../bin/local/console-server';
import { consoleCatalog } from '../../functions/console/catalog-view';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../lib/scenarios/loader';
import { launchChromium, type TestBrowser } from '../helpers/browser';
import { type FakeCognito, startFakeCognito, verifyLikeApiGateway } from '../helpers/fake-cognito';

const CLIENT_ID = '1example23456789clientid';

let localDir: string;
let cognito: FakeCognito;
let server: ConsoleServer;
let chromium: TestBrowser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-console-signin-'));
  const scenarios = loadScenarios(toolCatalog, SCENARIOS_DIR);
  const backend = localConsoleBackend({
    localDir,
    references: new InMemorySecretReferenceStore([
      { tenant_id: 'acme', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'ETP_SLACK_ACME' },
    ]),
    scenarios,
    catalog: consoleCatalog(toolCatalog, scenarios),
  });
  // The page's URL is the app client's callback URL: known once the server listens, so a first
  // server finds a free port and the signed-in one takes it over.
  const probe = await startConsoleServer(backend, { name: 'nobody', tenants: [] });
  const redirectUri = probe.url;
  await probe.stop();
  cognito = await startFakeCognito({
    clientId: CLIENT_ID,
    redirectUri,
    user: { username: 'ana', groups: ['tenant-acme', 'admins'] },
  });
  server = await startConsoleServer(
    backend,
    { name: 'nobody', tenants: [] },
    {
      port: Number(new URL(redirectUri).port),
      signIn: {
        domain: cognito.domain,
        clientId: CLIENT_ID,
        redirectUri,
        verify: (token) => verifyLikeApiGateway(token, cognito.issuer, CLIENT_ID),
      },
    },
  );
  chromium = await launchChromium();
  page = await chromium.context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await server?.stop();
  await cognito?.stop();
  rmSync(localDir, { recursive: true, force: true });
});

const api = (route: string, token?: string) =>
  fetch(new URL(route, server.url), token ? { headers: { Authorization: `Bearer ${token}` } } : {}).then(
    async (response) => ({ status: response.status, body: await response.json() }),
  );

describe('sign-in through a Cognito hosted UI (loopback fake)', () => {
  it("signs in with the code flow and PKCE, and shows the user's tenant only", async () => {
    // Act
    await page.goto(`${server.url}#/secrets`);
    await page.getByRole('heading', { name: 'Secret references of acme' }).waitFor({ timeout: 20_000 });

    // Assess: authorize, then the token exchange, then the API's key fetch
    expect(cognito.requests.slice(0, 2)).toEqual(['authorize', 'token']);
    expect(cognito.requests).toContain('jwks');
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).hash).toBe('#/secrets');
    expect(await page.locator('#tenant option').allTextContents()).toEqual(['acme']);
    expect(await page.getByRole('row', { name: /slack_default/ }).count()).toBe(1);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('never sends a code it did not ask for (no state of its own): it signs in afresh', async () => {
    // Prepare: a code issued to someone else's sign-in (its own PKCE verifier), in a link with no state
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL('/oauth2/authorize', cognito.domain);
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: server.url,
      state: 'theirs',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(key, value);
    const issued = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(String(issued.headers.get('location'))).searchParams.get('code') ?? '';
    const fresh = await chromium.context.newPage();
    const tokenCalls: string[] = [];
    fresh.on('request', (request) => {
      if (request.url().endsWith('/oauth2/token')) tokenCalls.push(request.postData() ?? '');
    });

    try {
      // Act
      await fresh.goto(`${server.url}?code=${code}#/secrets`);
      await fresh.getByRole('heading', { name: 'Secret references of acme' }).waitFor({ timeout: 20_000 });

      // Assess: the page's own code was exchanged, never the one in the link, which its owner can still redeem
      expect(tokenCalls).toHaveLength(1);
      expect(new URLSearchParams(tokenCalls[0]).get('code')).not.toBe(code);
      const redeemed = await fetch(new URL('/oauth2/token', cognito.domain), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: CLIENT_ID,
          code,
          redirect_uri: server.url,
          code_verifier: verifier,
        }),
      });
      expect(redeemed.status).toBe(200);
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it('says a sign-in the hosted UI refused, and does not start it again', async () => {
    // Prepare: the hosted UI answers this sign-in with access_denied (a user not allowed)
    cognito.denyWith = 'access_denied';
    const fresh = await chromium.context.newPage();
    const authorizes = () => cognito.requests.filter((request) => request === 'authorize').length;
    const before = authorizes();

    try {
      // Act
      await fresh.goto(`${server.url}#/secrets`);
      await fresh.getByText(/Sign-in failed: access_denied/).waitFor({ timeout: 20_000 });
      await fresh.waitForTimeout(1_000);

      // Assess: one authorize request, no loop of new sign-ins; the error's query is gone from the address
      expect(authorizes() - before).toBe(1);
      expect(new URL(fresh.url()).search).toBe('');
    } finally {
      cognito.denyWith = undefined;
      await fresh.close();
    }
  }, 60_000);

  it("says a sign-in refused without state (as Cognito sends a trigger's failure back), and does not start it again", async () => {
    // Prepare: "Managed login and federation error responses": <Callback URL>/?error_description=…&error=…
    cognito.denyWith = 'invalid_request';
    cognito.denyWithoutState = true;
    const fresh = await chromium.context.newPage();
    const authorizes = () => cognito.requests.filter((request) => request === 'authorize').length;
    const before = authorizes();

    try {
      // Act
      await fresh.goto(`${server.url}#/secrets`);
      await fresh.getByText(/Sign-in failed: invalid_request/).waitFor({ timeout: 20_000 });
      await fresh.waitForTimeout(1_000);

      // Assess: one authorize request, no loop of new sign-ins; the error's query is gone from the address
      expect(authorizes() - before).toBe(1);
      expect(new URL(fresh.url()).search).toBe('');
    } finally {
      cognito.denyWith = undefined;
      cognito.denyWithoutState = false;
      await fresh.close();
    }
  }, 60_000);

  it('answers with the signed-in user, and refuses another tenant, a forged token and no token', async () => {
    // Prepare: the ID token the page keeps in its tab
    const token = String(await page.evaluate("sessionStorage.getItem('etp-token')"));

    // Act
    const session = await api('/api/session', token);
    const other = await api('/api/tenants/globex/secrets', token);
    const forged = await api('/api/session', cognito.forgedToken());
    const none = await api('/api/session');

    // Assess
    expect(session).toEqual({
      status: 200,
      body: { user: 'ana', mode: 'local', tenants: ['acme'], canStartRuns: true },
    });
    expect(other).toEqual({
      status: 403,
      body: { error: { code: 'access_denied', message: 'Your groups do not name this tenant' } },
    });
    for (const refused of [forged, none]) {
      expect(refused).toEqual({
        status: 401,
        body: { error: { code: 'auth_failed', message: 'Sign in first' } },
      });
    }
  }, 60_000);
});
