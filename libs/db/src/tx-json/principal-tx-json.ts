import type { Knex } from 'knex';
import { clarityValueView, type ClarityValueView } from './mined-tx-json';
import { TX_JSON_COLUMNS } from './kept-tx-list-json';
import { toTransactionSummaryResponse, type DbTxSummaryFields } from './v3-transaction-summary';

/**
 * `principal_tx_json` (migration 102, ADR 0039): the per-principal part of each canonical (principal, transaction)
 * row of an address's histories, kept as JSON text by the indexer, rendered here by the one mapper the api's single
 * transaction endpoints use too:
 * - `v2_tail`: what `/extended/v2/addresses/{a}/transactions` writes after the transaction's list text
 *   (`"stx_sent":…,"stx_received":…,"events":{…}`, without braces);
 * - `transfers_tail`: what `/extended/v1/address/{p}/transactions_with_transfers` writes after it
 *   (`"stx_sent":…,"stx_received":…,"stx_transfers":[…],"ft_transfers":[…],"nft_transfers":[…]`);
 * - `v3_json`: the whole item of `/extended/v3/principals/{p}/transactions` (`{"transaction":…,"involvement":…,…}`),
 *   null for a pair that has no `principal_txs` row.
 * Every input is the transaction's own row, its block's committed events and the `principal_txs` row, all fixed while
 * the block is canonical; the rows exist only while it is (added and deleted with `principal_txs`).
 */

/** One asset event of a transaction that the principal sends or receives (amount and NFT value as stored). */
export interface DbPrincipalTransfer {
  type: string;
  event_index: number;
  amount: string | null;
  sender: string | null;
  recipient: string | null;
  asset_identifier: string | null;
  value_hex: string | null;
  value_repr: string | null;
}

/** The columns of a transaction the per-principal fields of the v2 and v1 histories are made of. */
export interface DbPrincipalTxFields {
  sender_address: string;
  sponsor_address: string | null;
  sponsored: boolean;
  fee_rate: string;
  /** The principal's asset events in the transaction, highest event index first (null: none). */
  transfers: DbPrincipalTransfer[] | null;
}

/** What `principal_txs` says the transaction moved for the principal (migration 070). */
export interface DbPrincipalTxActivity {
  stx_sent: string;
  stx_received: string;
  stx_balance_affected: boolean;
  ft_balance_affected: boolean;
  nft_balance_affected: boolean;
}

/** A party of a transfer: left out when there is none (a mint has no sender, a burn no recipient). */
type Parties = { sender?: string; recipient?: string };

export interface StxTransferJson extends Parties {
  amount: string;
}

export interface FtTransferJson extends Parties {
  amount: string;
  asset_identifier: string;
}

export interface NftTransferJson extends Parties {
  value: ClarityValueView;
  asset_identifier: string;
}

/** The per-principal fields of an item of `/transactions_with_transfers` (all but `tx`), in the answer's order. */
export interface TransfersOfItemJson {
  stx_sent: string;
  stx_received: string;
  stx_transfers: StxTransferJson[];
  ft_transfers?: FtTransferJson[];
  nft_transfers?: NftTransferJson[];
}

function parties(t: DbPrincipalTransfer): Parties {
  const out: Parties = {};
  if (t.sender !== null) out.sender = t.sender;
  if (t.recipient !== null) out.recipient = t.recipient;
  return out;
}

const isStx = (t: DbPrincipalTransfer) => t.type.startsWith('stx_');

function nftValue(t: DbPrincipalTransfer): ClarityValueView {
  if (t.value_hex && t.value_repr !== null) return { hex: t.value_hex, repr: t.value_repr };
  return clarityValueView(t.value_hex);
}

/**
 * The per-principal fields of an item of `/transactions_with_transfers` (`tokens`: with the FT and NFT lists, which
 * `/{tx_id}/with_transfers` leaves out). STX sent is the fee when the principal is the transaction's origin (as the
 * reference API counts it, sponsored or not) plus the STX events it sent; received, the STX events it received.
 */
export function transfersOfItem(
  principal: string,
  row: Pick<DbPrincipalTxFields, 'sender_address' | 'fee_rate' | 'transfers'>,
  opts: { tokens: boolean },
): TransfersOfItemJson {
  const transfers = row.transfers ?? [];
  let sent = row.sender_address === principal ? BigInt(row.fee_rate) : 0n;
  let received = 0n;
  for (const t of transfers) {
    if (!isStx(t)) continue;
    if (t.sender === principal) sent += BigInt(t.amount ?? '0');
    if (t.recipient === principal) received += BigInt(t.amount ?? '0');
  }
  const out: TransfersOfItemJson = {
    stx_sent: sent.toString(),
    stx_received: received.toString(),
    stx_transfers: transfers.filter(isStx).map((t) => ({ amount: t.amount ?? '0', ...parties(t) })),
  };
  if (!opts.tokens) return out;
  out.ft_transfers = transfers
    .filter((t) => t.type.startsWith('ft_'))
    .map((t) => ({ amount: t.amount ?? '0', asset_identifier: t.asset_identifier ?? '', ...parties(t) }));
  out.nft_transfers = transfers
    .filter((t) => t.type.startsWith('nft_'))
    .map((t) => ({ value: nftValue(t), asset_identifier: t.asset_identifier ?? '', ...parties(t) }));
  return out;
}

type EventCounts = { transfer: number; mint: number; burn: number };

/** The per-principal fields of an item of `/extended/v2/addresses/{address}/transactions` (all but `tx`). */
export interface AddressTransactionTailJson {
  stx_sent: string;
  stx_received: string;
  events: { stx: EventCounts; ft: EventCounts; nft: EventCounts };
}

/**
 * The v2 per-principal fields, as the reference API's `principal_txs` holds them: STX sent is the fee when it pays it
 * (the sponsor of a sponsored transaction, else its origin) plus its STX events as sender; each of its asset events
 * counts once for it as sender and once as recipient.
 */
export function addressTransactionTail(principal: string, row: DbPrincipalTxFields): AddressTransactionTailJson {
  const transfers = row.transfers ?? [];
  const payer = row.sponsored && row.sponsor_address ? row.sponsor_address : row.sender_address;
  let sent = payer === principal ? BigInt(row.fee_rate) : 0n;
  let received = 0n;
  const zero = (): EventCounts => ({ transfer: 0, mint: 0, burn: 0 });
  const events = { stx: zero(), ft: zero(), nft: zero() };
  for (const t of transfers) {
    const [family, action] = t.type.replace(/_event$/, '').split('_') as ['stx' | 'ft' | 'nft', keyof EventCounts];
    const count = (t.sender === principal ? 1 : 0) + (t.recipient === principal ? 1 : 0);
    events[family][action] += count;
    if (family !== 'stx') continue;
    if (t.sender === principal) sent += BigInt(t.amount ?? '0');
    if (t.recipient === principal) received += BigInt(t.amount ?? '0');
  }
  return { stx_sent: sent.toString(), stx_received: received.toString(), events };
}

/** The members of an object's JSON text, without its braces (`''` for `{}`): the tail an item splices after `tx`. */
export function jsonMembers(rest: object): string {
  return JSON.stringify(rest).slice(1, -1);
}

/** How the principal is party to a transaction, as the reference names it. */
function involvementOf(
  principal: string,
  row: Pick<DbTxSummaryFields, 'sender_address' | 'sponsored' | 'sponsor_address'>,
): 'sender' | 'sponsor' | 'affected' {
  if (row.sender_address === principal) return 'sender';
  if (row.sponsored && row.sponsor_address === principal) return 'sponsor';
  return 'affected';
}

/** One item of `/extended/v3/principals/{principal}/transactions`: the summary, the principal's part and STX moved. */
export function toPrincipalTransactionJson(principal: string, row: DbTxSummaryFields & DbPrincipalTxActivity) {
  const sent = BigInt(row.stx_sent);
  const received = BigInt(row.stx_received);
  return {
    transaction: toTransactionSummaryResponse(row),
    involvement: involvementOf(principal, row),
    balance_changes: { stx: { sent: sent.toString(), received: received.toString(), net: (received - sent).toString() } },
    affected_balances: { stx: row.stx_balance_affected, ft: row.ft_balance_affected, nft: row.nft_balance_affected },
  };
}

const ASSET_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event', 'ft_transfer_event', 'ft_mint_event',
  'ft_burn_event', 'nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/**
 * The principal's asset events of the transaction `t` (as `transfers`), highest event index first: the committed
 * canonical STX, FT and NFT events it sends or receives (or only those of `types`, an SQL list), with the columns of
 * `DbPrincipalTransfer`. `principal` is a column or parameter.
 */
export function principalTransfersSql(principal: string, types = ASSET_EVENT_TYPES): string {
  return `LEFT JOIN LATERAL (
     SELECT json_agg(json_build_object('type', e.type, 'event_index', e.event_index, 'amount', e.amount::text,
              'sender', e.sender, 'recipient', e.recipient, 'asset_identifier', e.asset_identifier,
              'value_hex', e.value_hex, 'value_repr', e.value_repr) ORDER BY e.event_index DESC) AS transfers
     FROM events e
     WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.canonical AND e.committed
       AND e.type IN ${types} AND (e.sender = ${principal} OR e.recipient = ${principal})
   ) ev ON true`;
}

/**
 * The (principal, transaction) pairs of the blocks `?` in `principal_txs` or `principal_transfer_txs`, each with its
 * transaction's columns and the principal's transfers.
 */
const RENDER_ROWS = `WITH pairs AS (
    SELECT principal, tx_id, index_block_hash FROM principal_txs WHERE index_block_hash = ANY(?::text[])
    UNION
    SELECT principal, tx_id, index_block_hash FROM principal_transfer_txs WHERE index_block_hash = ANY(?::text[])
  )
  SELECT k.principal, ${TX_JSON_COLUMNS.map((c) => `t.${c}`).join(', ')}, ev.transfers
  FROM pairs k
  JOIN txs t ON t.tx_id = k.tx_id AND t.index_block_hash = k.index_block_hash
  ${principalTransfersSql('k.principal')}`;

/**
 * The `principal_txs` rows of the blocks `?` (matched to the pairs by key in JS: a join here is planned as a loop over
 * the block's rows for each pair, quadratic in a block's size).
 */
const ACTIVITY_ROWS = `SELECT principal, tx_id, index_block_hash, stx_sent::text AS stx_sent, stx_received::text AS stx_received,
    stx_balance_affected, ft_balance_affected, nft_balance_affected
  FROM principal_txs WHERE index_block_hash = ANY(?::text[])`;

const UPSERT = `INSERT INTO principal_tx_json (principal, tx_id, index_block_hash, v2_tail, transfers_tail, v3_json)
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
  ON CONFLICT (principal, tx_id, index_block_hash) DO UPDATE
  SET v2_tail = excluded.v2_tail, transfers_tail = excluded.transfers_tail, v3_json = excluded.v3_json`;

type RenderRow = DbTxSummaryFields &
  DbPrincipalTxFields &
  Partial<DbPrincipalTxActivity> & { principal: string; has_activity: boolean };

/** The three texts of a pair, as the api's histories splice them. */
export function principalTxTexts(row: RenderRow): { v2: string; transfers: string; v3: string | null } {
  return {
    v2: jsonMembers(addressTransactionTail(row.principal, row)),
    transfers: jsonMembers(transfersOfItem(row.principal, row, { tokens: true })),
    v3: row.has_activity
      ? JSON.stringify(toPrincipalTransactionJson(row.principal, row as RenderRow & DbPrincipalTxActivity))
      : null,
  };
}

/**
 * Renders and keeps the texts of every (principal, transaction) pair of the blocks `indexBlockHashes` (which have
 * just joined the canonical chain, their `principal_txs` and `principal_transfer_txs` rows written): one statement
 * reading them, one upsert.
 */
export async function keepPrincipalTxJson(knex: Knex, indexBlockHashes: readonly string[]): Promise<number> {
  if (indexBlockHashes.length === 0) return 0;
  const hashes = [...indexBlockHashes];
  const { rows } = (await knex.raw(RENDER_ROWS, [hashes, hashes])) as { rows: RenderRow[] };
  if (rows.length === 0) return 0;
  const key = (r: { principal: string; tx_id: string; index_block_hash: string }) =>
    `${r.principal} ${r.tx_id} ${r.index_block_hash}`;
  const activity = (await knex.raw(ACTIVITY_ROWS, [hashes])) as {
    rows: Array<DbPrincipalTxActivity & { principal: string; tx_id: string; index_block_hash: string }>;
  };
  const byKey = new Map(activity.rows.map((a) => [key(a), a]));
  for (const r of rows) {
    const a = byKey.get(key(r));
    r.has_activity = a !== undefined;
    if (a) Object.assign(r, { ...a });
  }
  const texts = rows.map(principalTxTexts);
  await knex.raw(UPSERT, [
    rows.map((r) => r.principal),
    rows.map((r) => r.tx_id),
    rows.map((r) => r.index_block_hash),
    texts.map((t) => t.v2),
    texts.map((t) => t.transfers),
    // A text array with nulls (knex's binding type does not say it may hold them).
    texts.map((t) => t.v3) as string[],
  ]);
  return rows.length;
}

/** Deletes the texts of blocks leaving the canonical chain (with their `principal_txs` rows). */
export async function removePrincipalTxJson(knex: Knex, indexBlockHashes: readonly string[]): Promise<void> {
  if (indexBlockHashes.length === 0) return;
  await knex.raw('DELETE FROM principal_tx_json WHERE index_block_hash = ANY(?::text[])', [[...indexBlockHashes]]);
}
