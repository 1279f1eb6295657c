import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * A principal's activity per transaction (issue 23, the v3 `/extended/v3/principals/{principal}/transactions` and
 * `/balance-changes` operations), as the reference API's `principal_txs` and `principal_tx_balance_changes` define it:
 * - `principal_txs`: one row per (principal, canonical transaction) the principal is party to — its origin, the fee
 *   payer (the sponsor of a sponsored one), a token-transfer recipient, the contract deployed or called, or a sender or
 *   recipient of one of its effective STX, FT or NFT events — with what the transaction moved for it in STX (fee
 *   included in `stx_sent`) and which kinds of its balances it touched. Keyed by the principal and the transaction's
 *   place in the chain, so a page of a principal's history is one index range whatever the length of that history.
 * - `principal_tx_balance_changes`: one row per (principal, transaction, asset) with what it sent and received of it
 *   (STX with the fee; an NFT counts 1 a value).
 * - `principal_tx_counts`: the number of rows of each principal in `principal_txs` (the lists' `total`).
 * Only canonical blocks have rows; the indexer adds a block's rows when it joins the canonical chain and deletes them
 * when it leaves (`services/indexer/src/accounts/principal-activity.ts`). `up` fills them from the rows already indexed.
 */

/** Anchored transactions sort after a block's microblock ones, as in `txs_canonical_order` (int4 max). */
const ANCHORED_SEQUENCE = 2147483647;

const ASSET_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event', 'ft_mint_event',
  'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/**
 * The statement that adds the activity rows of the transactions `txCond` selects (on `txs t`), with `eventCond` on
 * their events (`events e`); the indexer's per-block statement and this migration's backfill are both this text. Only
 * committed events of successful transactions count (the effective events of ADR 0024).
 */
export function principalActivityInsertSql(txCond: string, eventCond: string): string {
  return `WITH tx AS MATERIALIZED (
       SELECT t.tx_id, t.index_block_hash, t.block_height, coalesce(t.microblock_sequence, ${ANCHORED_SEQUENCE}) AS mseq,
              t.tx_index, t.sender_address, CASE WHEN t.sponsored THEN t.sponsor_address END AS sponsor, t.fee_rate,
              CASE WHEN t.type_id = 'token_transfer' THEN t.payload->>'recipient_address' END AS recipient, t.contract_id,
              t.status
       FROM txs t WHERE ${txCond}
     ),
     ev AS MATERIALIZED (
       SELECT e.tx_id, e.index_block_hash, e.type, e.sender, e.recipient, e.asset_identifier,
              CASE WHEN left(e.type, 4) = 'nft_' THEN 1 ELSE coalesce(e.amount, 0) END AS units,
              CASE WHEN left(e.type, 4) = 'stx_' THEN 1 WHEN left(e.type, 3) = 'ft_' THEN 2 ELSE 3 END AS asset_type
       FROM events e
       JOIN tx ON tx.tx_id = e.tx_id AND tx.index_block_hash = e.index_block_hash
       WHERE ${eventCond} AND e.committed AND tx.status = 'success' AND e.type IN ${ASSET_EVENT_TYPES}
         AND (left(e.type, 4) = 'stx_' OR e.asset_identifier IS NOT NULL)
     ),
     parts (tx_id, index_block_hash, principal, asset_type, asset_identifier, sent, received) AS (
       SELECT tx_id, index_block_hash, coalesce(sponsor, sender_address), 1, 'stx', fee_rate, 0 FROM tx
       UNION ALL
       SELECT tx_id, index_block_hash, sender, asset_type, CASE WHEN asset_type = 1 THEN 'stx' ELSE asset_identifier END,
              units, 0
       FROM ev WHERE sender IS NOT NULL AND type NOT IN ('stx_mint_event', 'ft_mint_event', 'nft_mint_event')
       UNION ALL
       SELECT tx_id, index_block_hash, recipient, asset_type, CASE WHEN asset_type = 1 THEN 'stx' ELSE asset_identifier END,
              0, units
       FROM ev WHERE recipient IS NOT NULL AND type NOT IN ('stx_burn_event', 'ft_burn_event', 'nft_burn_event')
     ),
     changes AS MATERIALIZED (
       SELECT tx_id, index_block_hash, principal, asset_type, asset_identifier, sum(sent) AS sent, sum(received) AS received
       FROM parts GROUP BY tx_id, index_block_hash, principal, asset_type, asset_identifier
     ),
     members AS (
       SELECT tx_id, index_block_hash, sender_address AS principal FROM tx
       UNION SELECT tx_id, index_block_hash, recipient FROM tx WHERE recipient IS NOT NULL
       UNION SELECT tx_id, index_block_hash, contract_id FROM tx WHERE contract_id IS NOT NULL
       UNION SELECT tx_id, index_block_hash, principal FROM changes
     ),
     kinds AS (
       SELECT tx_id, index_block_hash, principal, bool_or(asset_type = 2) AS ft, bool_or(asset_type = 3) AS nft,
              sum(sent) FILTER (WHERE asset_type = 1) AS stx_sent, sum(received) FILTER (WHERE asset_type = 1) AS stx_received,
              bool_or(asset_type = 1) AS stx
       FROM changes GROUP BY tx_id, index_block_hash, principal
     ),
     inserted_changes AS (
       INSERT INTO principal_tx_balance_changes (principal, tx_id, index_block_hash, block_height, microblock_sequence,
                                                 tx_index, asset_type, asset_identifier, sent, received)
       SELECT c.principal, c.tx_id, c.index_block_hash, tx.block_height, tx.mseq, tx.tx_index, c.asset_type,
              c.asset_identifier, c.sent, c.received
       FROM changes c JOIN tx ON tx.tx_id = c.tx_id AND tx.index_block_hash = c.index_block_hash
       RETURNING 1
     ),
     inserted AS (
       INSERT INTO principal_txs (principal, block_height, microblock_sequence, tx_index, tx_id, index_block_hash, stx_sent,
                                  stx_received, stx_balance_affected, ft_balance_affected, nft_balance_affected)
       SELECT m.principal, tx.block_height, tx.mseq, tx.tx_index, tx.tx_id, tx.index_block_hash, coalesce(k.stx_sent, 0),
              coalesce(k.stx_received, 0), coalesce(k.stx, false) OR coalesce(m.principal = tx.recipient, false), coalesce(k.ft, false),
              coalesce(k.nft, false)
       FROM members m
       JOIN tx ON tx.tx_id = m.tx_id AND tx.index_block_hash = m.index_block_hash
       LEFT JOIN kinds k ON k.tx_id = m.tx_id AND k.index_block_hash = m.index_block_hash AND k.principal = m.principal
       -- A block whose transactions repeat a tx_index (a malformed block the indexer still takes, as address_txs
       -- does): one row per principal and position, the first written.
       ON CONFLICT (principal, block_height, microblock_sequence, tx_index) DO NOTHING
       RETURNING principal
     ),
     counted AS (
       INSERT INTO principal_tx_counts (principal, tx_count)
       SELECT principal, count(*) FROM inserted GROUP BY principal
       ON CONFLICT (principal) DO UPDATE SET tx_count = principal_tx_counts.tx_count + excluded.tx_count
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted_changes) AS changes, (SELECT count(*) FROM counted) AS principals`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('principal_txs', (t) => {
    t.comment('Canonical transactions of each principal with what each moved for it (the v3 principal history)');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.integer('block_height').notNullable().comment('Height of the including block');
    t.integer('microblock_sequence').notNullable().comment(`Microblock sequence, ${ANCHORED_SEQUENCE} for anchored txs`);
    t.integer('tx_index').notNullable().comment('Position in the block');
    t.text('tx_id').notNullable().comment('Transaction');
    t.text('index_block_hash').notNullable().comment('Including block (rows deleted when it leaves the canonical chain)');
    t.decimal('stx_sent', 40, 0).notNullable().comment('micro-STX the principal sent in it, its fee included');
    t.decimal('stx_received', 40, 0).notNullable().comment('micro-STX the principal received in it');
    t.boolean('stx_balance_affected').notNullable().comment('It moved (or was meant to move) STX of the principal');
    t.boolean('ft_balance_affected').notNullable().comment('It moved fungible tokens of the principal');
    t.boolean('nft_balance_affected').notNullable().comment('It moved NFTs of the principal');
    t.primary(['principal', 'block_height', 'microblock_sequence', 'tx_index']);
  });
  await bytewiseText(knex, 'principal_txs');
  await knex.raw('CREATE INDEX principal_txs_block ON principal_txs (index_block_hash)');
  await knex.schema.createTable('principal_tx_balance_changes', (t) => {
    t.comment('What a canonical transaction moved of each asset for a principal (the v3 balance changes)');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.text('tx_id').notNullable().comment('Transaction');
    t.smallint('asset_type').notNullable().comment('1 STX, 2 fungible token, 3 NFT');
    t.text('asset_identifier').notNullable().comment('stx, or the <contract>::<name> of the token');
    t.text('index_block_hash').notNullable().comment('Including block (rows deleted when it leaves the canonical chain)');
    t.integer('block_height').notNullable().comment('Height of the including block');
    t.integer('microblock_sequence').notNullable().comment(`Microblock sequence, ${ANCHORED_SEQUENCE} for anchored txs`);
    t.integer('tx_index').notNullable().comment('Position in the block');
    t.decimal('sent', 40, 0).notNullable().comment('Sent (STX: micro-STX with the fee; FT: base units; NFT: values)');
    t.decimal('received', 40, 0).notNullable().comment('Received (same units)');
    t.primary(['principal', 'tx_id', 'asset_type', 'asset_identifier']);
  });
  await bytewiseText(knex, 'principal_tx_balance_changes');
  await knex.raw('CREATE INDEX principal_tx_balance_changes_block ON principal_tx_balance_changes (index_block_hash)');
  await knex.schema.createTable('principal_tx_counts', (t) => {
    t.comment('Rows per principal in principal_txs (the `total` of the v3 principal history)');
    t.text('principal').primary().comment('Principal');
    t.integer('tx_count').notNullable().comment('Its canonical transactions');
  });
  await bytewiseText(knex, 'principal_tx_counts');
  await knex.raw(principalActivityInsertSql('t.canonical', 'e.canonical'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('principal_tx_counts');
  await knex.schema.dropTable('principal_tx_balance_changes');
  await knex.schema.dropTable('principal_txs');
}
