/**
 * The local console server's page files (`etp console`): HEAD answers as GET
 * does (status and headers, Content-Length included) with no body (RFC 9110,
 * "HEAD"); an unknown path is 404 for both.
 */
import { request } from 'node:http';
import { type LocalConsole, startLocalConsole } from '../../helpers/console-fixture';

let local: LocalConsole;

beforeAll(async () => {
  local = await startLocalConsole('etp-console-static-');
});
afterAll(async () => {
  await local.stop();
});

/** One request on the console's loopback address: status, headers and the body's bytes. */
function fetchRaw(
  method: string,
  pathname: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = request(new URL(pathname, local.server.url), { method }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('the local console server', () => {
  it('answers HEAD / as GET /, without the body', async () => {
    const get = await fetchRaw('GET', '/');
    const head = await fetchRaw('HEAD', '/');

    expect(get.status).toBe(200);
    expect(get.body.length).toBeGreaterThan(0);
    expect(get.headers['content-length']).toBe(String(get.body.length));
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const { date: _getDate, ...getHeaders } = get.headers;
    const { date: _headDate, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it('answers 404 to GET and HEAD of a path it does not serve', async () => {
    expect((await fetchRaw('GET', '/nope.html')).status).toBe(404);
    const head = await fetchRaw('HEAD', '/nope.html');
    expect([head.status, head.body.length]).toEqual([404, 0]);
  });
});
