import type { Knex } from 'knex';
import { bytewiseText } from './bns-bytewise-text';

/**
 * The v1 address lists of issue 23 as read models (ADR 0024, "Numbered lists"): `/extended/v1/address/{principal}/
 * transactions_with_transfers`, `/assets` and `/stx_inbound` each read one table here instead of a union over `txs`
 * and `events` counted per request.
 * - `principal_transfer_txs`: one row per (principal, canonical transaction) the principal is party to as the
 *   transactions-with-transfers list defines it: its origin, a token-transfer recipient, the contract deployed or
 *   called, or a sender or recipient of one of its committed STX, FT or NFT events (a sponsor is not, unlike
 *   `principal_txs`).
 * - `principal_asset_events`: one row per (principal, committed canonical event) that is an STX/FT/NFT event it sends
 *   or receives, or an STX lock of it.
 * - `principal_stx_inbound`: one row per STX transfer to the principal: a token-transfer transaction (whatever its
 *   outcome, with its payload's memo), a committed `stx_transfer_event` carrying a memo, or one sent by the network's
 *   send-many-memo contract with the memo it logs next.
 * Each row carries `seq`, its 1-based place in the principal's list in chain order (the order of the primary key), with
 * no gaps: the number of a principal's rows up to a height is the `seq` of its newest row there (one index read), and a
 * page at any offset is a range of `seq` (index `(principal, seq)`), so neither the total nor a deep page reads the
 * principal's history. Only canonical blocks have rows: the indexer adds a block's rows when it joins the canonical
 * chain and deletes them when it leaves (`services/indexer/src/accounts/principal-lists.ts`), renumbering the rows
 * above when a block fills a gap under canonical blocks that came first. `up` fills them from the rows already indexed.
 */

export const PRINCIPAL_LIST_TABLES = ['principal_transfer_txs', 'principal_asset_events', 'principal_stx_inbound'] as const;
type PrincipalListTable = (typeof PRINCIPAL_LIST_TABLES)[number];

const ASSET_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event', 'ft_mint_event',
  'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/** The bulk-sending contract whose transfers carry a memo in the next log, by the recipient's network (as the reference). */
const SEND_MANY_MEMO_CONTRACT = `CASE WHEN e.recipient ~ '^S[PM]' THEN 'SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.send-many-memo'
  ELSE 'ST3F1X4QGV2SM8XD96X45M6RTQXKA1PZJZZCQAB4B.send-many-memo' END`;

/** `principal_stx_inbound.kind`: ascending in the list's chain order among transfers of one event. */
export const INBOUND_KINDS = { 'stx-transfer-memo': 0, 'stx-transfer': 1, 'bulk-send': 2 } as const;

interface ListShape {
  /** Columns written, `seq` excepted, in the order `rows` selects them. */
  columns: string[];
  /** The primary key after `principal`: the list's chain order, oldest first. */
  order: string[];
  /** The rows of the transactions and events `cond` selects (on `t` or `e`, `l` for a log event). */
  rows: (cond: (alias: 't' | 'e' | 'l') => string) => string;
}

const PRINCIPAL_LISTS: Record<PrincipalListTable, ListShape> = {
  principal_transfer_txs: {
    columns: ['principal', 'block_height', 'tx_index', 'tx_id', 'index_block_hash'],
    order: ['block_height', 'tx_index', 'tx_id'],
    rows: (cond) => `SELECT v.p, t.block_height, t.tx_index, t.tx_id, t.index_block_hash
       FROM txs t
       CROSS JOIN LATERAL (VALUES (t.sender_address),
         (CASE WHEN t.type_id = 'token_transfer' THEN t.payload->>'recipient_address' END), (t.contract_id)) v(p)
       WHERE ${cond('t')} AND v.p IS NOT NULL
       UNION
       SELECT v.p, e.block_height, e.tx_index, e.tx_id, e.index_block_hash
       FROM events e CROSS JOIN LATERAL (VALUES (e.sender), (e.recipient)) v(p)
       WHERE ${cond('e')} AND e.committed AND e.type IN ${ASSET_EVENT_TYPES} AND v.p IS NOT NULL`,
  },
  principal_asset_events: {
    columns: ['principal', 'block_height', 'event_index', 'index_block_hash'],
    order: ['block_height', 'event_index'],
    rows: (cond) => `SELECT DISTINCT v.p, e.block_height, e.event_index, e.index_block_hash
       FROM events e
       CROSS JOIN LATERAL (VALUES (CASE WHEN e.type IN ${ASSET_EVENT_TYPES} THEN e.sender END),
         (CASE WHEN e.type IN ${ASSET_EVENT_TYPES} THEN e.recipient END),
         (CASE WHEN e.type = 'stx_lock_event' THEN e.locked_address END)) v(p)
       WHERE ${cond('e')} AND e.committed AND v.p IS NOT NULL`,
  },
  principal_stx_inbound: {
    columns: ['principal', 'block_height', 'tx_index', 'ord', 'kind', 'tx_id', 'index_block_hash', 'sender', 'amount', 'memo'],
    order: ['block_height', 'tx_index', 'ord', 'kind', 'tx_id'],
    rows: (cond) => `SELECT e.recipient, e.block_height, e.tx_index, e.event_index, ${INBOUND_KINDS['bulk-send']}, e.tx_id,
              e.index_block_hash, e.sender, e.amount, l.value_hex
       FROM events e
       JOIN events l ON l.index_block_hash = e.index_block_hash AND l.event_index = e.event_index + 1
         AND l.type = 'contract_event' AND ${cond('l')} AND l.contract_identifier = ${SEND_MANY_MEMO_CONTRACT}
         AND l.tx_id = e.tx_id
       WHERE ${cond('e')} AND e.committed AND e.type = 'stx_transfer_event' AND e.recipient IS NOT NULL
       UNION ALL
       SELECT e.recipient, e.block_height, e.tx_index, e.event_index, ${INBOUND_KINDS['stx-transfer-memo']}, e.tx_id,
              e.index_block_hash, e.sender, e.amount, e.memo
       FROM events e
       WHERE ${cond('e')} AND e.committed AND e.type = 'stx_transfer_event' AND e.recipient IS NOT NULL AND e.memo IS NOT NULL
       UNION ALL
       SELECT t.payload->>'recipient_address', t.block_height, t.tx_index, -1, ${INBOUND_KINDS['stx-transfer']}, t.tx_id,
              t.index_block_hash, t.sender_address, (t.payload->>'amount')::numeric, coalesce(t.payload->>'memo', '0x')
       FROM txs t
       WHERE ${cond('t')} AND t.type_id = 'token_transfer' AND t.payload->>'recipient_address' IS NOT NULL`,
  },
};

/**
 * A numbered list: a table whose rows carry `seq`, their 1-based place in their principal's list in the order of
 * `order` (the primary key after the principal column), without gaps. The three tables of this migration are such
 * lists; so are `principal_txs` (077) and `address_txs` (087), whose rows other statements write unnumbered.
 */
export interface NumberedList {
  table: string;
  /** The principal column (`principal`, or `address` in `address_txs`). */
  principal: string;
  order: readonly string[];
}

function numberedList(list: PrincipalListTable | NumberedList): NumberedList {
  return typeof list === 'string' ? { table: list, principal: 'principal', order: PRINCIPAL_LISTS[list].order } : list;
}

/** The `seq` of a principal's newest row of `table` whose `block_height` satisfies `heightCond` (alias `s`), or 0. */
export function listSeqAt(table: PrincipalListTable | NumberedList, principal: string, heightCond: string): string {
  const list = numberedList(table);
  const order = list.order.map((c) => `s.${c} DESC`).join(', ');
  return `coalesce((SELECT s.seq FROM ${list.table} s WHERE s.${list.principal} = ${principal} AND s.block_height ${heightCond}
     ORDER BY ${order} LIMIT 1), 0)`;
}

/**
 * `guard.above`: whether any principal of `per` (principal, height) has rows above its height: one index probe each.
 * Only then does the renumbering UPDATE run (a one-time filter), so the common block, which extends the tip, never
 * plans a join over the table.
 */
function aboveGuard(list: NumberedList): string {
  return `guard AS (
       SELECT coalesce(bool_or(EXISTS (SELECT 1 FROM ${list.table} s WHERE s.${list.principal} = per.principal
                                       AND s.block_height > per.height)),
                       false) AS above
       FROM per
     )`;
}

/**
 * The statement that adds the rows of one block (`$1`, its index block hash) to `table`: each principal's new rows
 * numbered after its newest row below the block, and its rows above the block (only when the block fills a gap under
 * canonical blocks) moved up by the number of new rows.
 */
export function principalListAddSql(table: PrincipalListTable): string {
  const { columns, order, rows } = PRINCIPAL_LISTS[table];
  const cond = (a: 't' | 'e' | 'l') => `${a}.index_block_hash = $1`;
  return `WITH fresh (${columns.join(', ')}) AS MATERIALIZED (${rows(cond)}),
     per AS (
       SELECT principal, min(block_height) AS height, count(*) AS n FROM fresh GROUP BY principal
     ),
     ${aboveGuard(numberedList(table))},
     shifted AS (
       UPDATE ${table} s SET seq = s.seq + per.n FROM per
       WHERE (SELECT above FROM guard) AND s.principal = per.principal AND s.block_height > per.height
       RETURNING 1
     ),
     base AS (
       SELECT per.principal, ${listSeqAt(table, 'per.principal', '< per.height')} AS base FROM per
     ),
     inserted AS (
       INSERT INTO ${table} (${columns.join(', ')}, seq)
       SELECT ${columns.map((c) => `f.${c}`).join(', ')},
              b.base + row_number() OVER (PARTITION BY f.principal ORDER BY ${order.map((c) => `f.${c}`).join(', ')})
       FROM fresh f JOIN base b ON b.principal = f.principal
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM shifted) AS shifted`;
}

/**
 * The statement that deletes the rows of blocks leaving the canonical chain (`$1`, their index block hashes) from
 * `table`, and moves each remaining row above a deleted one down by the number of its principal's rows deleted below
 * it (rows above exist only when the blocks lie under canonical blocks that stay).
 */
export function principalListRemoveSql(table: PrincipalListTable | NumberedList): string {
  const list = numberedList(table);
  const p = list.principal;
  return `WITH gone AS (
       DELETE FROM ${list.table} WHERE index_block_hash = ANY($1::text[]) RETURNING ${p} AS principal, block_height
     ),
     per AS (SELECT principal, min(block_height) AS height FROM gone GROUP BY principal),
     ${aboveGuard(list)},
     shifted AS (
       UPDATE ${list.table} s
       SET seq = s.seq - (SELECT count(*) FROM gone g WHERE g.principal = s.${p} AND g.block_height < s.block_height)
       FROM per
       WHERE (SELECT above FROM guard) AND s.${p} = per.principal AND s.block_height > per.height
         AND s.index_block_hash <> ALL($1::text[])
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM gone) AS deleted, (SELECT count(*) FROM shifted) AS shifted`;
}

/**
 * The statement that numbers the rows of one block (`$1`, its index block hash) that another statement wrote into
 * `list` unnumbered (`seq` 0): each principal's rows numbered after its newest row below the block, and its rows
 * above the block (only when the block fills a gap under canonical blocks) moved up by their number, as
 * `principalListAddSql` does for the rows it writes itself.
 */
export function numberedListNumberSql(list: NumberedList): string {
  const { table, principal: p, order } = list;
  return `WITH fresh AS MATERIALIZED (
       SELECT f.${p} AS principal, ${order.map((c) => `f.${c}`).join(', ')},
              row_number() OVER (PARTITION BY f.${p} ORDER BY ${order.map((c) => `f.${c}`).join(', ')}) AS rn
       FROM ${table} f WHERE f.index_block_hash = $1 AND f.seq = 0
     ),
     per AS (
       SELECT principal, min(block_height) AS height, count(*) AS n FROM fresh GROUP BY principal
     ),
     ${aboveGuard(list)},
     shifted AS (
       UPDATE ${table} s SET seq = s.seq + per.n FROM per
       WHERE (SELECT above FROM guard) AND s.${p} = per.principal AND s.block_height > per.height
       RETURNING 1
     ),
     base AS (
       SELECT per.principal, ${listSeqAt(list, 'per.principal', '< per.height')} AS base FROM per
     ),
     numbered AS (
       UPDATE ${table} s SET seq = b.base + f.rn
       FROM fresh f JOIN base b ON b.principal = f.principal
       WHERE s.${p} = f.principal AND ${order.map((c) => `s.${c} = f.${c}`).join(' AND ')}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM numbered) AS numbered, (SELECT count(*) FROM shifted) AS shifted`;
}

/** The statement that numbers every row of `list` from scratch (the backfill of migrations 077 and 087). */
export function numberedListFillSql(list: NumberedList): string {
  const { table, principal: p, order } = list;
  return `UPDATE ${table} s SET seq = f.rn
     FROM (SELECT ${p} AS principal, ${order.join(', ')},
                  row_number() OVER (PARTITION BY ${p} ORDER BY ${order.join(', ')}) AS rn
           FROM ${table}) f
     WHERE s.${p} = f.principal AND ${order.map((c) => `s.${c} = f.${c}`).join(' AND ')}`;
}

/** The statement that fills `table` from scratch over the canonical chain (this migration's backfill). */
export function principalListFillSql(table: PrincipalListTable): string {
  const { columns, order, rows } = PRINCIPAL_LISTS[table];
  return `INSERT INTO ${table} (${columns.join(', ')}, seq)
     SELECT ${columns.map((c) => `f.${c}`).join(', ')},
            row_number() OVER (PARTITION BY f.principal ORDER BY ${order.map((c) => `f.${c}`).join(', ')})
     FROM (${rows((a) => `${a}.canonical`)}) f (${columns.join(', ')})`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('principal_transfer_txs', (t) => {
    t.comment('Canonical transactions of each principal as /extended/v1/address/{p}/transactions_with_transfers lists them');
    t.text('principal').notNullable().comment('Standard or contract principal');
    t.integer('block_height').notNullable().comment('Height of the including block');
    t.integer('tx_index').notNullable().comment('Position in the block');
    t.text('tx_id').notNullable().comment('Transaction');
    t.text('index_block_hash').notNullable().comment('Including block (rows deleted when it leaves the canonical chain)');
    t.integer('seq').notNullable().comment('1-based place in the principal’s list, oldest first, no gaps');
    t.primary(['principal', 'block_height', 'tx_index', 'tx_id']);
  });
  await knex.schema.createTable('principal_asset_events', (t) => {
    t.comment('Committed canonical asset events and STX locks of each principal (/extended/v1/address/{p}/assets)');
    t.text('principal').notNullable().comment('Sender or recipient of the asset event, or the locked address');
    t.integer('block_height').notNullable().comment('Height of the event’s block');
    t.integer('event_index').notNullable().comment('Index of the event in its block');
    t.text('index_block_hash').notNullable().comment('The event’s block (rows deleted when it leaves the canonical chain)');
    t.integer('seq').notNullable().comment('1-based place in the principal’s list, oldest first, no gaps');
    t.primary(['principal', 'block_height', 'event_index']);
  });
  await knex.schema.createTable('principal_stx_inbound', (t) => {
    t.comment('STX transfers to each principal with their memos (/extended/v1/address/{p}/stx_inbound)');
    t.text('principal').notNullable().comment('Recipient');
    t.integer('block_height').notNullable().comment('Height of the including block');
    t.integer('tx_index').notNullable().comment('Position of the transaction in the block');
    t.integer('ord').notNullable().comment('Index of the transfer event in the block, -1 for a token-transfer transaction');
    t.smallint('kind')
      .notNullable()
      .comment('0 stx-transfer-memo (an event with a memo), 1 stx-transfer (the transaction), 2 bulk-send (send-many-memo)');
    t.text('tx_id').notNullable().comment('Transaction');
    t.text('index_block_hash').notNullable().comment('Including block (rows deleted when it leaves the canonical chain)');
    t.text('sender').nullable().comment('Sender of the transfer');
    t.decimal('amount', 40, 0).nullable().comment('micro-STX transferred');
    t.text('memo').nullable().comment('Memo (hex): the payload’s, the event’s, or the value send-many-memo logs');
    t.integer('seq').notNullable().comment('1-based place in the principal’s list, oldest first, no gaps');
    t.primary(['principal', 'block_height', 'tx_index', 'ord', 'kind', 'tx_id']);
  });
  for (const table of PRINCIPAL_LIST_TABLES) {
    await bytewiseText(knex, table);
    await knex.raw(`CREATE INDEX ${table}_seq ON ${table} (principal, seq)`);
    await knex.raw(`COMMENT ON INDEX ${table}_seq IS 'A page at any offset: a range of seq'`);
    await knex.raw(`CREATE INDEX ${table}_block ON ${table} (index_block_hash)`);
    await knex.raw(`COMMENT ON INDEX ${table}_block IS 'The rows of a block leaving the canonical chain'`);
    await knex.raw(principalListFillSql(table));
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...PRINCIPAL_LIST_TABLES].reverse()) await knex.schema.dropTable(table);
}
