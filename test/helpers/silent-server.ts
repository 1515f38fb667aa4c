/**
 * A "silent" server on 127.0.0.1: it accepts TCP connections and never answers,
 * as an endpoint behind a hung proxy or a stuck load balancer does. Requests to
 * it wait until the client's own timeout (or deadline) gives up.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';

/** A listening silent server. */
export interface SilentServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Connections open now (accepted and not yet closed by either side). */
  openConnections(): number;
  /** Stops listening and destroys every open connection (clients see ECONNRESET). */
  stop(): Promise<void>;
}

/**
 * Starts a silent server with an OS-chosen port. Stop it in `afterAll`/`afterEach`.
 *
 * @example
 * const silent = await startSilentServer();
 * process.env.AWS_ENDPOINT_URL_EC2 = silent.url;
 * // …
 * await silent.stop();
 */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // a client that gives up may reset the connection
    socket.resume(); // read and drop the request so the client's write completes
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    openConnections: () => sockets.size,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
