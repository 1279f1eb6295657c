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
 * Attempts of one read. A keep-alive connection that the server closes (idle past its keep-alive timeout) just as the
 * next read reuses it fails at once with ECONNRESET; the next attempt takes another connection. Without a retry the
 * announcement is lost for every subscriber of the process (bench/live met it with 10,000 connections opening).
 */
const READ_ATTEMPTS = 3;

/**
 * Reads this api's own REST endpoints over loopback: a live payload is then exactly what the REST endpoint for the
 * same entity answers at that moment (ADR 0025), without the live family importing another family's code. A read that
 * fails before an answer (a reset connection) is tried again, up to READ_ATTEMPTS times; an answer, whatever its status,
 * is returned as it is.
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
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let text: string;
      try {
        const res = await fetch(base + path, { headers: { 'x-request-id': 'live-update' } });
        status = res.status;
        text = await res.text();
      } catch (err) {
        if (attempt >= READ_ATTEMPTS) throw err;
        continue;
      }
      return { status, body: text ? (JSON.parse(text) as unknown) : undefined };
    }
  };
}
