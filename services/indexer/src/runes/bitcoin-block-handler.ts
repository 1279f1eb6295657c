import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Envelope } from '@bda/bus';
import type { DbRuneBlock } from '@bda/db';
import { type BitcoinBlock, type Network, parseBitcoinBlock } from '@bda/runes';
import { PoisonMessageError } from '../apply-error';
import type { EnvelopeHandler } from '../record-applier';
import { applyRuneBlock } from './apply-block';
import { rollbackRuneBlock } from './rollback-block';

/** How many blocks below the tip a reorg may reach: spent outputs older than that are pruned (ADR 0007). */
export const RUNE_UNDO_DEPTH = 100;

export interface RuneHandlerOptions {
  network: Network;
  logger: Logger;
  /** Default {@link RUNE_UNDO_DEPTH}. */
  undoDepth?: number;
}

export type RuneBlockOutcome = 'applied' | 'duplicate' | 'reorg';

interface NewBitcoinBlockBody {
  block_height: number;
  raw_block: string;
}

const MAX_HEIGHT = 2_147_483_647;

/** Handles the `bitcoin.blocks` topic: each `/new_bitcoin_block` envelope is one block for the rune ledger. */
export function bitcoinBlockHandler(opts: RuneHandlerOptions): EnvelopeHandler {
  return async (trx, envelope: Envelope) => {
    if (envelope.path !== '/new_bitcoin_block') {
      opts.logger.warn({ path: envelope.path }, 'unknown path on bitcoin.blocks ignored');
      return;
    }
    const block = decodeBlock(envelope.body);
    await applyBitcoinBlock(trx, block, opts);
  };
}

function decodeBlock(body: unknown): BitcoinBlock {
  const b = body as Partial<NewBitcoinBlockBody> | null;
  if (typeof b !== 'object' || b === null) throw new PoisonMessageError('body: expected {block_height, raw_block}');
  if (!Number.isSafeInteger(b.block_height) || b.block_height! < 0 || b.block_height! > MAX_HEIGHT) {
    throw new PoisonMessageError(`block_height: expected an integer from 0 to ${MAX_HEIGHT}`);
  }
  if (typeof b.raw_block !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(b.raw_block)) {
    throw new PoisonMessageError('raw_block: expected the serialized block as hex');
  }
  try {
    return parseBitcoinBlock(b.raw_block, b.block_height!);
  } catch (err) {
    throw new PoisonMessageError(`raw_block: not a serialized block (${(err as Error).message})`, { cause: err });
  }
}

/**
 * Applies one block in the poster's best-chain order. The same block again changes nothing. A block at a height
 * already indexed with another hash means the chain changed there: every block from that height up is rolled back,
 * then it is applied. Anything that cannot extend the indexed chain (a gap, a parent we do not have, a reorg deeper
 * than the undo window) is refused and dead-lettered: applying it would make the ledger wrong.
 */
export async function applyBitcoinBlock(
  trx: Knex.Transaction,
  block: BitcoinBlock,
  opts: RuneHandlerOptions,
): Promise<RuneBlockOutcome> {
  const hash = `0x${block.hash}`;
  const undoDepth = opts.undoDepth ?? RUNE_UNDO_DEPTH;
  // One writer: the lock makes a second indexer that slipped in wait instead of interleaving.
  await trx.raw('SELECT pg_advisory_xact_lock(7007)');
  // Every statement here touches a block's worth of rows by key. With stale statistics the planner would hash-join
  // thousands of keys against a whole table (outputs, P2TR outputs): a cost that grows with the chain. Index
  // lookups keep a block's cost proportional to the block.
  await trx.raw('SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off');
  const tip: DbRuneBlock | undefined = await trx('rune_blocks').orderBy('block_height', 'desc').first();
  let outcome: RuneBlockOutcome = 'applied';
  if (tip) {
    if (block.height > tip.block_height + 1) {
      throw new PoisonMessageError(
        `block ${hash} at height ${block.height} leaves a gap: the rune ledger's tip is ${tip.block_height}`,
      );
    }
    const lowest: DbRuneBlock = await trx('rune_blocks').orderBy('block_height', 'asc').first();
    if (block.height < lowest.block_height) {
      throw new PoisonMessageError(
        `block ${hash} at height ${block.height} is below the first indexed block (${lowest.block_height})`,
      );
    }
    if (block.height <= tip.block_height) {
      const existing: DbRuneBlock =
        block.height === tip.block_height ? tip : await trx('rune_blocks').where({ block_height: block.height }).first();
      if (existing.block_hash === hash) return 'duplicate';
    }
    if (block.height > lowest.block_height) {
      const parent: DbRuneBlock | undefined =
        block.height - 1 === tip.block_height
          ? tip
          : await trx('rune_blocks')
              .where({ block_height: block.height - 1 })
              .first();
      if (parent?.block_hash !== `0x${block.prevHash}`) {
        throw new PoisonMessageError(
          `block ${hash} at height ${block.height} builds on 0x${block.prevHash}, but the indexed block at ${block.height - 1} is ${parent?.block_hash}`,
        );
      }
    }
    if (block.height <= tip.block_height) {
      if (tip.block_height - block.height >= undoDepth) {
        throw new PoisonMessageError(
          `block ${hash} replaces height ${block.height}, ${tip.block_height - block.height + 1} blocks deep: beyond the undo window of ${undoDepth}`,
        );
      }
      for (let height = tip.block_height; height >= block.height; height--) await rollbackRuneBlock(trx, height);
      opts.logger.info(
        { height: block.height, hash, rolledBack: tip.block_height - block.height + 1 },
        'bitcoin reorg: rune ledger rolled back',
      );
      outcome = 'reorg';
    }
  }
  const rows = await applyRuneBlock(trx, block, opts.network, opts.logger, undoDepth);
  opts.logger.debug(
    { height: block.height, hash, txs: block.txs.length, activity: rows },
    'bitcoin block applied to the rune ledger',
  );
  return outcome;
}
