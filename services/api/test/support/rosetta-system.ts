/**
 * The services a Rosetta test replays recorded node events through, each its own process as in production: the
 * indexer (it migrates a fresh database), the observer (on the PostgreSQL-backed bus) and the api. The recorded
 * fixtures are read from the repository's `test/fixtures/stacks-node-events/` (data files, not code).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, freePorts } from '@bda/test-support';
import { replayEvents } from '../../../../scripts/lib/replay-events';
import {
  ROOT,
  startService,
  stopService,
  waitForHttp,
  type ServiceName,
  type ServiceProcess,
} from '../../../../scripts/lib/service-process';

const FIXTURE_DIR = join(ROOT, 'test', 'fixtures', 'stacks-node-events');

/** A recorded node event: one line of a fixture file. */
export interface RecordedEvent {
  id: string;
  receivedAt: string;
  path: string;
  body: string;
}

/** All events of a recorded fixture file, in order (format: its PROVENANCE.md). */
export function loadRecordedEvents(name: string): RecordedEvent[] {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const cols = line.split('\t');
      return { id: cols[0]!, receivedAt: cols[1]!, path: cols[2]!, body: cols.slice(3).join('\t') };
    });
}

/** The canonical tips the fixtures' PROVENANCE.md gives for a replay in id order. */
export const FIXTURE_TIPS: Record<string, { height: number; indexBlockHash: string }> = {
  'mocknet.tsv': { height: 28, indexBlockHash: '0x76cd67a65c0dfd5ea450bb9efe30da89fa125bfc077c953802f718353283a533' },
  'mainnet-reorg-scenario1.tsv': {
    height: 47,
    indexBlockHash: '0x4f6dc8e302792fe2e3c5b66ae29db7d6170baa0e2120fb8f7b3c3956bbc3901c',
  },
  'epoch-3-transition.tsv': { height: 50, indexBlockHash: '0xf5be33abc4e508bdaf2191e88339372edcb3358c44e2a31e1b9b44f2880dde09' },
};

export interface RosettaSystem {
  apiUrl: string;
  /** The public door (`/rosetta/v1` forwarded to the api, anonymous rate limits). */
  gatewayUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts indexer, observer, api and gateway on a new database of the server at `serverUrl`, replays `fixture` through the
 * observer and waits until the indexer has applied all of it. `apiEnv` is added to the api's environment.
 */
export async function startRosettaSystem(
  serverUrl: string,
  fixture: string,
  apiEnv: NodeJS.ProcessEnv = {},
): Promise<RosettaSystem> {
  const databaseUrl = await createTestDatabase(serverUrl, 'rosetta');
  const [observerPort, indexerPort, apiPort, gatewayPort] = (await freePorts(4)) as [number, number, number, number];
  const prefix = `t${randomBytes(4).toString('hex')}.`;
  const common = {
    DATABASE_URL: databaseUrl,
    BUS_DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: '',
    BUS_TOPIC_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    API_WORKERS: '1',
  };
  const logs: string[] = [];
  const procs: ServiceProcess[] = [];
  const start = async (name: ServiceName, env: NodeJS.ProcessEnv, health: string) => {
    const p = startService(name, env, (n, line) => {
      logs.push(`${n} ${line}`);
      if (logs.length > 2000) logs.splice(0, 500);
    });
    procs.push(p);
    try {
      await waitForHttp(health, 120_000, () => p.child.exitCode === null && p.child.signalCode === null);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${logs.slice(-30).join('\n')}`);
    }
  };
  const stop = async () => {
    for (const p of procs.reverse()) await stopService(p);
  };
  try {
    const indexerUrl = `http://127.0.0.1:${indexerPort}`;
    await start(
      'indexer',
      { ...common, INDEXER_PORT: String(indexerPort), INDEXER_GROUP_ID: `indexer-${prefix}` },
      `${indexerUrl}/readyz`,
    );
    const observerUrl = `http://127.0.0.1:${observerPort}`;
    await start(
      'observer',
      { ...common, OBSERVER_PORT: String(observerPort), OBSERVER_HOST: '127.0.0.1', OBSERVER_INDEXER_URL: indexerUrl },
      `${observerUrl}/healthz`,
    );
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await start('api', { ...common, ...apiEnv, API_PORT: String(apiPort), API_HOST: '127.0.0.1' }, `${apiUrl}/healthz`);
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    await start(
      'gateway',
      {
        ...common,
        GATEWAY_PORT: String(gatewayPort),
        HOST: '127.0.0.1',
        GATEWAY_WORKERS: '1',
        API_URLS: apiUrl,
        NODE_RPC_URLS: 'http://127.0.0.1:9',
      },
      `${gatewayUrl}/healthz`,
    );
    await replayEvents(loadRecordedEvents(fixture), { observerUrl, maxRetryMs: 30_000 });
    await waitForApplied(indexerUrl);
    return { apiUrl, gatewayUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Until the indexer's `/status` shows lag 0 on every topic it consumes, with something applied. */
async function waitForApplied(indexerUrl: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const body = (await (await fetch(`${indexerUrl}/status`)).json()) as {
        topics: Record<string, { head: string; lag: string }>;
      };
      const topics = Object.values(body.topics);
      last = JSON.stringify(body.topics);
      if (topics.length > 0 && topics.every((t) => t.lag === '0') && topics.some((t) => t.head !== '-1')) return;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`indexer did not catch up within ${timeoutMs} ms (last status ${last})`);
}
