import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A REST answer read in-process: its status and parsed JSON body. */
interface RestAnswer {
  status: number;
  body: unknown;
}

/** GETs a path of this api. */
export type RestReader = (path: string) => Promise<RestAnswer>;

/**
 * Reads this api's own REST endpoints over loopback: a live payload is then exactly what the REST endpoint for the
 * same entity answers at that moment (ADR 0025), without the live family importing another family's code.
 */
export function loopbackRestReader(server: Server): RestReader {
  let base: string | undefined;
  return async (path) => {
    if (!base) {
      const addr = server.address() as AddressInfo | null;
      if (!addr) throw new Error('the api server is not listening');
      const host =
        addr.address === '0.0.0.0'
          ? '127.0.0.1'
          : addr.address === '::'
            ? '[::1]'
            : addr.family === 'IPv6'
              ? `[${addr.address}]`
              : addr.address;
      base = `http://${host}:${addr.port}`;
    }
    const res = await fetch(base + path, { headers: { 'x-request-id': 'live-update' } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
}
