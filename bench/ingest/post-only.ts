/**
 * How much the indexer's share of the machine costs the POST path: posts every fixture node-style (one event at a
 * time, each waiting for its 200) into a fresh system over Kafka, once with the indexer running and once without
 * it, and prints the time from the first POST to the last 200. No tip is awaited; only the intake path is timed.
 *
 *   npx tsx bench/ingest/post-only.ts [--runs 2] [--warm-up 20000] [--sources]
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startKafka, startPostgres } from '@bda/test-support';
import { useBuiltServices } from './built-services';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { loadFixture } from '../../test/support/fixtures';
import { TestSystem } from '../../test/support/test-system';
import { FIXTURE_FILES } from './generate-chain';
import { warmBroker } from './warm-broker';
import { removeBenchDir } from './bench-dir';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '2' },
      'warm-up': { type: 'string', default: '20000' },
      /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
      sources: { type: 'boolean', default: false },
    },
  });
  const tmp = join(ROOT, '.tmp', `bench-post-only-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
  const pg = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true });
  const kafka = await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true });
  try {
    await warmBroker(kafka.brokers, Number(values['warm-up']));
    const events = FIXTURE_FILES.flatMap((f) => loadFixture(f));
    const times: Record<'with' | 'without', number[]> = { with: [], without: [] };
    for (let run = 0; run < Number(values.runs); run++) {
      for (const indexer of [true, false]) {
        const sys = await TestSystem.start({
          bus: 'kafka',
          serverUrl: pg.url,
          kafkaBrokers: kafka.brokers,
          services: indexer ? ['indexer', 'observer'] : ['observer'],
          env: { LOG_LEVEL: 'warn' },
        });
        try {
          const t0 = performance.now();
          await replayEvents(events, { observerUrl: sys.observerUrl });
          const ms = performance.now() - t0;
          times[indexer ? 'with' : 'without'].push(ms);
          console.log(
            `run ${run + 1}, indexer ${indexer ? 'running' : 'stopped'}: ${events.length} POSTs in ${ms.toFixed(0)} ms`,
          );
        } finally {
          await sys.stop();
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `\nall fixtures, node-style POST phase: ${mean(times.with).toFixed(0)} ms with the indexer running, ` +
        `${mean(times.without).toFixed(0)} ms without (${(mean(times.with) / mean(times.without)).toFixed(2)}x)`,
    );
  } finally {
    await kafka.stop();
    await pg.stop();
    removeBenchDir(tmp);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
