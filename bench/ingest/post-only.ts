/**
 * How much the indexer's share of the machine costs the POST path: posts every fixture node-style (one event at a
 * time, each waiting for its 200) into a fresh system over Kafka, once with the indexer running and once without
 * it, and prints the time from the first POST to the last 200: only the intake path is timed. The runs alternate (with,
 * without, with, …) and the summary gives the median of each with its spread (min–max). After each timed window the
 * indexer (started then if it was not running) must apply everything with no dead letter and reach the fixtures'
 * expected tip, else the bench exits 1 without a summary.
 *
 *   npx tsx bench/ingest/post-only.ts [--runs 3] [--warm-up 20000] [--sources]
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
import { BenchInvalidError, formatSpread } from '../spread';
import { checkIngested, expectedTip } from './check-ingested';
import { FIXTURE_FILES } from './generate-chain';
import { warmBroker } from './warm-broker';
import { removeBenchDir } from './bench-dir';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      'warm-up': { type: 'string', default: '20000' },
      /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
      sources: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log('npx tsx bench/ingest/post-only.ts [--runs 3] [--warm-up 20000] [--sources]');
    return;
  }
  const tmp = join(ROOT, '.tmp', `bench-post-only-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
  const pg = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true });
  const kafka = await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true });
  let failed = false;
  try {
    await warmBroker(kafka.brokers, Number(values['warm-up']));
    const events = FIXTURE_FILES.flatMap((f) => loadFixture(f));
    const tip = expectedTip([], FIXTURE_FILES);
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
          // Outside the timed window: everything accepted reached the bus and applies cleanly.
          if (!indexer) await sys.startService('indexer');
          await sys.waitForAppliedFromDb(600_000, 20);
          await checkIngested(sys.db, tip);
        } finally {
          await sys.stop();
        }
      }
    }
    // The ratio of each alternating pair (the same minutes of the machine), then their median.
    const ratios = times.with.map((w, i) => w / times.without[i]!);
    console.log(
      `\n${new Date().toISOString()}, all fixtures, node-style POST phase, median (min–max) of ${times.with.length} alternating pair(s): ` +
        `${formatSpread(times.with, 0, ' ms')} with the indexer running, ${formatSpread(times.without, 0, ' ms')} without ` +
        `(ratio within each pair: ${formatSpread(ratios, 2, 'x')}); every run's events applied with no dead letter and the expected tip`,
    );
  } catch (err) {
    failed = true;
    console.error(err instanceof BenchInvalidError ? err.message : err);
  } finally {
    await kafka.stop();
    await pg.stop();
    removeBenchDir(tmp);
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
