import { SERVER_VERSION } from '../../version';
import { getRosettaChainState } from '../datastore/rosetta-network';
import { blockTimestampMs } from '../mappers/rosetta-operations';
import { RosettaError, rosettaErrorCatalogue } from '../mappers/rosetta-errors';
import { OPERATION_STATUSES, OPERATION_TYPES, ROSETTA_BLOCKCHAIN } from '../mappers/rosetta-types';
import type { RosettaContext } from './rosetta-context';
import type { RosettaRoutes } from './rosetta-handler';
import { checkNetwork } from './rosetta-request';

/** The Mesh specification version these endpoints follow. */
const ROSETTA_VERSION = '1.5.1';

/** `/network/list`, `/network/status`, `/network/options`. */
export function rosettaNetworkRoutes(ctx: RosettaContext): RosettaRoutes {
  return {
    '/network/list': async () => {
      return { network_identifiers: [{ blockchain: ROSETTA_BLOCKCHAIN, network: await ctx.network() }] };
    },
    '/network/options': async (body) => {
      await checkNetwork(ctx, body);
      return {
        version: {
          rosetta_version: ROSETTA_VERSION,
          node_version: 'stacks-node (event observer)',
          middleware_version: SERVER_VERSION,
        },
        allow: {
          operation_statuses: OPERATION_STATUSES.map((s) => ({ ...s })),
          operation_types: [...OPERATION_TYPES],
          errors: rosettaErrorCatalogue(),
          historical_balance_lookup: true,
          call_methods: [],
          balance_exemptions: [],
          mempool_coins: false,
        },
      };
    },
    '/network/status': async (body) => {
      ctx.requireOnline();
      await checkNetwork(ctx, body);
      // One statement: the tip and the genesis block of the same snapshot, so the advertised tip is a block /block
      // serves (it is canonical in that snapshot, and later snapshots only ever replace it by its successors).
      const state = await getRosettaChainState(ctx.db);
      if (state.tip_index_block_hash === null || state.genesis_index_block_hash === null) throw new RosettaError('notReady');
      return {
        current_block_identifier: { index: state.tip_block_height!, hash: state.tip_index_block_hash },
        current_block_timestamp: blockTimestampMs({
          block_time: state.tip_block_time,
          burn_block_time: state.tip_burn_block_time!,
        }),
        genesis_block_identifier: { index: state.genesis_block_height!, hash: state.genesis_index_block_hash },
        peers: [],
      };
    },
  };
}
