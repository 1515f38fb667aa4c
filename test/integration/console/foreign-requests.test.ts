/**
 * The local console server (`etp console`) answers its own page only. A site whose
 * DNS name is rebound to 127.0.0.1 is same-origin to the browser (and sends
 * `Sec-Fetch-Site: same-origin`), so the `Host` it names is what tells it apart; a
 * cross-site HTML form posts `text/plain` (whose text may be JSON) with no
 * `Sec-Fetch-Site` in older browsers. Neither may read the API, change a secret
 * reference or start a run, and neither leaves anything written.
 */
import { request } from 'node:http';
import { type LocalConsole, startLocalConsole } from '../../helpers/console-fixture';

let local: LocalConsole;

beforeAll(async () => {
  local = await startLocalConsole('etp-console-foreign-');
});
afterAll(async () => {
  await local.stop();
});

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One request to the console's loopback address with exactly these headers: status and parsed body. */
function send({ method, path, headers = {}, body }: Sent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(new URL(path, local.server.url), { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const port = () => new URL(local.server.url).port;
const REFERENCE = JSON.stringify({ ref_kind: 'env', ref_value: 'ATTACKER_VARIABLE' });
const RUN = JSON.stringify({ scenario: 'aws_pulse', input: { regions: ['eu-west-1'] } });

/** What the local stores hold for tenant acme: its references and its runs' directories. */
async function acmeState(): Promise<unknown> {
  const references = await local.backend.references.list('acme');
  const runs = await local.backend.runs.runIds('acme', 'aws_pulse');
  return { references, runs: runs.sort() };
}

describe('the local console server refuses requests that are not its page’s', () => {
  it.each<[string, (p: string) => Sent, number]>([
    [
      'a rebound host name reading the API',
      (p) => ({
        method: 'GET',
        path: '/api/session',
        headers: { Host: `evil.example:${p}`, 'Sec-Fetch-Site': 'same-origin' },
      }),
      403,
    ],
    [
      'a rebound host name reading a run',
      (p) => ({
        method: 'GET',
        path: '/api/tenants/acme/runs/aws_pulse/run-20261101T000000Z-fixture',
        headers: { Host: `evil.example:${p}`, 'Sec-Fetch-Site': 'same-origin' },
      }),
      403,
    ],
    [
      'a rebound host name loading the page',
      (p) => ({ method: 'GET', path: '/', headers: { Host: `evil.example:${p}` } }),
      403,
    ],
    [
      'a rebound host name changing a reference',
      (p) => ({
        method: 'PUT',
        path: '/api/tenants/acme/secrets/slack_default',
        headers: {
          Host: `evil.example:${p}`,
          'Content-Type': 'application/json',
          'Sec-Fetch-Site': 'same-origin',
        },
        body: REFERENCE,
      }),
      403,
    ],
    [
      'a rebound host name starting a run',
      (p) => ({
        method: 'POST',
        path: '/api/tenants/acme/runs',
        headers: { Host: `evil.example:${p}`, 'Content-Type': 'application/json' },
        body: RUN,
      }),
      403,
    ],
    [
      'another origin starting a run',
      (p) => ({
        method: 'POST',
        path: '/api/tenants/acme/runs',
        headers: {
          Host: `127.0.0.1:${p}`,
          Origin: 'http://evil.example',
          'Content-Type': 'application/json',
        },
        body: RUN,
      }),
      403,
    ],
    [
      'a text/plain form post changing a reference',
      (p) => ({
        method: 'PUT',
        path: '/api/tenants/acme/secrets/slack_default',
        headers: { Host: `127.0.0.1:${p}`, 'Content-Type': 'text/plain' },
        body: REFERENCE,
      }),
      415,
    ],
    [
      'a form post with no content type starting a run',
      (p) => ({
        method: 'POST',
        path: '/api/tenants/acme/runs',
        headers: { Host: `127.0.0.1:${p}` },
        body: RUN,
      }),
      415,
    ],
  ])('%s: refused, nothing read or written', async (_name, sent, status) => {
    // Prepare
    const before = await acmeState();

    // Act
    const answer = await send(sent(port()));

    // Assess
    expect(answer.status).toBe(status);
    expect(answer.body).not.toContain('fixture');
    expect(answer.body).not.toContain('tester');
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: status === 403 ? 'access_denied' : 'invalid_args', message: expect.any(String) },
    });
    await local.backend.settled();
    expect(await acmeState()).toEqual(before);
  });

  it.each(['127.0.0.1', 'localhost'])('answers its own page at %s, a JSON body included', async (host) => {
    // Act
    const headers = { Host: `${host}:${port()}`, Origin: `http://${host}:${port()}` };
    const session = await send({ method: 'GET', path: '/api/session', headers });
    const page = await send({ method: 'GET', path: '/', headers: { Host: headers.Host } });
    const put = await send({
      method: 'PUT',
      path: '/api/tenants/acme/secrets/github_default',
      headers: {
        ...headers,
        'Content-Type': 'application/json; charset=utf-8',
        'Sec-Fetch-Site': 'same-origin',
      },
      body: REFERENCE,
    });

    // Assess
    expect([session.status, page.status, put.status]).toEqual([200, 200, 200]);
    expect(JSON.parse(session.body)).toMatchObject({ user: 'tester', mode: 'local' });
    expect((await local.backend.references.get('acme', 'github_default'))?.ref_value).toBe(
      'ATTACKER_VARIABLE',
    );
    await local.backend.references.delete('acme', 'github_default');
  });
});
