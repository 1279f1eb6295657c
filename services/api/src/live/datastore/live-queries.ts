import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/** A transaction of an announced block, in block order. */
export interface DbLiveBlockTx {
  tx_id: string;
}

/** A principal an announced block's transaction names or moves STX for (the rows of its address history). */
export interface DbLiveAddressTx {
  address: string;
  tx_id: string;
}

/** An STX movement of a transaction (transfer, mint, burn), for the `stx_*` fields of an address update. */
export interface DbLiveStxEvent {
  type: string;
  sender: string | null;
  recipient: string | null;
  amount: string;
}

/** An NFT event of an announced block. */
export interface DbLiveNftEvent {
  tx_id: string;
  tx_index: number;
  block_height: number;
  event_index: number;
  type: string;
  asset_identifier: string;
  sender: string | null;
  recipient: string | null;
  value_hex: string;
  value_repr: string | null;
}

const BLOCK_TXS = statement(
  `SELECT tx_id FROM txs WHERE index_block_hash = $1 AND canonical = true ORDER BY microblock_sequence NULLS FIRST, tx_index`,
);

const BLOCK_ADDRESS_TXS = statement(
  `SELECT address, tx_id FROM address_txs WHERE index_block_hash = $1 ORDER BY address, microblock_sequence, tx_index`,
);

const TX_STX_EVENTS = statement(
  `SELECT type, sender, recipient, amount::text AS amount FROM events
   WHERE index_block_hash = $1 AND tx_id = $2 AND canonical = true
     AND type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event') AND (sender = $3 OR recipient = $3)
   ORDER BY event_index`,
);

const TX_FEE = statement(
  `SELECT fee_rate::text AS fee_rate, sender_address, sponsor_address, sponsored FROM txs
   WHERE index_block_hash = $1 AND tx_id = $2 AND canonical = true`,
);

const BLOCK_NFT_EVENTS = statement(
  `SELECT tx_id, tx_index, block_height, event_index, type, asset_identifier, sender, recipient, value_hex, value_repr
   FROM events
   WHERE index_block_hash = $1 AND canonical = true AND committed = true
     AND type IN ('nft_transfer_event', 'nft_mint_event', 'nft_burn_event')
   ORDER BY event_index`,
);

export function getBlockTxs(db: Knex, indexBlockHash: string): Promise<DbLiveBlockTx[]> {
  return query<DbLiveBlockTx>(db, BLOCK_TXS, [indexBlockHash]);
}

export function getBlockAddressTxs(db: Knex, indexBlockHash: string): Promise<DbLiveAddressTx[]> {
  return query<DbLiveAddressTx>(db, BLOCK_ADDRESS_TXS, [indexBlockHash]);
}

export function getTxStxEvents(db: Knex, indexBlockHash: string, txId: string, principal: string): Promise<DbLiveStxEvent[]> {
  return query<DbLiveStxEvent>(db, TX_STX_EVENTS, [indexBlockHash, txId, principal]);
}

export async function getTxFee(
  db: Knex,
  indexBlockHash: string,
  txId: string,
): Promise<{ fee_rate: string; sender_address: string; sponsor_address: string | null; sponsored: boolean } | undefined> {
  const [row] = await query<{ fee_rate: string; sender_address: string; sponsor_address: string | null; sponsored: boolean }>(
    db,
    TX_FEE,
    [indexBlockHash, txId],
  );
  return row;
}

export function getBlockNftEvents(db: Knex, indexBlockHash: string): Promise<DbLiveNftEvent[]> {
  return query<DbLiveNftEvent>(db, BLOCK_NFT_EVENTS, [indexBlockHash]);
}
