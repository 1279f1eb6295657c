import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Ports handed out here come from below the kernel's ephemeral range (`ip_local_port_range`, 32768–60999 on Linux).
 * A port the OS picks for `listen(0)` comes from that range, which every outgoing connection on the machine (pools to
 * PostgreSQL, Kafka clients, the observer's connection to the indexer) draws from as well: between the pick and the
 * service's own `listen`, one of those could take it, and the service failed with EADDRINUSE (seen in `make test`).
 * Below the range, only another listener can take a port.
 */
const LOW = 20_000;

function ephemeralStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return start && start > LOW + 1_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * The share of [LOW, ephemeral start) this process draws from. `make test` runs two jest lanes at once (ADR 0021);
 * each lane sets `BDA_TEST_PORTS=<low>-<high>` to its own half, so that a port one lane picked and released for a
 * service about to bind cannot be picked by the other lane in between (seen: a replay posting to the other lane's api).
 */
export function portRange(spec: string | undefined, all: [number, number]): [number, number] {
  if (!spec) return all;
  const m = /^(\d+)-(\d+)$/.exec(spec);
  const [low, high] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(low >= 1_024 && high > low + 100 && high <= 65_536))
    throw new Error(`BDA_TEST_PORTS: expected <low>-<high>, got ${spec}`);
  return [low, high];
}

const [RANGE_LOW, HIGH] = portRange(process.env['BDA_TEST_PORTS'], [LOW, ephemeralStart()]);

/** Binds `port` on loopback, or null when it is taken. */
function tryListen(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/** A free TCP port on loopback, below the ephemeral range (in this process's share of it, see `portRange`). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `n` distinct free TCP ports on loopback, below the ephemeral range. Every port is held until all of them are known:
 * otherwise two services of one system could be given the same port, the second failing to bind while the first
 * answers its health check.
 */
export function freePorts(n: number): Promise<number[]> {
  return freePortsBetween(n, RANGE_LOW, HIGH);
}

/** `freePorts` drawing from [low, high). */
export async function freePortsBetween(n: number, low: number, high: number): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let tries = 0; ports.length < n; tries++) {
      if (tries > 1_000) throw new Error(`no ${n} free ports between ${low} and ${high}`);
      const port = low + Math.floor(Math.random() * (high - low));
      if (ports.includes(port)) continue;
      const srv = await tryListen(port);
      if (!srv) continue;
      held.push(srv);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((srv) => new Promise<void>((resolve) => srv.close(() => resolve()))));
  }
}
