/**
 * bench/ingest/sustained: how long each block takes to show through the api when a node posts at a steady rate.
 *
 * `run.ts` posts as fast as the observer answers, which says how fast a backlog goes in but not how fresh the api is
 * while blocks arrive at a given pace. Here a generated chain is posted on a schedule (block i due at i / rate s, one
 * POST at a time, as a node posts), while a client polls the api's `/extended` every few milliseconds. Each block's
 * lag is the time from its POST going out to the first `/extended` answer whose tip is at its height or above. For each
 * rate it starts a fresh system (new database, new topics, the services started cold) and prints the lag's p50, p99
 * and maximum, how many blocks took more than a second, the p50 of the first and the last quarter of the blocks (a
 * lag that grows from one to the other is a rate the system does not keep up with), and the rate the posting kept.
 * `--rounds` rounds alternate the rates (each round starts one rate further along); the summary gives each figure's
 * median with its spread (min–max). Every run must end with no dead letter and the chain's last block as the tip,
 * else the bench exits 1 without a summary.
 *
 *   npx tsx bench/ingest/sustained.ts [--rates 25,50,100,150] [--seconds 8] [--rounds 3] [--txs 50] [--mempool] [--poll-ms 5]
 *                                     [--bus kafka|postgres] [--warm-up 20000] [--sources]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startKafka, startPostgres } from '@bda/test-support';
import { EventPoster } from '../../scripts/lib/event-poster';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { BenchInvalidError, formatSpread } from '../spread';
import { checkIngested, expectedTip } from './check-ingested';
import { fixtureTransferPool, generateChain } from './generate-chain';
import { useBuiltServices } from './built-services';
import { warmBroker } from './warm-broker';
import { removeBenchDir } from './bench-dir';

const { values } = parseArgs({
  options: {
    /** Blocks a second to post at, one fresh system each. */
    rates: { type: 'string', default: '25,50,100,150' },
    /** How long to post at each rate. */
    seconds: { type: 'string', default: '8' },
    /** Rounds over the rates (alternating order); the summary gives the median and the spread. */
    rounds: { type: 'string', default: '3' },
    /** STX transfers a block. */
    txs: { type: 'string', default: '50' },
    /** How often the watching client asks the api for the tip. */
    'poll-ms': { type: 'string', default: '5' },
    /** Each block's transactions are posted first as `/new_mempool_tx`, as on mainnet (in the interval before it). */
    mempool: { type: 'boolean', default: false },
    bus: { type: 'string', default: 'kafka' },
    /** Produce/fetch messages to warm the just-started broker's JVM with before measuring (see README). */
    'warm-up': { type: 'string', default: '20000' },
    /** Run the services from their TypeScript sources through tsx instead of the built bundles `make start` runs. */
    sources: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

interface RateResult {
  rate: number;
  blocks: number;
  keptRate: number;
  p50: number;
  p99: number;
  max: number;
  overOneSecond: number;
  /** p50 of the first and the last quarter of the blocks: a lag that grows means the rate is not kept up with. */
  firstQuarterP50: number;
  lastQuarterP50: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(rate: number, bus: 'kafka' | 'postgres', serverUrl: string, kafkaBrokers: string): Promise<RateResult> {
  const blocks = Math.max(1, Math.round(rate * Number(values.seconds)));
  const chain = generateChain({ blocks, txsPerBlock: Number(values.txs), mempool: values.mempool, ...fixtureTransferPool() });
  // Each block with the events a node sends before it (with --mempool: its transactions' /new_mempool_tx).
  const groups: Array<{ before: typeof chain; block: (typeof chain)[number] }> = [];
  let before: typeof chain = [];
  for (const event of chain) {
    if (event.path !== '/new_block') {
      before.push(event);
      continue;
    }
    groups.push({ before, block: event });
    before = [];
  }
  const sys = await TestSystem.start({
    bus,
    serverUrl,
    kafkaBrokers,
    services: ['indexer', 'observer', 'api'],
    env: { LOG_LEVEL: 'warn' },
  });
  const poster = new EventPoster();
  try {
    const heights = groups.map((g) => (JSON.parse(g.block.body) as { block_height: number }).block_height);
    const posted: number[] = [];
    const visible: number[] = [];
    let done = false;
    // The watching client: a kept-alive fetch of /extended every poll-ms, as a wallet or explorer polling the tip.
    const watcher = (async () => {
      await (await fetch(`${sys.apiUrl}/extended`)).arrayBuffer(); // its first, cold call is not part of the window
      let seen = 0;
      while (!done || seen < blocks) {
        const res = await fetch(`${sys.apiUrl}/extended`);
        const now = performance.now();
        const body = (await res.json()) as { chain_tip?: { block_height: number } | null };
        const tip = body.chain_tip?.block_height ?? 0;
        while (seen < blocks && heights[seen]! <= tip) visible[seen++] = now;
        await sleep(Number(values['poll-ms']));
      }
    })();
    const t0 = performance.now() + 50;
    const post = async (path: string, body: string) => {
      for (;;) {
        const res = await poster.post(`${sys.observerUrl}${path}`, body);
        if (res.status === 200) return;
        if (res.status >= 400 && res.status < 500) throw new Error(`observer refused ${path}: ${res.status} ${res.text}`);
        await sleep(50);
      }
    };
    for (let i = 0; i < groups.length; i++) {
      const due = t0 + (i * 1000) / rate;
      // The mempool announcements go in during the interval before their block.
      for (const event of groups[i]!.before) await post(event.path, event.body);
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      // Counted from the moment the block goes out: time the observer held its answer (ADR 0015) is part of the lag.
      posted[i] = performance.now();
      await post(groups[i]!.block.path, groups[i]!.block.body);
    }
    done = true;
    // A timer of its own, cleared once the watcher is done: a pending 10-minute sleep kept the process alive (and its
    // rejection would have ended it with exit 1) long after the figures were printed.
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        watcher,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new BenchInvalidError('the tip did not reach the last block within 10 minutes')),
            600_000,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    await checkIngested(sys.db, expectedTip(chain));
    const inOrder = posted.map((p, i) => visible[i]! - p);
    const lags = [...inOrder].sort((a, b) => a - b);
    const quarter = Math.max(1, Math.floor(blocks / 4));
    const p50Of = (xs: number[]) =>
      quantile(
        [...xs].sort((a, b) => a - b),
        0.5,
      );
    return {
      firstQuarterP50: p50Of(inOrder.slice(0, quarter)),
      lastQuarterP50: p50Of(inOrder.slice(-quarter)),
      rate,
      blocks,
      keptRate: (blocks - 1) / ((posted.at(-1)! - posted[0]!) / 1000),
      p50: quantile(lags, 0.5),
      p99: quantile(lags, 0.99),
      max: lags.at(-1)!,
      overOneSecond: lags.filter((l) => l > 1000).length,
    };
  } finally {
    poster.close();
    await sys.stop();
  }
}

function printRun(r: RateResult): void {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(
    `  ${r.rate}/s: ${r.blocks} blocks, kept ${r.keptRate.toFixed(1)}/s, lag p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}, ` +
      `${r.overOneSecond} over 1 s, p50 first ¼ ${ms(r.firstQuarterP50)} → last ¼ ${ms(r.lastQuarterP50)}`,
  );
}

/** The median (min–max) of each rate's runs. */
function printSummary(results: RateResult[], rounds: number): void {
  const byRate = new Map<number, RateResult[]>();
  for (const r of results) byRate.set(r.rate, [...(byRate.get(r.rate) ?? []), r]);
  console.log(
    `\n${new Date().toISOString()}: median (min–max) of ${rounds} alternating round(s); every run ended with no dead letter and the expected tip`,
  );
  console.log(
    '| rate (blocks/s) | rate kept | lag p50 ms | lag p99 ms | lag max ms | over 1 s | p50 first ¼ ms | p50 last ¼ ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [rate, rs] of [...byRate].sort((a, b) => a[0] - b[0])) {
    const f = (pick: (r: RateResult) => number, digits = 0) => formatSpread(rs.map(pick), digits);
    console.log(
      `| ${rate} | ${f((r) => r.keptRate, 1)} | ${f((r) => r.p50)} | ${f((r) => r.p99)} | ${f((r) => r.max)} | ` +
        `${f((r) => r.overOneSecond)} of ${rs[0]!.blocks} | ${f((r) => r.firstQuarterP50)} | ${f((r) => r.lastQuarterP50)} |`,
    );
  }
  const fresh = [...byRate].filter(([rate, rs]) => rs.every((r) => r.max <= 1000 && r.keptRate >= rate * 0.95));
  console.log(
    fresh.length > 0
      ? `\nevery block of every run visible within 1 s of its POST up to ${Math.max(...fresh.map(([rate]) => rate))} blocks/s of ${values.txs} transfers`
      : `\nno rate kept every block within 1 s of its POST in every run`,
  );
}

async function main(): Promise<void> {
  if (values.help) {
    console.log(
      'npx tsx bench/ingest/sustained.ts [--rates 25,50,100,150] [--seconds 8] [--rounds 3] [--txs 50] [--mempool] [--poll-ms 5] [--bus kafka|postgres] [--warm-up 20000] [--sources]',
    );
    return;
  }
  const bus = values.bus as 'kafka' | 'postgres';
  const rates = values.rates!.split(',').map(Number);
  const rounds = Number(values.rounds);
  const tmp = join(ROOT, '.tmp', `bench-sustained-${process.pid}`);
  console.log(`measuring ${await useBuiltServices(tmp, values.sources!)}`);
  const pg = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: true });
  const kafka = bus === 'kafka' ? await startKafka({ dataDir: join(tmp, 'kafka'), fresh: true }) : null;
  const results: RateResult[] = [];
  let failed = false;
  try {
    if (kafka) await warmBroker(kafka.brokers, Number(values['warm-up']));
    for (let round = 0; round < rounds; round++) {
      // Alternating: each round starts one rate further along.
      const order = rates.map((_, i) => rates[(i + round) % rates.length]!);
      console.log(`round ${round + 1}/${rounds}: ${order.join(', ')} blocks/s`);
      for (const rate of order) {
        const r = await measure(rate, bus, pg.url, kafka?.brokers ?? '');
        results.push(r);
        printRun(r);
      }
    }
    printSummary(results, rounds);
  } catch (err) {
    failed = true;
    console.error(err instanceof BenchInvalidError ? err.message : err);
  } finally {
    await kafka?.stop();
    await pg.stop();
    removeBenchDir(tmp);
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
