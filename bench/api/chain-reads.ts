/**
 * bench/api/chain-reads: the chain endpoints' read speed on a database of a real size (not a test; no assertions).
 *
 * Fills a fresh database through the real pipeline, as `bench/ingest/catch-up.ts` does: a generated chain of
 * BENCH_BLOCKS blocks of 50 STX transfers, each transaction announced to the mempool first, goes through the observer
 * and the embedded bus into the indexer. The last 20 blocks are not posted, so their 1,000 transactions stay pending.
 * The transfers come from a small pool of real ones, so a few addresses hold tens of thousands of transactions each.
 * Then one api process (one worker) serves, and `wrk` (else a small Node keep-alive generator) measures each endpoint
 * for BENCH_SECONDS with BENCH_CONNECTIONS connections: requests/s, p50, p99 and non-200 answers.
 *
 * The fill must end with no dead letter and the last posted block as the tip; BENCH_ROUNDS rounds alternate the
 * endpoints (each round starts one endpoint further along) and the summary gives each figure's median with its spread
 * (min–max). A non-200 answer under load makes the run invalid: the bench says so and exits 1 without a summary.
 *
 *   npx tsx bench/api/chain-reads.ts
 *   env: BENCH_BLOCKS=4000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 (keeps .tmp/bench-reads-<pid>)
 *        BENCH_REUSE=.tmp/bench-reads-<pid> (measures on a database a BENCH_KEEP run filled, without filling again)
 *        BENCH_ONLY=<text> (only the endpoints whose name contains it)
 */
import { join, resolve } from 'node:path';
import { startPostgres } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { fixtureTransferPool, generateChain } from '../ingest/generate-chain';
import { useBuiltServices } from '../ingest/built-services';
import { filledDatabase, removeBenchDir } from '../ingest/bench-dir';
import { hasWrk, httpLoad, type Load } from '../http-load';
import { BenchInvalidError, formatSpread } from '../spread';
import { checkIngested, expectedTip } from '../ingest/check-ingested';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 4000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PENDING_BLOCKS = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      'npx tsx bench/api/chain-reads.ts   (env: BENCH_BLOCKS=4000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 BENCH_REUSE=<dir> BENCH_ONLY=<text>)',
    );
    return;
  }
  const reuse = process.env.BENCH_REUSE ? resolve(process.env.BENCH_REUSE) : undefined;
  const tmp = reuse ?? join(ROOT, '.tmp', `bench-reads-${process.pid}`);
  console.log(`measuring ${await useBuiltServices(tmp, false)}`);
  const server = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: reuse === undefined });
  try {
    const filled = reuse ? await filledDatabase(server.url) : undefined;
    const sys = await TestSystem.start({
      bus: 'postgres',
      serverUrl: server.url,
      kafkaBrokers: '',
      databaseUrl: filled,
      services: filled ? ['api'] : ['indexer', 'observer', 'api'],
      env: { LOG_LEVEL: 'warn', API_WORKERS: '1' },
    });
    try {
      const t0 = performance.now();
      if (!filled) {
        const chain = generateChain({
          blocks: BLOCKS + PENDING_BLOCKS,
          txsPerBlock: 50,
          mempool: true,
          ...fixtureTransferPool(),
        });
        // Everything but the last blocks themselves: their transactions stay in the mempool.
        let blocksLeft = BLOCKS;
        const events = chain.filter((e) => e.path !== '/new_block' || blocksLeft-- > 0);
        await replayEvents(events, { observerUrl: sys.observerUrl });
        await sys.waitForAppliedFromDb(1_800_000, 50);
        await checkIngested(sys.db, expectedTip(events));
        await sys.stopService('observer');
        await sys.stopService('indexer');
        // What autovacuum would have done by now on a server that ran for a while.
        await sys.db.raw('VACUUM ANALYZE');
      } else {
        // A reused database: nothing dead-lettered and the tip at the height a fill leaves.
        const dead = Number(
          ((await sys.db.raw('SELECT count(*) AS n FROM dead_letters')) as { rows: Array<{ n: string }> }).rows[0]!.n,
        );
        const tip = (await sys.db('chain_tip').first('block_height')) as { block_height: number } | undefined;
        if (dead > 0 || tip?.block_height !== BLOCKS)
          throw new BenchInvalidError(
            `reused database: ${dead} dead letter(s), tip ${tip?.block_height ?? 'none'}, expected ${BLOCKS}`,
          );
      }
      const count = async (sql: string) => Number(((await sys.db.raw(sql)) as { rows: Array<{ n: string }> }).rows[0]!.n);
      console.log(
        `database ${filled ? 'reused' : `filled in ${((performance.now() - t0) / 1000).toFixed(0)} s`}: ${await count('SELECT count(*) AS n FROM blocks')} blocks, ` +
          `${await count('SELECT count(*) AS n FROM txs')} transactions, ${await count('SELECT count(*) AS n FROM events')} events, ` +
          `${await count("SELECT count(*) AS n FROM mempool_txs WHERE status = 'pending'")} pending`,
      );
      const pick = async <T>(sql: string) => ((await sys.db.raw(sql)) as { rows: T[] }).rows[0]!;
      const busiest = await pick<{ address: string; tx_count: string }>(
        'SELECT address, tx_count FROM address_tx_counts ORDER BY tx_count DESC LIMIT 1',
      );
      const quietest = await pick<{ address: string; tx_count: string }>(
        'SELECT address, tx_count FROM address_tx_counts ORDER BY tx_count ASC LIMIT 1',
      );
      const tx = await pick<{ tx_id: string }>(`SELECT tx_id FROM txs WHERE block_height = ${Math.floor(BLOCKS / 2)} LIMIT 1`);
      const block = await pick<{ index_block_hash: string }>(
        `SELECT index_block_hash FROM blocks WHERE block_height = ${Math.floor(BLOCKS / 2)}`,
      );
      const deep = Math.max(0, Number(busiest.tx_count) - 50);
      const targets: Array<[string, string]> = [
        ['status', '/extended'],
        ['blocks, first page', '/extended/v2/blocks'],
        [`blocks at offset ${BLOCKS - 30}`, `/extended/v2/blocks?offset=${BLOCKS - 30}`],
        ['block by height', `/extended/v2/blocks/${Math.floor(BLOCKS / 2)}`],
        ['block by hash', `/extended/v2/blocks/${block.index_block_hash}`],
        ['tx with its events', `/extended/v1/tx/${tx.tx_id}`],
        ['mempool, first page', '/extended/v1/tx/mempool'],
        [`address of ${busiest.tx_count} txs`, `/extended/v1/address/${busiest.address}/transactions`],
        [`… at offset ${deep}`, `/extended/v1/address/${busiest.address}/transactions?offset=${deep}&limit=50`],
        [`address of ${quietest.tx_count} txs`, `/extended/v1/address/${quietest.address}/transactions`],
      ];
      console.log(
        `\n${CONNECTIONS} connections, ${SECONDS} s each, ${hasWrk() ? 'wrk' : 'node generator'}; api: one worker; ${ROUNDS} alternating round(s)`,
      );
      const only = process.env.BENCH_ONLY;
      const chosen = targets.filter(([name]) => only === undefined || name.includes(only));
      for (const [, path] of chosen) {
        const res = await fetch(sys.apiUrl + path);
        if (res.status !== 200) throw new BenchInvalidError(`${path} answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
      const runs = new Map<string, Load[]>();
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating: each round starts one endpoint further along.
        const order = chosen.map((_, i) => chosen[(i + round) % chosen.length]!);
        console.log(`round ${round + 1}/${ROUNDS}`);
        for (const [name, path] of order) {
          await httpLoad(sys.apiUrl + path, { seconds: Math.min(2, SECONDS), connections: CONNECTIONS }); // warm-up
          const r = await httpLoad(sys.apiUrl + path, { seconds: SECONDS, connections: CONNECTIONS });
          runs.set(name, [...(runs.get(name) ?? []), r]);
          console.log(
            `  ${name.padEnd(30)}${r.rps.toFixed(0).padStart(9)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors ? `  (${r.errors} errors)` : ''}`,
          );
        }
      }
      const failing = [...runs].filter(([, rs]) => rs.some((r) => r.errors > 0));
      if (failing.length > 0)
        throw new BenchInvalidError(`non-200 answers or socket errors under load: ${failing.map(([name]) => name).join(', ')}`);
      console.log(`\n${new Date().toISOString()}: median (min–max) of ${ROUNDS} alternating round(s), no error answers`);
      console.log('| endpoint | req/s | p50 ms | p99 ms |');
      console.log('|---|---|---|---|');
      for (const [name, rs] of runs) {
        const f = (pick: (r: Load) => number, digits: number) => formatSpread(rs.map(pick), digits);
        console.log(`| ${name} | ${f((r) => r.rps, 0)} | ${f((r) => r.p50, 2)} | ${f((r) => r.p99, 2)} |`);
      }
    } finally {
      await sys.stop();
    }
  } finally {
    await server.stop();
    if (!reuse) removeBenchDir(tmp);
  }
}

/** The one database a kept run filled on this server (TestSystem names them `e2e_…`). */

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
