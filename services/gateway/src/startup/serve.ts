import type { RequestListener, Server } from 'node:http';
import { closeServer, listen, type ShutdownRegistry } from '@bda/common';

export interface ServerTimeouts {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/**
 * Listens with `listen()` from libs/common and sets Node's request timeouts: `headersTimeout` for the request line and
 * headers, `requestTimeout` (the whole request) a little above headers plus body, so that the gateway's own body
 * timeout (read-request-body.ts) answers first. Node reads both at each check, so setting them once listening is enough.
 */
export async function serve(
  listener: RequestListener,
  port: number,
  host: string,
  timeouts: ServerTimeouts,
  shutdown: ShutdownRegistry,
  name: string,
): Promise<{ server: Server; port: number }> {
  const served = await listen(listener, port, host);
  served.server.headersTimeout = timeouts.headersTimeoutMs;
  served.server.requestTimeout = timeouts.headersTimeoutMs + timeouts.bodyTimeoutMs + 5_000;
  shutdown.register('intake', name, () => closeServer(served.server));
  return served;
}
