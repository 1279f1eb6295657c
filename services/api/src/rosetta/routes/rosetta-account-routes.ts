import { getRosettaBalance } from '../datastore/rosetta-balance';
import { toAccountBalanceResponse } from '../mappers/rosetta-balance';
import { RosettaError } from '../mappers/rosetta-errors';
import { STACKED_SUB_ACCOUNT } from '../mappers/rosetta-types';
import type { RosettaContext } from './rosetta-context';
import type { RosettaRoutes } from './rosetta-handler';
import { blockLookupOf, checkCurrencies, checkNetwork, optionalObject, parsePrincipal, requireObject } from './rosetta-request';

/** `/account/balance`: spendable or `stacked` balance at the tip or at a block, with the next nonce. */
export function rosettaAccountRoutes(ctx: RosettaContext): RosettaRoutes {
  return {
    '/account/balance': async (body) => {
      ctx.requireOnline();
      const network = await checkNetwork(ctx, body);
      const accountId = requireObject(body, 'account_identifier');
      const address = parsePrincipal(accountId['address'], 'account_identifier.address', network);
      const sub = optionalObject(accountId, 'sub_account');
      if (sub && sub['address'] !== STACKED_SUB_ACCOUNT) {
        throw new RosettaError('invalidSubAccount', { sub_account: sub['address'] ?? null, supported: [STACKED_SUB_ACCOUNT] });
      }
      checkCurrencies(body);
      const blockId = optionalObject(body, 'block_identifier');
      const { lookup, index } = blockLookupOf(blockId, 'block_identifier');
      const row = await getRosettaBalance(ctx.db, address, lookup);
      if (!row) throw new RosettaError('blockNotFound', { block_identifier: blockId ?? null });
      if (index !== undefined && row.block_height !== index) {
        throw new RosettaError('blockIdentifierMismatch', { index, hash: row.index_block_hash, block_index: row.block_height });
      }
      return toAccountBalanceResponse(row, sub ? STACKED_SUB_ACCOUNT : undefined, ctx.genesisBalances.get(address) ?? 0n);
    },
  };
}
