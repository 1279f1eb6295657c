/**
 * `make start`: the whole system on its embedded default, each service its own process.
 * PostgreSQL: `DATABASE_URL`, else an embedded server with its data under .data/ (kept across restarts).
 * Bus: Kafka when `KAFKA_BROKERS` is set, else the durable log in PostgreSQL.
 */
import { join } from 'node:path';
import { startPostgres } from '@bda/test-support';
import { ROOT, startService, stopService, waitForHttp, type ServiceProcess } from './lib/service-process';

const ports = {
  gateway: Number(process.env.GATEWAY_PORT ?? 3999),
  observer: Number(process.env.OBSERVER_PORT ?? 3700),
  api: Number(process.env.API_PORT ?? 3001),
  indexer: Number(process.env.INDEXER_PORT ?? 3702),
};

async function main(): Promise<void> {
  let stopPg: (() => Promise<void>) | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pgPort = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
    console.log(`starting embedded PostgreSQL on 127.0.0.1:${pgPort} (data in .data/postgres)…`);
    const pg = await startPostgres({ dataDir: join(ROOT, '.data', 'postgres'), port: pgPort });
    databaseUrl = pg.url;
    stopPg = pg.stop;
  }
  const common = {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
  const procs: ServiceProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping: gateway, observer, api, indexer, then PostgreSQL…');
    for (const name of ['gateway', 'observer', 'api', 'indexer']) {
      const p = procs.find((x) => x.name === name);
      if (p) await stopService(p);
    }
    await stopPg?.();
    console.log('stopped.');
    process.exit(code);
  };
  // tsx's loader installs a SIGINT listener that exits at once; the ordered stop must be the only one.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  // Whatever started this script (make) may go without a signal reaching here, e.g. `timeout make start` signals
  // make alone. The services sit in process groups of their own and would run on, orphaned: stop with the parent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) {
      console.log(`the process that started this one (${parent}) is gone`);
      void stopAll(0);
    }
  }, 500).unref();

  const start = async (p: ServiceProcess, healthUrl: string) => {
    procs.push(p);
    void p.exited.then((code) => {
      if (!stopping) {
        console.error(`${p.name} exited unexpectedly (code ${code}); stopping everything`);
        void stopAll(1);
      }
    });
    await waitForHttp(healthUrl, 120_000, () => p.child.exitCode === null);
  };
  // The indexer first: it runs the migrations the api reads.
  await start(
    startService('indexer', { ...common, INDEXER_PORT: String(ports.indexer) }, undefined, true),
    `http://127.0.0.1:${ports.indexer}/readyz`,
  );
  await Promise.all([
    start(
      startService(
        'observer',
        // Bounded staleness (ADR 0015): the observer asks the indexer how far it is.
        { OBSERVER_INDEXER_URL: `http://127.0.0.1:${ports.indexer}`, ...common, OBSERVER_PORT: String(ports.observer) },
        undefined,
        true,
      ),
      `http://127.0.0.1:${ports.observer}/healthz`,
    ),
    start(
      startService('api', { ...common, API_PORT: String(ports.api) }, undefined, true),
      `http://127.0.0.1:${ports.api}/healthz`,
    ),
  ]);
  await start(
    startService(
      'gateway',
      {
        ...common,
        GATEWAY_PORT: String(ports.gateway),
        API_URLS: process.env.API_URLS ?? `http://127.0.0.1:${ports.api}`,
        NODE_RPC_URLS: process.env.NODE_RPC_URLS ?? 'http://127.0.0.1:20443',
      },
      undefined,
      true,
    ),
    `http://127.0.0.1:${ports.gateway}/healthz`,
  );
  console.log(`
The blockchain data API is running (bus: ${common.KAFKA_BROKERS ? `Kafka ${common.KAFKA_BROKERS}` : 'PostgreSQL log'}; ${process.env.BDA_BUNDLE_DIR ? 'the built services in dist/' : 'the services from their sources'}):
  gateway   http://127.0.0.1:${ports.gateway}        public entry: /extended, /runes/v1, /v2/… (node RPC)
  observer  http://127.0.0.1:${ports.observer}        point a Stacks node here: [[events_observer]] endpoint = "127.0.0.1:${ports.observer}"
  api       http://127.0.0.1:${ports.api}        (behind the gateway) docs at /docs, OpenAPI at /openapi.json
  indexer   http://127.0.0.1:${ports.indexer}/metrics
  database  ${databaseUrl.replace(/:[^:@/]+@/, ':***@')}
Replay recorded events: npm run replay -- test/fixtures/stacks-node-events/mocknet.tsv
Ctrl-C stops everything.`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
