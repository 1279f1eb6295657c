import type { Knex } from 'knex';

/**
 * An address's history holds what the reference API's holds (ADR 0016): the transactions that name the principal
 * (sender, sponsor, token-transfer recipient, called or deployed contract) and those whose committed STX transfers,
 * mints or burns it is a party to. Token (FT/NFT) events and STX locks no longer add a transaction to it. This
 * removes the rows only those events justified, with their share of the totals; `down` puts them back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `WITH removed AS (
       DELETE FROM address_txs a
       WHERE NOT EXISTS (
               SELECT 1 FROM txs tx
               WHERE tx.tx_id = a.tx_id AND tx.index_block_hash = a.index_block_hash
                 AND a.address IN (tx.sender_address, tx.sponsor_address, tx.payload->>'recipient_address', tx.contract_id))
         AND NOT EXISTS (
               SELECT 1 FROM events e JOIN txs tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash
               WHERE e.tx_id = a.tx_id AND e.index_block_hash = a.index_block_hash AND e.committed
                 AND tx.status = 'success' AND e.type IN ('stx_transfer_event', 'stx_mint_event', 'stx_burn_event')
                 AND a.address IN (e.sender, e.recipient))
       RETURNING address
     )
     UPDATE address_tx_counts c SET tx_count = c.tx_count - d.n
     FROM (SELECT address, count(*) AS n FROM removed GROUP BY address) d
     WHERE c.address = d.address`,
  );
  await knex.raw(
    `COMMENT ON TABLE address_txs IS 'Canonical transactions touching a principal (sender, sponsor, recipient, contract, party of a STX transfer, mint or burn)'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `WITH parties AS (
       SELECT DISTINCT p.address, tx.block_height, coalesce(tx.microblock_sequence, 2147483647) AS mseq, tx.tx_index,
              tx.tx_id, tx.index_block_hash
       FROM events e JOIN txs tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash,
            LATERAL (VALUES (e.sender), (e.recipient), (e.locked_address)) AS p(address)
       WHERE tx.canonical AND e.committed AND tx.status = 'success' AND p.address IS NOT NULL
     ),
     inserted AS (
       INSERT INTO address_txs (address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash)
       SELECT address, block_height, mseq, tx_index, tx_id, index_block_hash FROM parties
       ON CONFLICT DO NOTHING
       RETURNING address
     )
     INSERT INTO address_tx_counts (address, tx_count)
     SELECT address, count(*) FROM inserted GROUP BY address
     ON CONFLICT (address) DO UPDATE SET tx_count = address_tx_counts.tx_count + excluded.tx_count`,
  );
  await knex.raw(
    `COMMENT ON TABLE address_txs IS 'Canonical transactions touching a principal (sender, sponsor, recipient, contract, event party)'`,
  );
}
