import { getRosettaBlock } from '../datastore/rosetta-block';
import { getRosettaMempoolTx, getRosettaMempoolTxIds } from '../datastore/rosetta-mempool';
import { RosettaError } from '../mappers/rosetta-errors';
import { toRosettaBlock, toRosettaMempoolTransaction, toRosettaTransactions } from '../mappers/rosetta-operations';
import type { RosettaContext } from './rosetta-context';
import type { RosettaRoutes } from './rosetta-handler';
import { blockLookupOf, checkNetwork, optionalObject, parseHash, requireObject } from './rosetta-request';

/** `/block`, `/block/transaction`, `/mempool`, `/mempool/transaction`. */
export function rosettaBlockRoutes(ctx: RosettaContext): RosettaRoutes {
  async function block(id: Record<string, unknown> | undefined, field: string) {
    const { lookup, index } = blockLookupOf(id, field);
    const row = await getRosettaBlock(ctx.db, lookup);
    if (!row) throw new RosettaError('blockNotFound', { [field]: id ?? null });
    if (index !== undefined && row.block_height !== index) {
      throw new RosettaError('blockIdentifierMismatch', { index, hash: row.index_block_hash, block_index: row.block_height });
    }
    return row;
  }

  return {
    '/block': async (body) => {
      ctx.requireOnline();
      await checkNetwork(ctx, body);
      const row = await block(optionalObject(body, 'block_identifier') ?? {}, 'block_identifier');
      return { block: toRosettaBlock(row, ctx.genesisBalances) };
    },
    '/block/transaction': async (body) => {
      ctx.requireOnline();
      await checkNetwork(ctx, body);
      const blockId = requireObject(body, 'block_identifier');
      const txId = requireObject(body, 'transaction_identifier');
      const hash = parseHash(txId['hash'], 'transaction_identifier.hash', 'invalidTransactionHash');
      if (blockId['hash'] === undefined)
        throw new RosettaError('invalidRequest', { field: 'block_identifier.hash', reason: 'required' });
      const row = await block(blockId, 'block_identifier');
      const tx = toRosettaTransactions(row, ctx.genesisBalances).find((t) => t.transaction_identifier.hash === hash);
      if (!tx) throw new RosettaError('transactionNotFound', { hash, block_hash: row.index_block_hash });
      return { transaction: tx };
    },
    '/mempool': async (body) => {
      ctx.requireOnline();
      await checkNetwork(ctx, body);
      const ids = await getRosettaMempoolTxIds(ctx.db);
      return { transaction_identifiers: ids.map((hash) => ({ hash })) };
    },
    '/mempool/transaction': async (body) => {
      ctx.requireOnline();
      await checkNetwork(ctx, body);
      const txId = requireObject(body, 'transaction_identifier');
      const hash = parseHash(txId['hash'], 'transaction_identifier.hash', 'invalidTransactionHash');
      const tx = await getRosettaMempoolTx(ctx.db, hash);
      if (!tx) throw new RosettaError('transactionNotFound', { hash });
      return { transaction: toRosettaMempoolTransaction(tx) };
    },
  };
}
