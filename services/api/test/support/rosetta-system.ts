/**
 * The services a Rosetta (or any read) test asks over HTTP, each its own process as in production: the api and the
 * gateway, on a fresh copy of a database into which the recorded fixture was replayed through the real observer and
 * indexer (`replayedDatabase`: once per run and fixture). The recorded fixtures are read from the repository's
 * `test/fixtures/stacks-node-events/` (data files, not code).
 */
import { freePorts } from '@bda/test-support';
import {
  startService,
  stopService,
  waitForHttp,
  type ServiceName,
  type ServiceProcess,
} from '../../../../scripts/lib/service-process';
import { replayedDatabase } from './replayed-database';

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
 * Starts api and gateway on a fresh copy of the database `fixture` was replayed into (on the server at `serverUrl`).
 * `apiEnv` is added to the api's environment.
 */
export async function startRosettaSystem(
  serverUrl: string,
  fixture: string,
  apiEnv: NodeJS.ProcessEnv = {},
): Promise<RosettaSystem> {
  const databaseUrl = await replayedDatabase(serverUrl, fixture);
  const [apiPort, gatewayPort] = (await freePorts(2)) as [number, number];
  const common = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: '', LOG_LEVEL: 'warn', API_WORKERS: '1' };
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
    return { apiUrl, gatewayUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
