import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { createMetricsRegistry } from '@bda/common';
import { encodeEnvelope, type BusRecord } from '@bda/bus';
import { GENESIS_RUNE, RunestoneBuilder, parseBitcoinBlock } from '@bda/runes';
import { BitcoinBlockBuilder, type BuiltBlock, p2trScript } from '@bda/runes/testing';
import { RuneBlockGenerator } from '@bda/runes/testing';
import { PoisonMessageError } from '../src/apply-error';
import { RecordApplier } from '../src/record-applier';
import { applyBitcoinBlock, bitcoinBlockHandler } from '../src/runes/bitcoin-block-handler';
import { applyBlocks, ledgerDb, ledgerInvariantViolations, runeChecksums, silentLogger } from '@bda/indexer/testing';

const TXS = 40;

/** Blocks 1…n of one seed; `at(k)` is the generator after k blocks, to grow a competing branch from there. */
function chain(seed: number, n: number): { blocks: BuiltBlock[]; at: (k: number, seed?: number) => RuneBlockGenerator } {
  const gen = new RuneBlockGenerator({ seed, height: 1 });
  const snapshots: RuneBlockGenerator[] = [gen.clone()];
  const blocks: BuiltBlock[] = [];
  for (let i = 0; i < n; i++) {
    blocks.push(gen.next(TXS));
    snapshots.push(gen.clone());
  }
  return { blocks, at: (k, branchSeed) => snapshots[k]!.clone(branchSeed) };
}

function grow(gen: RuneBlockGenerator, n: number, tag: string): BuiltBlock[] {
  return Array.from({ length: n }, () => gen.next(TXS, tag));
}

describe('rune ledger: applying blocks', () => {
  let db: Knex;
  const main = chain(7, 24);
  beforeAll(async () => {
    db = await ledgerDb(testInfra().databaseUrl);
    await applyBlocks(db, main.blocks);
  });
  afterAll(() => db?.destroy());

  it('produces activity of every kind, and every counter agrees with the rows it summarizes', async () => {
    const ops: Array<{ operation: number; n: string }> = await db('rune_activity')
      .groupBy('operation')
      .select('operation', db.raw('count(*) n'));
    expect(ops.map((o) => o.operation).sort()).toEqual([0, 1, 2, 3, 4]);
    const nullAddress = await db('rune_activity').whereNull('address').whereIn('operation', [3, 4]).count({ n: '*' });
    expect(Number(nullAddress[0]!.n)).toBeGreaterThan(0); // P2PK outputs take part
    expect(await ledgerInvariantViolations(db)).toEqual({});
  });

  it('changes nothing when a block arrives again', async () => {
    const before = await runeChecksums(db);
    expect(await applyBlocks(db, main.blocks.slice(-3))).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(await runeChecksums(db)).toEqual(before);
  });

  it('refuses a gap, a block whose parent is not indexed, and a block below the first one', async () => {
    const apply = (b: BuiltBlock) =>
      db.transaction((trx) =>
        applyBitcoinBlock(trx, parseBitcoinBlock(b.hex, b.height), { network: 'regtest', logger: silentLogger }),
      );
    const tip = main.blocks[main.blocks.length - 1]!;
    const gap = new BitcoinBlockBuilder({ prevHash: tip.hash, height: tip.height + 2 }).build();
    await expect(apply(gap)).rejects.toThrow(/leaves a gap/);
    const orphan = new BitcoinBlockBuilder({ prevHash: 'ab'.repeat(32), height: tip.height + 1 }).build();
    await expect(apply(orphan)).rejects.toThrow(PoisonMessageError);
    const low = new BitcoinBlockBuilder({ prevHash: '00'.repeat(32), height: 0 }).build();
    await expect(apply(low)).rejects.toThrow(/below the first indexed block/);
  });
});

describe('rune ledger: reorgs', () => {
  it('rolling back N blocks restores every table exactly (compared with a ledger that never saw them)', async () => {
    const base = chain(11, 16);
    const branchX = grow(base.at(10, 101), 6, 'x'); // replaces heights 11–16 of base
    const branchY = grow(base.at(10, 202), 5, 'y');
    const a = await ledgerDb(testInfra().databaseUrl);
    const b = await ledgerDb(testInfra().databaseUrl);
    try {
      // a: base 1–16, then X from 11 (6 deep), then Y from 11 again (6 deep).
      await applyBlocks(a, base.blocks);
      const outcomes = await applyBlocks(a, branchX);
      expect(outcomes[0]).toBe('reorg');
      expect(await ledgerInvariantViolations(a)).toEqual({});
      expect(await applyBlocks(a, branchY)).toEqual(['reorg', 'applied', 'applied', 'applied', 'applied']);
      // b: base 1–10, then Y directly.
      await applyBlocks(b, base.blocks.slice(0, 10));
      await applyBlocks(b, branchY);
      expect(await runeChecksums(a)).toEqual(await runeChecksums(b));
      expect(await ledgerInvariantViolations(a)).toEqual({});
      // The state right after a rollback equals the state before the replaced blocks.
      await applyBlocks(b, [base.blocks[10]!]);
      await applyBlocks(a, [base.blocks[10]!]);
      expect(await runeChecksums(a)).toEqual(await runeChecksums(b));
    } finally {
      await a.destroy();
      await b.destroy();
    }
  });

  it('prunes spent outputs below the undo window and refuses a reorg deeper than it', async () => {
    const base = chain(5, 14);
    const db = await ledgerDb(testInfra().databaseUrl);
    try {
      await applyBlocks(db, base.blocks, { undoDepth: 4 });
      const oldest = await db('rune_outputs').whereNotNull('spent_height').min<{ min: number }>('spent_height as min').first();
      expect(oldest!.min).toBeGreaterThanOrEqual(14 - 4);
      const taproot = await db('rune_taproot_outputs')
        .whereNotNull('spent_height')
        .min<{ min: number }>('spent_height as min')
        .first();
      expect(taproot!.min).toBeGreaterThanOrEqual(14 - 4);
      const deep = grow(base.at(9), 1, 'deep'); // replaces height 10: 5 blocks deep
      await expect(applyBlocks(db, deep, { undoDepth: 4 })).rejects.toThrow(/beyond the undo window of 4/);
      const ok = grow(base.at(10), 1, 'ok'); // replaces height 11: 4 blocks deep
      expect(await applyBlocks(db, ok, { undoDepth: 4 })).toEqual(['reorg']);
      expect(await ledgerInvariantViolations(db)).toEqual({});
    } finally {
      await db.destroy();
    }
  });
});

describe('rune ledger: mainnet genesis rune', () => {
  it('exists as number 0 from the first block and can be minted from 840,000', async () => {
    const db = await ledgerDb(testInfra().databaseUrl);
    try {
      const builder = new BitcoinBlockBuilder({ prevHash: '00'.repeat(32), height: 840_000 });
      const funding = 'cd'.repeat(32);
      builder.tx({
        inputs: [{ txid: funding, vout: 0 }],
        outputs: [new RunestoneBuilder().mint({ block: 1n, tx: 0 }).build(), p2trScript(1)],
      });
      builder.tx({
        inputs: [{ txid: funding, vout: 1 }],
        outputs: [new RunestoneBuilder().etching({ premine: 5n }).build(), p2trScript(2)],
      });
      await applyBlocks(db, [builder.build()], { network: 'mainnet' });
      const runes: Array<{
        number: number;
        block_height: number;
        tx_index: number;
        mints: string;
        etching_tx_id: string | null;
      }> = await db('runes').orderBy('number').select('number', 'block_height', 'tx_index', 'mints', 'etching_tx_id');
      expect(runes).toEqual([
        { number: 0, block_height: 1, tx_index: 0, mints: '1', etching_tx_id: null },
        { number: 1, block_height: 840_000, tx_index: 2, mints: '0', etching_tx_id: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
      ]);
      expect(String(runes[0]!.number)).toBe(String(GENESIS_RUNE.number));
      const balances = await db('rune_balances').orderBy('rune_number').select('rune_number', 'balance');
      expect(balances).toEqual([
        { rune_number: 0, balance: '1' },
        { rune_number: 1, balance: '5' },
      ]);
      expect(await ledgerInvariantViolations(db)).toEqual({});
    } finally {
      await db.destroy();
    }
  });
});

describe('rune ledger behind the message applier', () => {
  it('dead-letters a block it cannot apply and goes on with the next one', async () => {
    const db = await ledgerDb(testInfra().databaseUrl);
    try {
      const applier = new RecordApplier({
        db,
        logger: silentLogger,
        metrics: createMetricsRegistry('indexer'),
        positionKey: 'bitcoin.blocks',
        handle: bitcoinBlockHandler({ network: 'regtest', logger: silentLogger }),
      });
      const blocks = chain(3, 3).blocks;
      const record = (position: number, body: unknown): BusRecord => ({
        topic: 'bitcoin.blocks',
        position: BigInt(position),
        key: 'bitcoin',
        value: encodeEnvelope('/new_bitcoin_block', new Date(), JSON.stringify(body)),
      });
      await applier.applyBatch([
        record(0, { block_height: 1, raw_block: blocks[0]!.hex }),
        record(1, { block_height: 2, raw_block: 'zz' }),
        record(2, { block_height: 2, raw_block: blocks[1]!.hex }),
        record(3, { block_height: 2, raw_block: blocks[1]!.hex }),
      ]);
      const dead: Array<{ position: string; reason: string }> = await db('dead_letters').select('position', 'reason');
      expect(dead).toEqual([{ position: '1', reason: expect.stringContaining('raw_block') }]);
      const heights = await db('rune_blocks').orderBy('block_height').pluck('block_height');
      expect(heights).toEqual([1, 2]);
      expect(await applier.lastApplied()).toBe(3n);
    } finally {
      await db.destroy();
    }
  });
});
