/**
 * Rune ledger ingestion benchmark (not a test): blocks full of runestone transactions (etchings, mints, edicts of
 * every kind, pointers, cenotaphs, P2PK and OP_RETURN outputs, in-block spends) applied the way the indexer applies
 * the `bitcoin.blocks` topic — envelope, parse, prefetch, execute, persist, one transaction per block — then a reorg
 * that rolls blocks back. Prints tx/s, activity rows/s and per-block times. The run must end with no dead letter and
 * the rune ledger's tip on the expected block (the last generated block before the reorg, the branch's last after),
 * else the bench exits 1 without figures.
 *
 *   npx tsx bench/runes/ingest.ts
 *   env: BENCH_BLOCKS=20 BENCH_TXS=2000 DATABASE_URL=<server url> (default: an embedded PostgreSQL under .tmp/)
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { encodeEnvelope, type BusRecord } from '@bda/bus';
import { createLogger, createMetricsRegistry } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import type { BuiltBlock } from '@bda/runes/testing';
import { RuneBlockGenerator } from '@bda/runes/testing';
import { createTestDatabase, startPostgres } from '@bda/test-support';
import type { Knex } from 'knex';
import { BenchInvalidError } from '../spread';
import { RecordApplier } from '@bda/indexer';
import { bitcoinBlockHandler } from '@bda/indexer';

const ROOT = join(import.meta.dirname, '../..');
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20);
const TXS = Number(process.env.BENCH_TXS ?? 2000);
const WARMUP = 3;

/** Fails unless the rune ledger's newest block is `want` (hashes compared without their 0x, in any case). */
async function checkTip(db: Knex, want: BuiltBlock, when: string): Promise<void> {
  const tip = (await db('rune_blocks').orderBy('block_height', 'desc').first('block_height', 'block_hash')) as
    { block_height: number; block_hash: string } | undefined;
  const bare = (h: string) => h.replace(/^0x/, '').toLowerCase();
  if (Number(tip?.block_height) !== want.height || bare(tip!.block_hash) !== bare(want.hash))
    throw new BenchInvalidError(
      `${when}: rune ledger tip ${tip ? `${tip.block_height} ${tip.block_hash}` : 'none'}, expected ${want.height} ${want.hash}`,
    );
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  let stopPg: (() => Promise<void>) | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dir = join(ROOT, '.tmp', `bench-runes-ingest-${process.pid}`);
    const pg = await startPostgres({ dataDir: join(dir, 'pg'), fresh: true });
    serverUrl = pg.url;
    stopPg = async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const db = createDb({ connectionString: await createTestDatabase(serverUrl, 'bench_runes'), maxConnections: 2 });
  try {
    await migrateLatest(db);
    const logger = createLogger('bench', 'silent');
    const applier = new RecordApplier({
      db,
      logger,
      metrics: createMetricsRegistry('bench'),
      positionKey: 'bitcoin.blocks',
      handle: bitcoinBlockHandler({ network: 'regtest', logger }),
    });
    let position = 0n;
    const apply = async (block: BuiltBlock) => {
      const body = JSON.stringify({ block_height: block.height, raw_block: block.hex });
      const record: BusRecord = {
        topic: 'bitcoin.blocks',
        position: position++,
        key: 'bitcoin',
        value: encodeEnvelope('/new_bitcoin_block', new Date(), body),
      };
      await applier.applyBatch([record]);
    };

    const gen = new RuneBlockGenerator({ seed: 2024, height: 1, keys: 5_000 }).fund(TXS * 4);
    process.stdout.write(`generating ${WARMUP} warm-up + ${BLOCKS} blocks of ${TXS} transactions… `);
    const warmup = Array.from({ length: WARMUP }, () => gen.next(TXS));
    const forkPoint = gen.clone(77);
    const blocks = Array.from({ length: BLOCKS }, () => gen.next(TXS));
    const branch = Array.from({ length: 3 }, () => forkPoint.next(TXS, 'fork'));
    console.log('done');
    for (const b of warmup) await apply(b);

    const before = Number((await db('rune_activity').count({ n: '*' }))[0]!.n);
    const times: number[] = [];
    const started = process.hrtime.bigint();
    for (const b of blocks) {
      const t0 = process.hrtime.bigint();
      await apply(b);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await checkTip(db, blocks.at(-1)!, 'after the blocks');
    const rows = Number((await db('rune_activity').count({ n: '*' }))[0]!.n) - before;
    const txs = BLOCKS * TXS;
    const mb = blocks.reduce((n, b) => n + b.hex.length / 2, 0) / BLOCKS / 1e6;

    // A reorg 3 blocks below the tip… replaced by a 3-block branch: BLOCKS rollbacks, 3 applies.
    const r0 = process.hrtime.bigint();
    await apply(branch[0]!);
    const reorgMs = Number(process.hrtime.bigint() - r0) / 1e6;
    for (const b of branch.slice(1)) await apply(b);
    const dead = Number((await db('dead_letters').count({ n: '*' }))[0]!.n);
    if (dead > 0) throw new BenchInvalidError(`${dead} message(s) dead-lettered`);
    await checkTip(db, branch.at(-1)!, 'after the reorg');

    const sorted = [...times].sort((a, b) => a - b);
    console.log('');
    console.log(
      `blocks                 ${BLOCKS} × ${TXS} txs (${mb.toFixed(2)} MB each), ${rows} activity rows (${(rows / BLOCKS).toFixed(0)}/block)`,
    );
    console.log(
      `ingestion              ${(txs / seconds).toFixed(0)} tx/s, ${(rows / seconds).toFixed(0)} activity rows/s, ${(BLOCKS / seconds).toFixed(2)} blocks/s`,
    );
    console.log(
      `per block              p50 ${pct(sorted, 50).toFixed(0)} ms, p99 ${pct(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms`,
    );
    console.log(
      `reorg                  roll back ${BLOCKS} blocks and apply the replacement: ${reorgMs.toFixed(0)} ms (${(reorgMs / (BLOCKS + 1)).toFixed(0)} ms/block)`,
    );
    console.log(`dead letters           ${dead}`);
  } finally {
    await db.destroy();
    await stopPg?.();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchInvalidError ? err.message : err);
  process.exit(1);
});
