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
 * Every offset-paged list of issue 24 is measured at its first page and at a deep page (offset 50,000, or the last
 * page where the list is shorter), and the plans of each list's statements at both depths are printed (EXPLAIN
 * ANALYZE with buffers, through `auto_explain` on an in-process api: `explain-plans.ts`), with their buffer totals
 * side by side: a list whose cost grows with the offset shows it there.
 *
 * The fill must end with no dead letter and the last posted block as the tip; BENCH_ROUNDS rounds alternate the
 * endpoints (each round starts one endpoint further along) and the summary gives each figure's median with its spread
 * (min–max). A non-200 answer under load makes the run invalid: the bench says so and exits 1 without a summary.
 *
 *   npx tsx bench/api/chain-reads.ts
 *   env: BENCH_BLOCKS=4000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 (keeps .tmp/bench-reads-<pid>)
 *        BENCH_REUSE=.tmp/bench-reads-<pid> (measures on a database a BENCH_KEEP run filled, without filling again)
 *        BENCH_ONLY=<text> (only the endpoints whose name contains it)
 *        BENCH_PLANS=0 (no plans) BENCH_PLANS_ONLY=1 (the plans, no load)
 * A reused database is migrated first (the indexer would on start; only the api runs here).
 */
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { startPostgres } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { fixtureTransferPool, generateChain } from '../ingest/generate-chain';
import { useBuiltServices } from '../ingest/built-services';
import { filledDatabase, removeBenchDir } from '../ingest/bench-dir';
import { hasWrk } from '../http-load';
import { measureEndpointRounds } from '../endpoint-rounds';
import { BenchInvalidError } from '../spread';
import { checkIngested, expectedTip } from '../ingest/check-ingested';
import { createDb, migrateLatest } from '@bda/db';
import { PlanExplainer } from './explain-plans';
import { apiAndPostgresCpu } from '../ingest/proc-cpu';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 4000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PENDING_BLOCKS = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The api's workers: BENCH_API_WORKERS, `default` for the api's own default (one per CPU); 1 when unset. */
const API_WORKERS =
  process.env.BENCH_API_WORKERS === 'default' ? availableParallelism() : Number(process.env.BENCH_API_WORKERS ?? 1);
/** The deep page's offset (or the last page's, where a list is shorter). */
const DEEP = 50_000;

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
    if (filled) {
      // The indexer migrates on start; only the api runs on a reused database.
      const db = createDb({ connectionString: filled, maxConnections: 1 });
      try {
        await migrateLatest(db);
        // Read models a migration just filled (088–090) as autovacuum would leave them: statistics and visibility map.
        await db.raw('VACUUM ANALYZE');
      } finally {
        await db.destroy();
      }
    }
    const sys = await TestSystem.start({
      bus: 'postgres',
      serverUrl: server.url,
      kafkaBrokers: '',
      databaseUrl: filled,
      services: filled ? ['api'] : ['indexer', 'observer', 'api'],
      env: { LOG_LEVEL: 'warn', API_WORKERS: String(API_WORKERS) },
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
      const mid = Math.floor(BLOCKS / 2);
      const burnHeight = (await pick<{ h: number }>(`SELECT burn_block_height AS h FROM blocks WHERE block_height = ${mid}`)).h;
      const txTotal = await count('SELECT count(*) AS n FROM txs WHERE canonical');
      // The sender with the most pending transactions, for the filtered mempool list.
      const pendingParty = await pick<{ principal: string; n: number }>(
        `SELECT sender_address AS principal, count(*)::int AS n FROM mempool_txs WHERE status = 'pending'
         GROUP BY sender_address ORDER BY n DESC, principal LIMIT 1`,
      );
      const pending = await count("SELECT count(*) AS n FROM mempool_txs WHERE status = 'pending'");
      const sizes: Record<string, number> = {
        blocks: BLOCKS,
        txs: txTotal,
        pending,
        microblocks: await count('SELECT count(*) AS n FROM microblocks WHERE canonical AND microblock_canonical'),
        rewards: await count('SELECT count(*) AS n FROM burn_block_rewards WHERE canonical'),
        slots: await count('SELECT count(*) AS n FROM burn_block_slot_holders WHERE canonical'),
        pox: await count('SELECT count(*) AS n FROM pox_events'),
        events: await count(
          `SELECT count(*) AS n FROM events WHERE canonical AND (sender = '${busiest.address}' OR recipient = '${busiest.address}')`,
        ),
      };
      /** The deep offset of a list of `n` rows paged by `limit`: 50,000, or the last page's. */
      const deepOf = (n: number, limit: number) => Math.max(0, Math.min(DEEP, n - limit));
      /** Issue 24's lists: name, first page, deep page (null: bounded by one block or burn block, or cursor-paged). */
      const lists: Array<[string, string, string | null]> = [
        ['v1 blocks', '/extended/v1/block', `/extended/v1/block?offset=${deepOf(sizes.blocks!, 20)}`],
        ['v2 blocks', '/extended/v2/blocks', `/extended/v2/blocks?offset=${deepOf(sizes.blocks!, 20)}`],
        ['v1 txs', '/extended/v1/tx', `/extended/v1/tx?offset=${deepOf(sizes.txs!, 20)}`],
        [
          'v1 txs of a type',
          '/extended/v1/tx?type=token_transfer',
          `/extended/v1/tx?type=token_transfer&offset=${deepOf(sizes.txs!, 20)}`,
        ],
        ['v1 microblocks', '/extended/v1/microblock', `/extended/v1/microblock?offset=${deepOf(sizes.microblocks!, 20)}`],
        ['v2 burn blocks', '/extended/v2/burn-blocks', `/extended/v2/burn-blocks?offset=${deepOf(sizes.blocks!, 20)}`],
        ['a burn block’s blocks', `/extended/v2/burn-blocks/${burnHeight}/blocks`, null],
        ['v2 block txs', `/extended/v2/blocks/${mid}/transactions`, `/extended/v2/blocks/${mid}/transactions?offset=40`],
        ['v3 block txs', `/extended/v3/blocks/${mid}/transactions`, null],
        ['v1 txs of a block', `/extended/v1/tx/block_height/${mid}`, `/extended/v1/tx/block_height/${mid}?offset=40`],
        ['mempool', '/extended/v1/tx/mempool', `/extended/v1/tx/mempool?offset=${deepOf(sizes.pending!, 20)}`],
        [
          `mempool of a sender (${pendingParty.n} pending)`,
          `/extended/v1/tx/mempool?sender_address=${pendingParty.principal}`,
          `/extended/v1/tx/mempool?sender_address=${pendingParty.principal}&offset=${deepOf(pendingParty.n, 20)}`,
        ],
        [
          `mempool of an address (${pendingParty.n}+ pending)`,
          `/extended/v1/tx/mempool?address=${pendingParty.principal}`,
          `/extended/v1/tx/mempool?address=${pendingParty.principal}&offset=${deepOf(pendingParty.n, 20)}`,
        ],
        [
          `v1 address mempool (${pendingParty.n}+ pending)`,
          `/extended/v1/address/${pendingParty.principal}/mempool`,
          `/extended/v1/address/${pendingParty.principal}/mempool?offset=${deepOf(pendingParty.n, 20)}`,
        ],
        // Cursor-paged (v3): the first page.
        ['v3 mempool', '/extended/v3/mempool/transactions', null],
        [
          `v3 mempool of a principal (${pendingParty.n}+ pending)`,
          `/extended/v3/principals/${pendingParty.principal}/mempool/transactions`,
          null,
        ],
        [
          'burnchain rewards',
          '/extended/v1/burnchain/rewards',
          `/extended/v1/burnchain/rewards?offset=${deepOf(sizes.rewards!, 96)}`,
        ],
        [
          'reward slot holders',
          '/extended/v1/burnchain/reward_slot_holders',
          `/extended/v1/burnchain/reward_slot_holders?offset=${deepOf(sizes.slots!, 96)}`,
        ],
        ['pox4 events', '/extended/v1/pox4/events', `/extended/v1/pox4/events?offset=${deepOf(sizes.pox!, 96)}`],
        [
          `tx events of an address (${sizes.events} events)`,
          `/extended/v1/tx/events?address=${busiest.address}`,
          `/extended/v1/tx/events?address=${busiest.address}&offset=${deepOf(sizes.events!, 96)}`,
        ],
      ];
      const listTargets: Array<[string, string]> = lists.flatMap(([name, first, deepPath]) => [
        [`${name}, first page`, first] as [string, string],
        ...(deepPath ? [[`${name}, offset ${deepPath.match(/offset=(\d+)/)![1]}`, deepPath] as [string, string]] : []),
      ]);
      const targets: Array<[string, string]> = [
        ['status', '/extended'],
        ['block by height', `/extended/v2/blocks/${mid}`],
        ['block by hash', `/extended/v2/blocks/${block.index_block_hash}`],
        ['v1 block by height', `/extended/v1/block/by_height/${mid}`],
        ['tx with its events', `/extended/v1/tx/${tx.tx_id}`],
        [`address of ${busiest.tx_count} txs`, `/extended/v1/address/${busiest.address}/transactions`],
        [`… at offset ${deep}`, `/extended/v1/address/${busiest.address}/transactions?offset=${deep}&limit=50`],
        [`address of ${quietest.tx_count} txs`, `/extended/v1/address/${quietest.address}/transactions`],
        ...listTargets,
      ];
      if (process.env.BENCH_PLANS !== '0') await printPlans(filled ?? sys.databaseUrl, lists);
      if (process.env.BENCH_PLANS_ONLY === '1') return;
      console.log(
        `\n${CONNECTIONS} connections, ${SECONDS} s each, ${hasWrk() ? 'wrk' : 'node generator'}; api: ${API_WORKERS} worker(s); ${ROUNDS} alternating round(s)`,
      );
      const only = process.env.BENCH_ONLY;
      const chosen = targets.filter(([name]) => only === undefined || name.includes(only));
      for (const [, path] of chosen) {
        const res = await fetch(sys.apiUrl + path);
        if (res.status !== 200) throw new BenchInvalidError(`${path} answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
      // CPU per request (µs) of the api process and of PostgreSQL during each timed run, from /proc.
      const cpu = apiAndPostgresCpu(sys.procs.get('api')!.child.pid!, join(tmp, 'pg'));
      await measureEndpointRounds({
        baseUrl: sys.apiUrl,
        endpoints: chosen,
        rounds: ROUNDS,
        seconds: SECONDS,
        connections: CONNECTIONS,
        cpu,
        nameWidth: 30,
      });
    } finally {
      await sys.stop();
    }
  } finally {
    await server.stop();
    if (!reuse) removeBenchDir(tmp);
  }
}

/**
 * Each list's statements at its first and its deep page, as PostgreSQL ran them (EXPLAIN ANALYZE, BUFFERS): a
 * summary line per list (milliseconds and buffers of its statements at both depths), then the plans.
 */
async function printPlans(databaseUrl: string, lists: Array<[string, string, string | null]>): Promise<void> {
  const explainer = PlanExplainer.start(databaseUrl);
  try {
    console.log('\nplans (auto_explain: ANALYZE, BUFFERS; generic plans as the api): statements of one request each');
    const summary: string[] = ['| list | first page: ms / buffers | deep page | deep page: ms / buffers |', '|---|---|---|---|'];
    for (const [name, first, deepPath] of lists) {
      const a = await explainer.explain(first);
      const b = deepPath ? await explainer.explain(deepPath) : null;
      const fig = (r: typeof a) =>
        `${r.statements.map((x) => x.ms.toFixed(2)).join(' + ')} ms / ${r.statements.map((x) => x.buffers).join(' + ')}`;
      summary.push(
        `| ${name} | ${fig(a)} | ${deepPath ? deepPath.replace(/^.*\?/, '?') : /^v3 mempool/.test(name) ? 'cursor-paged' : 'bounded by one block'} | ${b ? fig(b) : '–'} |`,
      );
      console.log(`\n${name}: ${first} (${a.status})`);
      for (const st of a.statements) console.log(st.tree);
      if (b && deepPath) {
        console.log(`${name}: ${deepPath} (${b.status})`);
        for (const st of b.statements) console.log(st.tree);
      }
    }
    console.log(`\n${summary.join('\n')}`);
  } finally {
    await explainer.stop();
  }
}

/** The one database a kept run filled on this server (TestSystem names them `e2e_…`). */

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
