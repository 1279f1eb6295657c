import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** What `/network/status` and the network identifier need of the chain, in one statement (one snapshot). */
export interface DbRosettaChainState {
  /** The canonical tip (from `chain_tip`) and its block's times; null before the first block. */
  tip_index_block_hash: string | null;
  tip_block_height: number | null;
  tip_burn_block_time: string | null;
  tip_block_time: string | null;
  /** The lowest canonical block: Rosetta's genesis block. */
  genesis_index_block_hash: string | null;
  genesis_block_height: number | null;
  /** Version byte of a canonical transaction (0x00 mainnet, 0x80 testnet); null while none is indexed. */
  tx_version: number | null;
}

const CHAIN_STATE = statement(
  `SELECT t.index_block_hash AS tip_index_block_hash, t.block_height AS tip_block_height,
          tb.burn_block_time AS tip_burn_block_time, tb.block_time AS tip_block_time,
          g.index_block_hash AS genesis_index_block_hash, g.block_height AS genesis_block_height,
          (SELECT get_byte(x.raw_tx, 0) FROM txs x WHERE x.canonical AND octet_length(x.raw_tx) > 1 LIMIT 1) AS tx_version
   FROM (SELECT 1) one
   LEFT JOIN chain_tip t ON true
   LEFT JOIN blocks tb ON tb.index_block_hash = t.index_block_hash
   LEFT JOIN LATERAL (SELECT b.index_block_hash, b.block_height FROM blocks b WHERE b.canonical
                      ORDER BY b.block_height ASC LIMIT 1) g ON true`,
);

export async function getRosettaChainState(db: Knex): Promise<DbRosettaChainState> {
  const [row] = await query<DbRosettaChainState>(db, CHAIN_STATE, []);
  return row!;
}
