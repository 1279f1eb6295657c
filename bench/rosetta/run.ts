/**
 * bench/rosetta/run: the Rosetta Data API through the gateway on the 4,000-block bench database (not a test; no
 * assertions).
 *
 * The database is the one `bench/api/chain-reads.ts` fills (the same generator and sizes: BENCH_BLOCKS blocks of 50
 * STX transfers through observer, bus and indexer, each transaction announced to the mempool first, the last 20
 * blocks held back), with one difference: the transfers are the pool's mainnet ones only, so that every account is
 * of the one network the api serves. Their senders get a genesis allocation (`ROSETTA_GENESIS_BALANCES_FILE`, the
 * `mint` operations of the genesis block), so that no balance goes below zero and `check:data` can reconcile them.
 *
 * 1. Load: `wrk` (else a Node keep-alive generator) measures, through the gateway (rate limiting and access log
 *    off), `/rosetta/v1/block` and `/extended/v2/blocks/{h}` for the same block (and `/extended/v2/blocks/{h}/
 *    transactions` when the api serves it), and `/rosetta/v1/account/balance` of the busiest account at the tip and
 *    at that block. BENCH_ROUNDS rounds alternate the targets; figures are `median (min–max)` of the rounds.
 * 2. `rosetta-cli check:data` (`make rosetta-cli`) syncs the database from genesis to the tip through the gateway,
 *    timed, with the CPU each side spent in that window (the tool, the api, the gateway, PostgreSQL) and, with
 *    BENCH_PROFILE=1, the api's CPU profile (`node --cpu-prof`).
 *
 * BENCH_BASELINE=<dir of a built bundle> (`node scripts/build.mjs --outdir <dir>` on another tree) adds a second api
 * and gateway from that bundle on the same database: every load round and every `check:data` run measures both,
 * alternating, so a change is compared within one sitting.
 *
 * Checks that the work was done: the fill ends with no dead letter and the last posted block as the tip; before any
 * load every target answers 200, `/block` with the block's 50 transactions and `/account/balance` with the balance
 * summed independently from the stored events and fees (and the same bodies from both apis); an error answer under
 * load, or a `check:data` run that does not reach the tip or fails a reconciliation, makes the run invalid
 * (`BENCH INVALID`, exit 1, no summary).
 *
 *   npx tsx bench/rosetta/run.ts
 *   env: BENCH_BLOCKS=4000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 BENCH_REUSE=<dir>
 *        BENCH_BASELINE=<bundle dir> BENCH_CHECK_DATA=1 BENCH_CHECK_DATA_ROUNDS=1 BENCH_PROFILE=1 BENCH_ONLY=<text>
 *        BENCH_SOURCES=1 (the services from their sources through tsx instead of the built bundles)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { migrateLatest } from '@bda/db';
import { startPostgres } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { fixtureTransferPool, generateChain, type PoolTransfer } from '../ingest/generate-chain';
import { useBuiltServices } from '../ingest/built-services';
import { filledDatabase, removeBenchDir } from '../ingest/bench-dir';
import { checkIngested, expectedTip } from '../ingest/check-ingested';
import { postmasterPid, procStat, startCpuWindow } from '../ingest/proc-cpu';
import { hasWrk, type Load } from '../http-load';
import { BenchInvalidError, formatSpread } from '../spread';
import { runCheckData, type CheckDataRun } from './check-data';
import { profileOf, summarizeProfile, type ProfileSummary } from './cpu-profile';
import { send, targetLoad, type Target } from './post-load';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 4000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHECK_DATA = process.env.BENCH_CHECK_DATA !== '0';
const CHECK_DATA_ROUNDS = Number(process.env.BENCH_CHECK_DATA_ROUNDS ?? 1);
/** Stops each `check:data` run after this many seconds (0: runs to the end) and reports how far it got. */
const CHECK_DATA_SECONDS = Number(process.env.BENCH_CHECK_DATA_SECONDS ?? 0);
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Requests one at a time per target and api, for the latency table. */
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 20);
/** Targets (name contains one of these) the baseline api is not load-measured on (see the README): one at a time only. */
const BASELINE_SKIP = (process.env.BENCH_BASELINE_SKIP ?? '').split(',').filter(Boolean);
/** wrk's per-request timeout: a slow answer is measured, not counted as an error after wrk's default 2 s. */
const TIMEOUT_SECONDS = 30;
const PENDING_BLOCKS = 20;
/** Each sender's genesis allocation, micro-STX: a billion STX, more than any sender spends here. */
const GENESIS_ALLOCATION = 10n ** 15n;
const NETWORK = { blockchain: 'stacks', network: 'mainnet' } as const;

/** The pool's mainnet transfers (version byte 0x00): one network, as a Rosetta deployment serves. */
function mainnetPool(): PoolTransfer[] {
  return fixtureTransferPool().transfers.filter((t) => t.rawTx.startsWith('0x00'));
}

interface Variant {
  name: string;
  /** The built bundle its api and gateway run. */
  bundleDir: string | undefined;
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      'npx tsx bench/rosetta/run.ts   (env: BENCH_BLOCKS=4000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 BENCH_REUSE=<dir> BENCH_BASELINE=<bundle dir> BENCH_CHECK_DATA=1 BENCH_CHECK_DATA_ROUNDS=1 BENCH_PROFILE=1 BENCH_ONLY=<text> BENCH_SOURCES=1)',
    );
    return;
  }
  const reuse = process.env.BENCH_REUSE ? resolve(process.env.BENCH_REUSE) : undefined;
  const tmp = reuse ?? join(ROOT, '.tmp', `bench-rosetta-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  console.log(`measuring ${await useBuiltServices(tmp, process.env.BENCH_SOURCES === '1')}`);
  const variants: Variant[] = [{ name: 'this tree', bundleDir: process.env.BDA_BUNDLE_DIR }];
  if (process.env.BENCH_BASELINE) variants.push({ name: 'baseline', bundleDir: resolve(process.env.BENCH_BASELINE) });
  const pgDir = join(tmp, 'pg');
  const server = await startPostgres({ dataDir: pgDir, fresh: reuse === undefined });
  try {
    const pool = mainnetPool();
    const databaseUrl = reuse ? await filledDatabase(server.url) : await fill(server.url, pool);
    const genesisFile = join(tmp, 'genesis-balances.json');
    const senders = [...new Set(pool.map((t) => t.sender))];
    writeFileSync(
      genesisFile,
      JSON.stringify(
        senders.map((address) => ({
          account_identifier: { address },
          currency: { symbol: 'STX', decimals: 6 },
          value: GENESIS_ALLOCATION.toString(),
        })),
      ),
    );
    const env = (v: Variant, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      LOG_LEVEL: 'warn',
      API_WORKERS: '1',
      RATE_LIMIT_ENABLED: 'false',
      ACCESS_LOG: 'false',
      ROSETTA_NETWORK: 'mainnet',
      ROSETTA_GENESIS_BALANCES_FILE: genesisFile,
      // A slow answer (the baseline's /account/balance took seconds) is measured, not cut by a timeout.
      API_STATEMENT_TIMEOUT_MS: '120000',
      UPSTREAM_TRY_TIMEOUT_MS: '120000',
      UPSTREAM_TOTAL_TIMEOUT_MS: '120000',
      ...(v.bundleDir ? { BDA_BUNDLE_DIR: v.bundleDir } : {}),
      ...extra,
    });
    const serve = (v: Variant, extra?: NodeJS.ProcessEnv) =>
      TestSystem.start({
        bus: 'postgres',
        serverUrl: server.url,
        kafkaBrokers: '',
        databaseUrl,
        services: ['api', 'gateway'],
        env: env(v, extra),
      });

    const systems = [];
    for (const v of variants) systems.push(await serve(v));
    const db = systems[0]!.db;
    try {
      // Migrations this tree added since the fill (the indexer ran those it had).
      await migrateLatest(db);
      await checkFilled(db);
      const count = async (sql: string) => Number(((await db.raw(sql)) as { rows: Array<{ n: string }> }).rows[0]!.n);
      console.log(
        `database: ${await count('SELECT count(*) AS n FROM blocks')} blocks, ${await count('SELECT count(*) AS n FROM txs')} transactions, ` +
          `${await count('SELECT count(*) AS n FROM events')} events, ${senders.length} senders with a genesis allocation`,
      );
      const height = Math.floor(BLOCKS / 2);
      const busiest = (
        (await db.raw('SELECT address, tx_count FROM address_tx_counts ORDER BY tx_count DESC, address LIMIT 1')) as {
          rows: Array<{ address: string; tx_count: string }>;
        }
      ).rows[0]!;
      const expectedAt = async (h: number | null) => expectedBalance(db, busiest.address, h, senders.includes(busiest.address));
      const expected = { tip: await expectedAt(null), block: await expectedAt(height) };
      const targets = (base: string): Array<[string, Target]> => [
        [
          'rosetta /block',
          { url: `${base}/rosetta/v1/block`, body: { network_identifier: NETWORK, block_identifier: { index: height } } },
        ],
        ['/extended/v2/blocks/{h}', { url: `${base}/extended/v2/blocks/${height}` }],
        ['/extended/v2/blocks/{h}/transactions', { url: `${base}/extended/v2/blocks/${height}/transactions?limit=50` }],
        ['/extended/v1/tx/block_height/{h}', { url: `${base}/extended/v1/tx/block_height/${height}?limit=50` }],
        [
          `rosetta /account/balance, tip`,
          {
            url: `${base}/rosetta/v1/account/balance`,
            body: { network_identifier: NETWORK, account_identifier: { address: busiest.address } },
          },
        ],
        [
          `rosetta /account/balance, block ${height}`,
          {
            url: `${base}/rosetta/v1/account/balance`,
            body: {
              network_identifier: NETWORK,
              account_identifier: { address: busiest.address },
              block_identifier: { index: height },
            },
          },
        ],
      ];
      console.log(`busiest account ${busiest.address} (${busiest.tx_count} transactions); block ${height}`);

      // Every target answers 200 with the work done, the same body from every variant; a target the api does not
      // serve (404) is left out.
      const only = process.env.BENCH_ONLY;
      const chosen: Array<[string, Map<string, Target>]> = [];
      for (const [name] of targets('')) {
        if (only !== undefined && !name.includes(only)) continue;
        const byVariant = new Map<string, Target>();
        const bodies = new Set<string>();
        let missing = false;
        for (const [i, v] of variants.entries()) {
          const target = targets(systems[i]!.gatewayUrl).find(([n]) => n === name)![1];
          const r = await send(target);
          if ((r.status === 404 || r.status === 405) && target.body === undefined) {
            missing = true;
            continue;
          }
          if (r.status !== 200) throw new BenchInvalidError(`${v.name}: ${name} answered ${r.status}: ${r.text.slice(0, 500)}`);
          checkAnswer(name, r.text, height, expected);
          bodies.add(normalize(name, r.text));
          byVariant.set(v.name, target);
        }
        if (missing) {
          console.log(`(${name} answers 404: not measured)`);
          continue;
        }
        if (bodies.size > 1) throw new BenchInvalidError(`${name}: the variants answer differently`);
        chosen.push([name, byVariant]);
      }

      const runs = new Map<string, Load[]>();
      const key = (target: string, variant: string) => (variants.length > 1 ? `${target} [${variant}]` : target);
      const entries = chosen.flatMap(([name, byVariant]) =>
        variants
          .filter((v) => v.name !== 'baseline' || !BASELINE_SKIP.some((text) => name.includes(text)))
          .map((v) => [name, v.name, byVariant.get(v.name)!] as const),
      );

      // One request at a time, the apis alternating request by request: each answer's own time.
      const latencies = new Map<string, number[]>();
      for (const [name, byVariant] of chosen) {
        for (let i = 0; i < SEQUENTIAL; i++) {
          for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
            const t0 = performance.now();
            const r = await send(byVariant.get(v.name)!);
            const ms = performance.now() - t0;
            if (r.status !== 200) throw new BenchInvalidError(`${v.name}: ${name} answered ${r.status} one at a time`);
            latencies.set(key(name, v.name), [...(latencies.get(key(name, v.name)) ?? []), ms]);
          }
        }
      }
      console.log(`\none at a time, ${SEQUENTIAL} requests each, the apis alternating: ms, median (min–max)`);
      for (const [name, xs] of latencies) console.log(`  ${name.padEnd(52)}${formatSpread(xs, 2)}`);
      console.log(
        `\n${CONNECTIONS} connections, ${SECONDS} s each, ${hasWrk() ? 'wrk' : 'node generator'}, through the gateway ` +
          `(one worker, rate limiting and access log off); api: one worker; ${ROUNDS} alternating round(s)`,
      );
      const ratios = new Map<string, number[]>();
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating: each round starts one target further along.
        const order = entries.map((_, i) => entries[(i + round) % entries.length]!);
        console.log(`round ${round + 1}/${ROUNDS}`);
        const thisRound = new Map<string, Load>();
        for (const [name, variant, target] of order) {
          await targetLoad(target, Math.min(2, SECONDS), CONNECTIONS, TIMEOUT_SECONDS); // warm-up
          const r = await targetLoad(target, SECONDS, CONNECTIONS, TIMEOUT_SECONDS);
          runs.set(key(name, variant), [...(runs.get(key(name, variant)) ?? []), r]);
          thisRound.set(key(name, variant), r);
          console.log(
            `  ${key(name, variant).padEnd(52)}${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors ? `  (${r.errors} errors)` : ''}`,
          );
        }
        for (const v of variants) {
          const block = thisRound.get(key('rosetta /block', v.name));
          const v2 = thisRound.get(key('/extended/v2/blocks/{h}', v.name));
          const txs = thisRound.get(key('/extended/v1/tx/block_height/{h}', v.name));
          const add = (k: string, x: number) => ratios.set(key(k, v.name), [...(ratios.get(key(k, v.name)) ?? []), x]);
          if (block && v2) add('rosetta /block ÷ /extended/v2/blocks/{h}', block.rps / v2.rps);
          // A block with its transactions the reference way: the block, then its transactions' page. Pairs a second
          // the api could serve: the two requests' service times added (both measured in this round).
          if (block && v2 && txs)
            add('rosetta /block ÷ (v2 block + its transactions page)', block.rps * (1 / v2.rps + 1 / txs.rps));
        }
      }
      const failing = [...runs].filter(([, rs]) => rs.some((r) => r.errors > 0));
      if (failing.length > 0)
        throw new BenchInvalidError(`non-200 answers or socket errors under load: ${failing.map(([name]) => name).join(', ')}`);
      const summary = [
        `\n${new Date().toISOString()}: median (min–max) of ${ROUNDS} alternating round(s), no error answers`,
        '| target | req/s | p50 ms | p99 ms |',
        '|---|---|---|---|',
        ...[...runs].map(([name, rs]) => {
          const f = (pick: (r: Load) => number, digits: number) => formatSpread(rs.map(pick), digits);
          return `| ${name} | ${f((r) => r.rps, 0)} | ${f((r) => r.p50, 2)} | ${f((r) => r.p99, 2)} |`;
        }),
        ...[...ratios].map(([name, xs]) => `${name}, within each round: ${formatSpread(xs, 2)}`),
      ];
      console.log(summary.join('\n'));

      if (CHECK_DATA) {
        for (const s of systems) await s.stop();
        systems.length = 0;
        const checkRuns = new Map<
          string,
          Array<{ run: CheckDataRun; cpu: Record<string, number>; served: Served; profile?: ProfileSummary }>
        >();
        for (let round = 0; round < CHECK_DATA_ROUNDS; round++) {
          const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
          for (const v of order) {
            const profDir = join(tmp, `prof-${v.name.replace(/\W+/g, '-')}-${round}`);
            const sys = await serve(v, PROFILE ? { BDA_NODE_ARGS: `--cpu-prof --cpu-prof-dir=${profDir}` } : {});
            const apiPid = sys.procs.get('api')!.child.pid!;
            const gatewayPid = sys.procs.get('gateway')!.child.pid!;
            let result: CheckDataRun;
            let cpu: Record<string, number>;
            let served: Served;
            try {
              console.log(
                `\ncheck:data [${v.name}], round ${round + 1}/${CHECK_DATA_ROUNDS}: genesis to block ${BLOCKS}` +
                  `${CHECK_DATA_SECONDS ? `, stopped after ${CHECK_DATA_SECONDS} s` : ''}…`,
              );
              const window = startCpuWindow({ api: apiPid, gateway: gatewayPid, postgres: postmasterPid(pgDir) });
              const reaped = () => {
                const s = procStat(process.pid);
                return s.childUser + s.childSys;
              };
              const toolBefore = reaped();
              result = await runCheckData({
                dir: join(tmp, `check-data-${process.pid}-${round}-${v.name.replace(/\W+/g, '-')}`),
                onlineUrl: `${sys.gatewayUrl}/rosetta/v1`,
                network: 'mainnet',
                tipHeight: BLOCKS,
                expectedBlocks: BLOCKS,
                maxSeconds: CHECK_DATA_SECONDS || undefined,
              });
              cpu = { ...window.stop(), 'rosetta-cli': reaped() - toolBefore };
              served = await servedByApi(sys.apiUrl);
            } finally {
              await sys.stop();
            }
            const profile = PROFILE ? summarizeProfile(profileOf(profDir, apiPid)) : undefined;
            checkRuns.set(v.name, [...(checkRuns.get(v.name) ?? []), { run: result, cpu, served, profile }]);
            const s = result.stats;
            console.log(
              `  ${result.finished ? 'finished' : 'stopped'} after ${result.seconds.toFixed(1)} s: ${s.blocks} blocks, ${s.transactions} transactions, ${s.operations} operations, ` +
                `${s.accounts} accounts; reconciliations ${s.active_reconciliations} active, ${s.inactive_reconciliations} inactive, ` +
                `${s.failed_reconciliations} failed, ${s.skipped_reconciliations} skipped, coverage ${(s.reconciliation_coverage * 100).toFixed(1)} %`,
            );
            console.log(
              `  CPU in that window: ${Object.entries(cpu)
                .map(
                  ([n, ms]) =>
                    `${n} ${(ms / 1000).toFixed(1)} s (${((ms / 1000 / result.seconds) * 100).toFixed(0)} % of a core)`,
                )
                .join(', ')}`,
            );
            console.log(
              `  the api served ${served.block.count} /block (mean ${served.block.meanMs.toFixed(1)} ms in the api) and ` +
                `${served.balance.count} /account/balance (mean ${served.balance.meanMs.toFixed(1)} ms)`,
            );
            if (profile) {
              console.log(
                `  api profile: ${(profile.wallMs / 1000).toFixed(1)} s, idle ${((profile.idleMs / profile.wallMs) * 100).toFixed(0)} %, GC ${(profile.gcMs / 1000).toFixed(1)} s; most self time:`,
              );
              for (const t of profile.top) console.log(`    ${(t.ms / 1000).toFixed(2).padStart(7)} s  ${t.name}`);
            }
          }
        }
        console.log(
          `\n${new Date().toISOString()}: check:data from genesis${CHECK_DATA_SECONDS ? `, each run stopped after ${CHECK_DATA_SECONDS} s` : ' to the tip'}, median (min–max) of ${CHECK_DATA_ROUNDS} run(s)`,
        );
        console.log(
          '| api | seconds | blocks synced | active reconciliations | reconciliations/s | rosetta-cli CPU s | api CPU s | gateway CPU s | PostgreSQL CPU s | api ms per /account/balance |',
        );
        console.log('|---|---|---|---|---|---|---|---|---|---|');
        for (const [name, rs] of checkRuns) {
          const f = (pick: (r: (typeof rs)[number]) => number, digits: number) => formatSpread(rs.map(pick), digits);
          console.log(
            `| ${name} | ${f((r) => r.run.seconds, 1)} | ${f((r) => r.run.stats.blocks, 0)} | ` +
              `${f((r) => r.run.stats.active_reconciliations, 0)} | ${f((r) => r.run.stats.active_reconciliations / r.run.seconds, 1)} | ` +
              `${f((r) => r.cpu['rosetta-cli']! / 1000, 1)} | ${f((r) => r.cpu['api']! / 1000, 1)} | ` +
              `${f((r) => r.cpu['gateway']! / 1000, 1)} | ${f((r) => r.cpu['postgres']! / 1000, 1)} | ${f((r) => r.served.balance.meanMs, 1)} |`,
          );
        }
      }
    } finally {
      for (const s of systems) await s.stop();
    }
  } finally {
    await server.stop();
    if (!reuse) removeBenchDir(tmp);
  }
}

/** What the api served of a Rosetta route: requests and their mean time in the api (its request histogram). */
interface Served {
  block: { count: number; meanMs: number };
  balance: { count: number; meanMs: number };
}

async function servedByApi(apiUrl: string): Promise<Served> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const of = (route: string) => {
    const read = (kind: string) =>
      [
        ...text.matchAll(new RegExp(`^api_http_request_duration_seconds_${kind}\\{[^}]*route="${route}"[^}]*\\} (\\S+)$`, 'gm')),
      ].reduce((n, m) => n + Number(m[1]), 0);
    const count = read('count');
    return { count, meanMs: count > 0 ? (read('sum') / count) * 1000 : NaN };
  };
  return { block: of('/v1/block'), balance: of('/v1/account/balance') };
}

/** Fills a new database through observer, bus and indexer (as `bench/api/chain-reads.ts`); its URL. */
async function fill(serverUrl: string, pool: PoolTransfer[]): Promise<string> {
  const t0 = performance.now();
  const sys = await TestSystem.start({
    bus: 'postgres',
    serverUrl,
    kafkaBrokers: '',
    services: ['indexer', 'observer'],
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    const chain = generateChain({ blocks: BLOCKS + PENDING_BLOCKS, txsPerBlock: 50, mempool: true, transfers: pool });
    // Everything but the last blocks themselves: their transactions stay in the mempool.
    let blocksLeft = BLOCKS;
    const events = chain.filter((e) => e.path !== '/new_block' || blocksLeft-- > 0);
    await replayEvents(events, { observerUrl: sys.observerUrl });
    await sys.waitForAppliedFromDb(3_600_000, 50);
    await checkIngested(sys.db, expectedTip(events));
    await sys.stopService('observer');
    await sys.stopService('indexer');
    // What autovacuum would have done by now on a server that ran for a while.
    await sys.db.raw('VACUUM ANALYZE');
    console.log(`database filled in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    return sys.databaseUrl;
  } finally {
    await sys.stop();
  }
}

/** A filled database (new or reused): nothing dead-lettered, the tip at BLOCKS. */
async function checkFilled(db: TestSystem['db']): Promise<void> {
  const dead = Number(((await db.raw('SELECT count(*) AS n FROM dead_letters')) as { rows: Array<{ n: string }> }).rows[0]!.n);
  const tip = (await db('chain_tip').first('block_height')) as { block_height: number } | undefined;
  if (dead > 0 || tip?.block_height !== BLOCKS)
    throw new BenchInvalidError(`database: ${dead} dead letter(s), tip ${tip?.block_height ?? 'none'}, expected ${BLOCKS}`);
}

/**
 * `address`'s spendable STX at height `h` (null: the tip), summed here from the stored rows, independently of the
 * api's statements: the genesis allocation, plus transfers and mints received, minus transfers and burns sent, minus
 * the fees of the transactions it paid for (no locks and no miner rewards in this chain).
 */
async function expectedBalance(db: TestSystem['db'], address: string, h: number | null, allocated: boolean): Promise<string> {
  const { rows } = (await db.raw(
    `WITH at AS (SELECT coalesce(?::int, (SELECT block_height FROM chain_tip)) AS h)
     SELECT ((SELECT coalesce(sum(amount), 0) FROM events, at WHERE canonical AND committed AND recipient = ? AND block_height <= at.h
                AND type IN ('stx_transfer_event', 'stx_mint_event'))
           - (SELECT coalesce(sum(amount), 0) FROM events, at WHERE canonical AND committed AND sender = ? AND block_height <= at.h
                AND type IN ('stx_transfer_event', 'stx_burn_event'))
           - (SELECT coalesce(sum(fee_rate), 0) FROM txs, at WHERE canonical AND block_height <= at.h
                AND (CASE WHEN sponsored THEN sponsor_address ELSE sender_address END) = ?))::text AS n`,
    [h, address, address, address],
  )) as { rows: Array<{ n: string }> };
  return (BigInt(rows[0]!.n) + (allocated ? GENESIS_ALLOCATION : 0n)).toString();
}

/** The answer shows the work: `/block` the block with its 50 transactions, `/account/balance` the expected balance. */
function checkAnswer(name: string, text: string, height: number, expected: { tip: string; block: string }): void {
  const body = JSON.parse(text) as Record<string, unknown>;
  if (name === 'rosetta /block') {
    const block = body['block'] as { block_identifier: { index: number }; transactions: Array<{ operations: unknown[] }> };
    const txs = block.transactions.filter((t) => t.operations.length > 0);
    if (block.block_identifier.index !== height || txs.length < 50)
      throw new BenchInvalidError(`${name}: block ${block.block_identifier.index} with ${txs.length} transactions`);
  } else if (name.startsWith('rosetta /account/balance')) {
    const value = (body['balances'] as Array<{ value: string }>)[0]!.value;
    const want = name.endsWith('tip') ? expected.tip : expected.block;
    if (value !== want) throw new BenchInvalidError(`${name}: ${value}, expected ${want}`);
  } else if (name === '/extended/v1/tx/block_height/{h}') {
    const n = (body['results'] as unknown[] | undefined)?.length;
    if (n !== 50) throw new BenchInvalidError(`${name}: ${String(n)} transactions`);
  } else if (name === '/extended/v2/blocks/{h}') {
    if (body['height'] !== height) throw new BenchInvalidError(`${name}: height ${String(body['height'])}`);
  }
}

/**
 * What must agree between the apis: the body, but for `/account/balance` without `metadata.sequence_number`. This
 * generated chain reuses a pool of real transactions, so an account's nonces do not rise block after block as on a
 * real chain: the highest nonce so far (baseline) and the last transaction's (this tree, one index probe) differ here.
 */
function normalize(name: string, text: string): string {
  if (!name.startsWith('rosetta /account/balance')) return text;
  const { metadata: _, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** The one database a kept run filled on this server (TestSystem names them `e2e_…`). */

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
