/**
 * bench/accounts/account-reads: the account endpoints' read speed (issue 23's Performance bar) on the 4,000-block bench
 * database plus one principal with a long history and many fungible tokens (not a test; no assertions).
 *
 * The database: the 4,000 blocks of `bench/api/chain-reads.ts` (50 STX transfers each, 1,000 transactions pending),
 * filled here from scratch, or copied from a directory a `BENCH_KEEP=1` run of chain-reads kept (`BENCH_BASE`); then
 * BENCH_PRINCIPAL_TXS transactions of one principal are added through the real pipeline (observer, the embedded bus,
 * indexer) as further blocks of 500: each a real STX transfer of the principal from the fixtures' pool (made unique by
 * its memo) with an `stx_transfer_event` (every other one paying the principal, with a memo) and an `ft_mint_event` of
 * one of BENCH_FT_KINDS tokens to the principal.
 * Then BENCH_HOLDERS principals (1,000) holding 20–200 FT kinds and 1–20 NFT values each, in blocks of 100 holders
 * (one transaction a holder: an STX payment and the mints), added once to a reused database that lacks them; the
 * balance and nonce reads are also measured spread over them (one path per holder, in turn).
 * The fill must end with no dead letter, the last block as the tip, and the principal's history and token count and
 * the holders' kinds and values as generated. `BENCH_REUSE` measures on a directory a `BENCH_KEEP=1` run of this bench kept (migrated first: only the api runs).
 *
 * One api process (one worker) serves; every endpoint must answer 200 first; BENCH_ROUNDS rounds alternate the
 * endpoints, and the summary gives each figure's median and spread. A non-200 answer or socket error under load makes
 * the run invalid (`BENCH INVALID`, exit 1, no summary). Then each list's plan as the api runs it (its own datastore
 * function, generic plans, `auto_explain` with ANALYZE and BUFFERS) for the big principal and a small one.
 *
 *   npx tsx bench/accounts/account-reads.ts
 *   env: BENCH_BLOCKS=4000 BENCH_PRINCIPAL_TXS=100000 BENCH_FT_KINDS=1000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16
 *        BENCH_ROUNDS=3 BENCH_KEEP=1 (keeps .tmp/bench-accounts-<pid>) BENCH_REUSE=<dir> BENCH_BASE=<chain-reads dir>
 *        BENCH_ONLY=<text> (only the endpoints whose name contains it) BENCH_HOLDERS=1000
 */
import { availableParallelism } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { startPostgres } from '@bda/test-support';
import { encodeStacksAddress, txIdFromBytes } from '@bda/stacks-codec';
import type { RecordedEvent } from '@bda/observer';
import { replayEvents } from '../../scripts/lib/replay-events';
import { ROOT } from '../../scripts/lib/service-process';
import { TestSystem } from '../../test/support/test-system';
import { fixtureTransferPool, generateChain, type PoolTransfer } from '../ingest/generate-chain';
import { useBuiltServices } from '../ingest/built-services';
import { filledDatabase, removeBenchDir } from '../ingest/bench-dir';
import { hasWrk } from '../http-load';
import { measureEndpointRounds } from '../endpoint-rounds';
import { BenchInvalidError } from '../spread';
import { checkIngested, expectedTip } from '../ingest/check-ingested';
import { apiAndPostgresCpu } from '../ingest/proc-cpu';
import { ACCOUNT_LIST_READS } from '@bda/api';
import { createDb, migrateLatest } from '@bda/db';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 4000);
const PRINCIPAL_TXS = Number(process.env.BENCH_PRINCIPAL_TXS ?? 100_000);
const FT_KINDS = Number(process.env.BENCH_FT_KINDS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The api's workers: BENCH_API_WORKERS, `default` for the api's own default (one per CPU); 1 when unset. */
const API_WORKERS =
  process.env.BENCH_API_WORKERS === 'default' ? availableParallelism() : Number(process.env.BENCH_API_WORKERS ?? 1);
/** Principals holding many token kinds each (FT and NFT), for the balance reads spread over many keys. */
const HOLDERS = Number(process.env.BENCH_HOLDERS ?? 1000);
const HOLDERS_PER_BLOCK = 100;
const HOLDER_BLOCKS = Math.ceil(HOLDERS / HOLDERS_PER_BLOCK);
const PENDING_BLOCKS = 20;
const TXS_PER_BLOCK = 500;
const PRINCIPAL_BLOCKS = Math.ceil(PRINCIPAL_TXS / TXS_PER_BLOCK);

interface Tip {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  burn_block_height: number;
}

/**
 * The principal's blocks on top of `tip`: `PRINCIPAL_TXS` copies of its pool transfers, each with its STX transfer
 * event and the mint of one unit lot of token `t<n mod FT_KINDS>` of `<principal>.bench-tokens` to it.
 */
function principalBlocks(tip: Tip, principal: string, transfers: PoolTransfer[]): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const hex = (n: number) => `0x${randomBytes(n).toString('hex')}`;
  let parentIndex = tip.index_block_hash;
  let parentHash = tip.block_hash;
  let n = 0;
  for (let b = 1; b <= PRINCIPAL_BLOCKS; b++) {
    const height = tip.block_height + b;
    const index = hex(32);
    const blockHash = hex(32);
    const txs = [];
    const evs = [];
    for (let i = 0; i < TXS_PER_BLOCK && n < PRINCIPAL_TXS; i++, n++) {
      const transfer = transfers[n % transfers.length]!;
      // The transfer's payload ends with its 34-byte memo: a memo of its own makes each copy a transaction of its own.
      const raw = Buffer.from(transfer.rawTx.slice(2), 'hex');
      raw.write(`a:${height}:${i}`.padEnd(34, '\0'), raw.length - 34, 'latin1');
      const txid = txIdFromBytes(raw);
      txs.push({
        txid,
        raw_tx: `0x${raw.toString('hex')}`,
        raw_result: '0x0703',
        status: 'success',
        tx_index: i,
        contract_abi: null,
        execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
        microblock_hash: null,
        microblock_sequence: null,
        microblock_parent_hash: null,
      });
      evs.push(
        {
          txid,
          event_index: 2 * i,
          committed: true,
          type: 'stx_transfer_event',
          // Every other one pays the principal, with a memo (its inbound STX list).
          stx_transfer_event:
            n % 2 === 0
              ? { sender: principal, recipient: transfer.recipient, amount: transfer.amount, memo: '' }
              : { sender: transfer.recipient, recipient: principal, amount: transfer.amount, memo: '0x62656e6368' },
        },
        {
          txid,
          event_index: 2 * i + 1,
          committed: true,
          type: 'ft_mint_event',
          ft_mint_event: { asset_identifier: tokenOf(principal, n % FT_KINDS), recipient: principal, amount: '1000' },
        },
      );
    }
    const burn = tip.burn_block_height + b;
    const body = {
      block_hash: blockHash,
      index_block_hash: index,
      parent_block_hash: parentHash,
      parent_index_block_hash: parentIndex,
      parent_microblock: `0x${'00'.repeat(32)}`,
      parent_microblock_sequence: 0,
      miner_txid: hex(32),
      burn_block_hash: hex(32),
      burn_block_height: burn,
      burn_block_time: 1_700_000_000 + burn * 600,
      block_height: height,
      parent_burn_block_hash: hex(32),
      parent_burn_block_height: burn - 1,
      parent_burn_block_timestamp: 1_700_000_000 + (burn - 1) * 600,
      transactions: txs,
      events: evs,
      matured_miner_rewards: [],
    };
    const receivedAt = new Date(1_800_000_000_000 + height * 5_000).toISOString();
    events.push({ id: String(events.length + 1), receivedAt, path: '/new_block', body: JSON.stringify(body) });
    parentIndex = index;
    parentHash = blockHash;
  }
  return events;
}

const tokenOf = (principal: string, k: number) => `${principal}.bench-tokens::t${k}`;

/** The `h`th holder: a mainnet single-signature address of its own. */
const holderOf = (h: number) =>
  encodeStacksAddress(22, createHash('sha256').update(`bench-holder-${h}`).digest().subarray(0, 20));
/** How many FT kinds the `h`th holder holds (20–200) and how many NFT values (1–20). */
const holderFtKinds = (h: number) => 20 + ((h * 37) % 181);
const holderNfts = (h: number) => 1 + ((h * 13) % 20);
/** The FT kinds of the holders (`<issuer>.bench-kinds::k<j>`) and their NFT classes (`<issuer>.bench-nfts::n<j>`). */
const holderFt = (issuer: string, j: number) => `${issuer}.bench-kinds::k${j}`;
const holderNft = (issuer: string, j: number) => `${issuer}.bench-nfts::n${j}`;
/** Amounts that differ from holder to holder and kind to kind (so the v3 lists' balance order is not the asset order). */
const holderAmount = (h: number, j: number) => String(((h * 7919 + j * 104_729) % 1_000_000) + 1);
/** Every holder's FT kinds and NFT values, as the fill makes them. */
const HOLDER_FT_ROWS = Array.from({ length: HOLDERS }, (_, h) => holderFtKinds(h)).reduce((a, b) => a + b, 0);
const HOLDER_NFT_ROWS = Array.from({ length: HOLDERS }, (_, h) => holderNfts(h)).reduce((a, b) => a + b, 0);

/**
 * The holders' blocks on top of `tip`: one transaction a holder (a copy of a pool transfer, made unique by its memo)
 * whose events pay it STX, mint it `holderFtKinds(h)` kinds of `<issuer>.bench-kinds` and `holderNfts(h)` values of
 * the five `<issuer>.bench-nfts` classes.
 */
function holderBlocks(tip: Tip, issuer: string, transfers: PoolTransfer[]): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const hex = (n: number) => `0x${randomBytes(n).toString('hex')}`;
  let parentIndex = tip.index_block_hash;
  let parentHash = tip.block_hash;
  for (let b = 1; b <= HOLDER_BLOCKS; b++) {
    const height = tip.block_height + b;
    const index = hex(32);
    const blockHash = hex(32);
    const txs = [];
    const evs = [];
    let eventIndex = 0;
    for (let i = 0; i < HOLDERS_PER_BLOCK; i++) {
      const h = (b - 1) * HOLDERS_PER_BLOCK + i;
      if (h >= HOLDERS) break;
      const holder = holderOf(h);
      const transfer = transfers[h % transfers.length]!;
      const raw = Buffer.from(transfer.rawTx.slice(2), 'hex');
      raw.write(`h:${height}:${i}`.padEnd(34, '\0'), raw.length - 34, 'latin1');
      const txid = txIdFromBytes(raw);
      txs.push({
        txid,
        raw_tx: `0x${raw.toString('hex')}`,
        raw_result: '0x0703',
        status: 'success',
        tx_index: i,
        contract_abi: null,
        execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
        microblock_hash: null,
        microblock_sequence: null,
        microblock_parent_hash: null,
      });
      const event = (type: string, body: object) => ({ txid, event_index: eventIndex++, committed: true, type, [type]: body });
      evs.push(event('stx_transfer_event', { sender: transfer.sender, recipient: holder, amount: transfer.amount, memo: '' }));
      for (let j = 0; j < holderFtKinds(h); j++) {
        // Kinds shifted per holder, so the holders share kinds and each holds a range of its own.
        const k = (h + j) % 200;
        evs.push(
          event('ft_mint_event', { asset_identifier: holderFt(issuer, k), recipient: holder, amount: holderAmount(h, k) }),
        );
      }
      for (let v = 0; v < holderNfts(h); v++) {
        const value = BigInt(h * 100 + v);
        evs.push(
          event('nft_mint_event', {
            asset_identifier: holderNft(issuer, v % 5),
            recipient: holder,
            value: { UInt: Number(value) },
            raw_value: `0x01${value.toString(16).padStart(32, '0')}`,
          }),
        );
      }
    }
    const burn = tip.burn_block_height + b;
    const body = {
      block_hash: blockHash,
      index_block_hash: index,
      parent_block_hash: parentHash,
      parent_index_block_hash: parentIndex,
      parent_microblock: `0x${'00'.repeat(32)}`,
      parent_microblock_sequence: 0,
      miner_txid: hex(32),
      burn_block_hash: hex(32),
      burn_block_height: burn,
      burn_block_time: 1_700_000_000 + burn * 600,
      block_height: height,
      parent_burn_block_hash: hex(32),
      parent_burn_block_height: burn - 1,
      parent_burn_block_timestamp: 1_700_000_000 + (burn - 1) * 600,
      transactions: txs,
      events: evs,
      matured_miner_rewards: [],
    };
    const receivedAt = new Date(1_800_000_000_000 + height * 5_000).toISOString();
    events.push({ id: String(events.length + 1), receivedAt, path: '/new_block', body: JSON.stringify(body) });
    parentIndex = index;
    parentHash = blockHash;
  }
  return events;
}

/** A plan node of `EXPLAIN (FORMAT JSON)` as auto_explain logs it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The plan as indented lines: node, relation and index, rows × loops, shared buffers hit/read. */
function planLines(node: PlanNode, depth = 0): string[] {
  const where = [
    node['Index Name'] ? `using ${node['Index Name']}` : '',
    node['Relation Name'] ? `on ${node['Relation Name']}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const line =
    `${'  '.repeat(depth)}${node['Node Type']}${where ? ` ${where}` : ''}` +
    ` (rows=${node['Actual Rows']} loops=${node['Actual Loops']}) buffers hit=${node['Shared Hit Blocks'] ?? 0}` +
    ` read=${node['Shared Read Blocks'] ?? 0}`;
  return [line, ...(node.Plans ?? []).flatMap((p) => planLines(p, depth + 1))];
}

/**
 * A knex of one connection that runs the api's statements as the api does (generic plans) with `auto_explain`
 * logging each one's plan with ANALYZE and BUFFERS to this client: `plans()` returns and clears what it logged.
 */
function explainingDb(url: string): { db: Knex; plans: () => Array<{ ms: number; plan: PlanNode }> } {
  const logged: Array<{ ms: number; plan: PlanNode }> = [];
  const db = knex({
    client: 'pg',
    connection: url,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) {
        conn.on('notice', (msg) => {
          const m = /^duration: ([\d.]+) ms\s+plan:\s*([\s\S]*)$/.exec(msg.message ?? '');
          if (m) logged.push({ ms: Number(m[1]), plan: (JSON.parse(m[2]!) as { Plan: PlanNode }).Plan });
        });
        conn
          .query(
            `LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on;
             SET auto_explain.log_buffers = on; SET auto_explain.log_format = json; SET client_min_messages = log;
             SET plan_cache_mode = force_generic_plan`,
          )
          .then(
            () => done(null, conn),
            (err: Error) => done(err, conn),
          );
      },
    },
  });
  return { db, plans: () => logged.splice(0) };
}

/**
 * The one bus a filled database holds, as `TestSystem`'s `shareBusWith` takes it (its bus database and topic prefix;
 * the PostgreSQL bus keeps each prefix in a schema `bus_<prefix>`).
 */
async function busOf(databaseUrl: string): Promise<TestSystem> {
  const db = knex({ client: 'pg', connection: databaseUrl });
  try {
    const { rows } = (await db.raw("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bus\\_%'")) as {
      rows: Array<{ nspname: string }>;
    };
    if (rows.length !== 1) throw new Error(`expected one bus schema in the filled database, found ${rows.length}`);
    // TestSystem's prefixes are `t<hex>.`; the schema name has the dot as an underscore.
    const topicPrefix = rows[0]!.nspname.replace(/^bus_/, '').replace(/_$/, '.');
    return { busDatabaseUrl: databaseUrl, topicPrefix } as Pick<TestSystem, 'busDatabaseUrl' | 'topicPrefix'> as TestSystem;
  } finally {
    await db.destroy();
  }
}

/** How many principals hold the holders' FT kinds (0 before the holders were added). */
async function holdersIn(db: Knex): Promise<number> {
  const { rows } = (await db.raw(
    `SELECT count(DISTINCT principal) AS n FROM token_balances WHERE kind = 'ft' AND asset_identifier LIKE '%.bench-kinds::k%'`,
  )) as { rows: Array<{ n: string }> };
  return Number(rows[0]!.n);
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      'npx tsx bench/accounts/account-reads.ts   (env: BENCH_BLOCKS=4000 BENCH_PRINCIPAL_TXS=100000 BENCH_FT_KINDS=1000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 BENCH_KEEP=1 BENCH_REUSE=<dir> BENCH_BASE=<chain-reads dir> BENCH_ONLY=<text> BENCH_HOLDERS=1000)',
    );
    return;
  }
  const reuse = process.env.BENCH_REUSE ? resolve(process.env.BENCH_REUSE) : undefined;
  const base = process.env.BENCH_BASE ? resolve(process.env.BENCH_BASE) : undefined;
  const tmp = reuse ?? join(ROOT, '.tmp', `bench-accounts-${process.pid}`);
  if (base && !reuse) {
    // A chain-reads directory holds the 4,000 blocks; its own PostgreSQL must not be running on it.
    execFileSync('cp', ['-a', base, tmp]);
  }
  console.log(`measuring ${await useBuiltServices(tmp, false)}`);
  const server = await startPostgres({ dataDir: join(tmp, 'pg'), fresh: reuse === undefined && base === undefined });
  const { transfers } = fixtureTransferPool();
  try {
    const filled = reuse || base ? await filledDatabase(server.url) : undefined;
    // A reused database gets the holders once (the first run that asks for them adds them, through the pipeline).
    let addHolders = HOLDERS > 0 && !reuse;
    if (filled && reuse) {
      // The indexer migrates on start; only the api runs on a reused database, unless the holders are to be added.
      const db = createDb({ connectionString: filled, maxConnections: 1 });
      try {
        await migrateLatest(db);
        addHolders = HOLDERS > 0 && (await holdersIn(db)) === 0;
      } finally {
        await db.destroy();
      }
    }
    const t0 = performance.now();
    const sys = await TestSystem.start({
      bus: 'postgres',
      serverUrl: server.url,
      kafkaBrokers: '',
      databaseUrl: filled,
      // The indexer of a copied database goes on where it stopped: on the same bus topic (its position is the topic's).
      ...(filled && (!reuse || addHolders) ? { shareBusWith: await busOf(filled) } : {}),
      services: reuse && !addHolders ? ['api'] : ['indexer', 'observer', 'api'],
      env: { LOG_LEVEL: 'warn', API_WORKERS: String(API_WORKERS) },
    });
    try {
      const pick = async <T>(sql: string, bindings: unknown[] = []) =>
        ((await sys.db.raw(sql, bindings as Knex.RawBinding[])) as { rows: T[] }).rows[0];
      const count = async (sql: string, bindings: unknown[] = []) => Number((await pick<{ n: string }>(sql, bindings))?.n ?? 0);
      if (!filled) {
        const chain = generateChain({ blocks: BLOCKS + PENDING_BLOCKS, txsPerBlock: 50, mempool: true, transfers });
        let blocksLeft = BLOCKS;
        const events = chain.filter((e) => e.path !== '/new_block' || blocksLeft-- > 0);
        await replayEvents(events, { observerUrl: sys.observerUrl });
        await sys.waitForAppliedFromDb(1_800_000, 50);
        await checkIngested(sys.db, expectedTip(events));
        console.log(`${BLOCKS} blocks filled in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
      // The principal: the pool sender with the fewest transactions in the 4,000 blocks.
      const senders = [...new Set(transfers.map((t) => t.sender))];
      const counts = await Promise.all(
        senders.map(async (s) => [s, await count('SELECT tx_count AS n FROM address_tx_counts WHERE address = ?', [s])] as const),
      );
      // On a reused database, the one that holds the generated tokens.
      const principal = reuse
        ? ((
            await pick<{ principal: string }>(
              "SELECT principal FROM token_balances WHERE kind = 'ft' AND asset_identifier LIKE '%.bench-tokens::t0' LIMIT 1",
            )
          )?.principal ?? '')
        : counts.reduce((a, b) => (b[1] < a[1] ? b : a))[0];
      const tip = (await sys.db('chain_tip').first('block_height', 'block_hash', 'index_block_hash', 'burn_block_height')) as Tip;
      if (!reuse) {
        const t1 = performance.now();
        const before = await count('SELECT tx_count AS n FROM principal_tx_counts WHERE principal = ?', [principal]);
        if (tip.block_height !== BLOCKS)
          throw new BenchInvalidError(`the 4,000-block database's tip is ${tip.block_height}, expected ${BLOCKS}`);
        const events = principalBlocks(
          tip,
          principal,
          transfers.filter((t) => t.sender === principal),
        );
        await replayEvents(events, { observerUrl: sys.observerUrl });
        await sys.waitForAppliedFromDb(3_600_000, 50);
        await checkIngested(sys.db, expectedTip(events));
        const after = await count('SELECT tx_count AS n FROM principal_tx_counts WHERE principal = ?', [principal]);
        if (after - before !== PRINCIPAL_TXS)
          throw new BenchInvalidError(`the principal gained ${after - before} transactions, expected ${PRINCIPAL_TXS}`);
        console.log(`${PRINCIPAL_TXS} transactions of ${principal} added in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
      }
      if (addHolders) {
        const t2 = performance.now();
        const top = (await sys
          .db('chain_tip')
          .first('block_height', 'block_hash', 'index_block_hash', 'burn_block_height')) as Tip;
        const events = holderBlocks(
          top,
          principal,
          transfers.filter((t) => t.sender !== principal),
        );
        await replayEvents(events, { observerUrl: sys.observerUrl });
        await sys.waitForAppliedFromDb(3_600_000, 50);
        await checkIngested(sys.db, expectedTip(events));
        console.log(
          `${HOLDERS} holders (${HOLDER_FT_ROWS} FT and ${HOLDER_NFT_ROWS} NFT holdings) added in ${((performance.now() - t2) / 1000).toFixed(0)} s`,
        );
      }
      if (!reuse || addHolders) {
        await sys.stopService('observer');
        await sys.stopService('indexer');
        // What autovacuum would have done by now on a server that ran for a while.
        await sys.db.raw('VACUUM ANALYZE');
      }
      // Work checked on every run, a reused database too: nothing dead-lettered, the tip where the fill ends, the
      // principal's history and token kinds as generated.
      const dead = await count('SELECT count(*) AS n FROM dead_letters');
      const height = ((await sys.db('chain_tip').first('block_height')) as { block_height: number }).block_height;
      const history = await count('SELECT tx_count AS n FROM principal_tx_counts WHERE principal = ?', [principal]);
      const kinds = await count(
        "SELECT count(*) AS n FROM token_balances WHERE principal = ? AND kind = 'ft' AND asset_identifier LIKE ?",
        [principal, `${principal}.bench-tokens::%`],
      );
      const inbound = await count('SELECT coalesce(max(seq), 0) AS n FROM principal_stx_inbound WHERE principal = ?', [
        principal,
      ]);
      // The holders, when there are any: all of them, with their kinds and values as generated.
      const holders = await holdersIn(sys.db);
      const holderFtRows = await count(`SELECT count(*) AS n FROM token_balances WHERE kind = 'ft' AND asset_identifier LIKE ?`, [
        `${principal}.bench-kinds::%`,
      ]);
      const holderNftRows = await count('SELECT count(*) AS n FROM nft_holdings WHERE asset_identifier LIKE ?', [
        `${principal}.bench-nfts::%`,
      ]);
      if (holders > 0 && (holders !== HOLDERS || holderFtRows !== HOLDER_FT_ROWS || holderNftRows !== HOLDER_NFT_ROWS))
        throw new BenchInvalidError(
          `holders: ${holders} (expected ${HOLDERS}) with ${holderFtRows} FT kinds and ${holderNftRows} NFT values held ` +
            `(expected ${HOLDER_FT_ROWS} and ${HOLDER_NFT_ROWS}); a reused database keeps the BENCH_HOLDERS it was filled with`,
        );
      if (
        dead > 0 ||
        height !== BLOCKS + PRINCIPAL_BLOCKS + (holders > 0 ? HOLDER_BLOCKS : 0) ||
        history < PRINCIPAL_TXS ||
        kinds !== FT_KINDS ||
        inbound < Math.floor(PRINCIPAL_TXS / 2)
      )
        throw new BenchInvalidError(
          `database: ${dead} dead letter(s), tip ${height} (expected ${BLOCKS + PRINCIPAL_BLOCKS}), ${history} transactions of ` +
            `${principal} (expected at least ${PRINCIPAL_TXS}), ${kinds} token kinds (expected ${FT_KINDS}), ${inbound} inbound ` +
            `transfers (expected at least ${Math.floor(PRINCIPAL_TXS / 2)})`,
        );
      console.log(
        `database ${reuse ? 'reused' : 'ready'}: ${await count('SELECT count(*) AS n FROM blocks')} blocks, ` +
          `${await count('SELECT count(*) AS n FROM txs')} transactions, ${await count('SELECT count(*) AS n FROM events')} events; ` +
          `${principal}: ${history} transactions, ${kinds} token kinds; ${holders} holders`,
      );

      const small = (await pick<{ principal: string; tx_count: string }>(
        'SELECT principal, tx_count FROM principal_tx_counts WHERE tx_count > 1 ORDER BY tx_count, principal LIMIT 1',
      ))!;
      const v1Total = await count('SELECT tx_count AS n FROM address_tx_counts WHERE address = ?', [principal]);
      const listTotal = async (table: string) =>
        count(`SELECT coalesce(max(seq), 0) AS n FROM ${table} WHERE principal = ?`, [principal]);
      const transfersTotal = await listTotal('principal_transfer_txs');
      const assetsTotal = await listTotal('principal_asset_events');
      const inboundTotal = await listTotal('principal_stx_inbound');
      const oldest = (await pick<{ cursor: string }>(
        `SELECT block_height || ':' || microblock_sequence || ':' || tx_index AS cursor FROM principal_txs WHERE principal = ?
         ORDER BY block_height, microblock_sequence, tx_index OFFSET 19 LIMIT 1`,
        [principal],
      ))!.cursor;
      // The loaded pages, first and deepest, hold the default 20 rows (the reference's default): a deepest page of 50
      // against a first page of 20 measured the page size, not the depth (README, "The deep-page gap").
      const LOADED_PAGE = 20;
      const deepLoaded = (total: number) => Math.max(0, total - LOADED_PAGE);
      const deep = (total: number) => Math.max(0, total - 50);
      const p = principal;
      const directTargets: Array<[string, string]> = [
        ['v1 stx', `/extended/v1/address/${p}/stx`],
        ['v1 balances', `/extended/v1/address/${p}/balances`],
        ['v2 balances/stx', `/extended/v2/addresses/${p}/balances/stx`],
        ['v2 balances/ft', `/extended/v2/addresses/${p}/balances/ft`],
        ['v3 balances/stx', `/extended/v3/principals/${p}/balances/stx`],
        ['v3 balances/ft', `/extended/v3/principals/${p}/balances/ft`],
        ['v3 balances/nft', `/extended/v3/principals/${p}/balances/nft`],
        ['v1 nonces', `/extended/v1/address/${p}/nonces`],
        ['v3 nonces', `/extended/v3/principals/${p}/nonces`],
        ['v1 transactions', `/extended/v1/address/${p}/transactions`],
        [
          `v1 transactions offset ${deepLoaded(v1Total)}`,
          `/extended/v1/address/${p}/transactions?limit=${LOADED_PAGE}&offset=${deepLoaded(v1Total)}`,
        ],
        ['v2 transactions', `/extended/v2/addresses/${p}/transactions`],
        [
          `v2 transactions offset ${deepLoaded(history)}`,
          `/extended/v2/addresses/${p}/transactions?limit=${LOADED_PAGE}&offset=${deepLoaded(history)}`,
        ],
        ['v3 transactions', `/extended/v3/principals/${p}/transactions`],
        [`v3 transactions cursor ${oldest}`, `/extended/v3/principals/${p}/transactions?cursor=${oldest}`],
        ['v1 transactions_with_transfers', `/extended/v1/address/${p}/transactions_with_transfers`],
        [
          `v1 transactions_with_transfers offset ${deepLoaded(transfersTotal)}`,
          `/extended/v1/address/${p}/transactions_with_transfers?limit=${LOADED_PAGE}&offset=${deepLoaded(transfersTotal)}`,
        ],
        ['v1 assets', `/extended/v1/address/${p}/assets`],
        [
          `v1 assets offset ${deepLoaded(assetsTotal)}`,
          `/extended/v1/address/${p}/assets?limit=${LOADED_PAGE}&offset=${deepLoaded(assetsTotal)}`,
        ],
        ['v1 stx_inbound', `/extended/v1/address/${p}/stx_inbound`],
        [
          `v1 stx_inbound offset ${deepLoaded(inboundTotal)}`,
          `/extended/v1/address/${p}/stx_inbound?limit=${LOADED_PAGE}&offset=${deepLoaded(inboundTotal)}`,
        ],
      ];
      // The balance reads spread over every holder, each request another principal's answer (the loaders and the
      // answers of one turn are shared only between identical keys, so one principal measured mostly that sharing).
      const holderList = Array.from({ length: holders }, (_, h) => holderOf(h));
      const spread = (name: string, path: (who: string) => string): Array<[string, string[]]> =>
        holders > 0 ? [[`${name}, ${holders} holders`, holderList.map(path)]] : [];
      const targets: Array<[string, string | string[]]> = [
        ...directTargets,
        ...spread('v1 stx', (h) => `/extended/v1/address/${h}/stx`),
        ...spread('v1 balances', (h) => `/extended/v1/address/${h}/balances`),
        ...spread('v2 balances/stx', (h) => `/extended/v2/addresses/${h}/balances/stx`),
        ...spread('v2 balances/ft', (h) => `/extended/v2/addresses/${h}/balances/ft`),
        ...spread('v3 balances/stx', (h) => `/extended/v3/principals/${h}/balances/stx`),
        ...spread('v3 balances/ft', (h) => `/extended/v3/principals/${h}/balances/ft`),
        ...spread('v3 balances/nft', (h) => `/extended/v3/principals/${h}/balances/nft`),
        ...spread('v1 nonces', (h) => `/extended/v1/address/${h}/nonces`),
        ...spread('v3 nonces', (h) => `/extended/v3/principals/${h}/nonces`),
      ];
      console.log(
        `\n${CONNECTIONS} connections, ${SECONDS} s each, ${hasWrk() ? 'wrk' : 'node generator'}; api: ${API_WORKERS} worker(s); ${ROUNDS} alternating round(s)`,
      );
      const only = process.env.BENCH_ONLY;
      const chosen = targets.filter(([name]) => only === undefined || name.includes(only));
      for (const [, target] of chosen) {
        for (const path of typeof target === 'string' ? [target] : target) {
          const res = await fetch(sys.apiUrl + path);
          if (res.status !== 200) throw new BenchInvalidError(`${path} answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }
      }
      // A holder's answers carry what it was given (checked on the first, a middle and the last holder).
      for (const h of holders > 0 ? [0, Math.floor(holders / 2), holders - 1] : []) {
        const who = holderOf(h);
        const ft = (await (await fetch(`${sys.apiUrl}/extended/v2/addresses/${who}/balances/ft`)).json()) as { total: number };
        const nft = (await (await fetch(`${sys.apiUrl}/extended/v3/principals/${who}/balances/nft`)).json()) as { total: number };
        if (ft.total !== holderFtKinds(h) || nft.total !== holderNfts(h))
          throw new BenchInvalidError(
            `holder ${h}: ${ft.total} FT kinds and ${nft.total} NFT values (expected ${holderFtKinds(h)} and ${holderNfts(h)})`,
          );
      }
      // The answers carry the generated history (not an empty or cut list).
      const v2ft = (await (await fetch(`${sys.apiUrl}/extended/v2/addresses/${p}/balances/ft`)).json()) as { total: number };
      const v3txs = (await (await fetch(`${sys.apiUrl}/extended/v3/principals/${p}/transactions`)).json()) as { total: number };
      if (v2ft.total < FT_KINDS || v3txs.total !== history)
        throw new BenchInvalidError(`answers: ${v2ft.total} FT balances, ${v3txs.total} v3 transactions (expected ${history})`);
      // CPU per request (µs) of the api process and of PostgreSQL during each timed run, from /proc.
      const cpu = apiAndPostgresCpu(sys.procs.get('api')!.child.pid!, join(tmp, 'pg'));
      await measureEndpointRounds({
        baseUrl: sys.apiUrl,
        endpoints: chosen,
        rounds: ROUNDS,
        seconds: SECONDS,
        connections: CONNECTIONS,
        cpu,
        nameWidth: 44,
      });

      // The lists' plans as the api runs them, for the big principal (first page, deepest page) and a small one.
      const explaining = explainingDb(sys.databaseUrl);
      try {
        const {
          getAddressHistory,
          getAddressTransactions,
          getPrincipalTransactionSummaries,
          getTxsWithTransfers,
          getAddressAssets,
          getInboundStxTransfers,
        } = ACCOUNT_LIST_READS;
        const page = (offset = 0) => ({ limit: 50, offset });
        const until = { kind: 'until', height: null } as const;
        const lists: Array<[string, (who: string, deepest: boolean) => Promise<unknown>]> = [
          ['v1 transactions', (who, d) => getAddressHistory(explaining.db, who, page(d ? deep(v1Total) : 0))],
          ['v2 transactions', (who, d) => getAddressTransactions(explaining.db, who, page(d ? deep(history) : 0), null)],
          [
            'v3 transactions',
            (who, d) => {
              const [h, s, i] = oldest.split(':').map(Number) as [number, number, number];
              return getPrincipalTransactionSummaries(explaining.db, who, 20, d ? { height: h, sequence: s, txIndex: i } : null);
            },
          ],
          [
            'v1 transactions_with_transfers',
            (who, d) => getTxsWithTransfers(explaining.db, who, page(d ? deep(transfersTotal) : 0), until),
          ],
          ['v1 assets', (who, d) => getAddressAssets(explaining.db, who, page(d ? deep(assetsTotal) : 0), null)],
          ['v1 stx_inbound', (who, d) => getInboundStxTransfers(explaining.db, who, page(d ? deep(inboundTotal) : 0), until)],
        ];
        for (const [name, run] of lists) {
          for (const [who, label, deepest] of [
            [principal, `${principal}, first page`, false],
            [principal, `${principal}, deepest page`, true],
            [small.principal, `${small.principal} (${small.tx_count} transactions), first page`, false],
          ] as const) {
            explaining.plans();
            await run(who, deepest);
            await run(who, deepest); // the second run: as on a warm connection
            const logged = explaining.plans().at(-1);
            if (!logged) throw new Error(`no plan logged for ${name}`);
            console.log(`\n${name}: ${label}: ${logged.ms.toFixed(2)} ms`);
            for (const line of planLines(logged.plan)) console.log(`  ${line}`);
          }
        }
      } finally {
        await explaining.db.destroy();
      }
    } finally {
      await sys.stop();
    }
  } finally {
    await server.stop();
    if (!reuse) removeBenchDir(tmp);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
