import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, statement, type Statement } from '../../datastore/read-statement';
// The chain family's transaction row and ABI lookups: shared by every list of transactions (see the report on ADR 0023).
import { principalTransfersSql, UnexpectedRowError, type DbPrincipalTransfer } from '@bda/db';
import { ABI_SELECT, abisOf, calledContract, deployAbi, type ContractAbis } from '../../chain/datastore/contract-abis';
import { txParents, txRowSelect, txRowsOf, txSelect, type DbTxRow } from '../../chain/datastore/txs';
import { listBounds, listPage, type ListRange } from './numbered-list';

export type DbTxWithTransfers = DbTxRow & { transfers: DbPrincipalTransfer[] | null };

/** Which transactions of the principal: at one height, up to a height (capped at the tip), or by id. */
export type TransfersRange = { kind: 'at'; height: number } | { kind: 'until'; height: number | null };

const STX_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event')`;

/**
 * An item of a principal's page read from the kept texts: the key columns its cursors need, the transaction's kept list
 * text (`tx_list_json`, ADR 0035) and the principal's part of the item (`principal_tx_json`, ADR 0039).
 */
export interface DbKeptHistoryItem {
  tx_id: string;
  index_block_hash: string;
  block_height: number;
  tx_index: number;
  /** The list's microblock sequence (2147483647 for an anchored transaction); null when the list has none. */
  microblock_sequence: number | null;
  json: string;
  tail: string;
}

/** The column of `principal_tx_json` a page splices after the transaction's text. */
export type KeptTail = 'v2_tail' | 'transfers_tail';

/**
 * The transactions whose keys `keys` lists (a FROM item aliased `k` with `tx_id`, `index_block_hash`, `block_height`,
 * `tx_index` and,
 * as `sequence`, a microblock sequence expression; newest first in `order`), as `h`: each with its kept list text and
 * the principal's (`$1`) kept `tail` (both by primary key: no `txs` row, block rows, ABIs or events) and its place in
 * the page (`pos`); ordered by `pos`.
 */
export function pageOfKeptTexts(keys: string, order: string, tail: KeptTail, sequence = 'NULL::integer'): string {
  return `LEFT JOIN LATERAL (
     SELECT k.tx_id, k.index_block_hash, k.block_height, k.tx_index, ${sequence} AS microblock_sequence, j.json,
            x.${tail} AS tail,
            row_number() OVER (ORDER BY ${order}) AS pos
     FROM ${keys}
     LEFT JOIN tx_list_json j ON j.tx_id = k.tx_id AND j.index_block_hash = k.index_block_hash
     LEFT JOIN principal_tx_json x ON x.principal = $1 AND x.tx_id = k.tx_id AND x.index_block_hash = k.index_block_hash
   ) h ON true
   ORDER BY h.pos`;
}

/** The rows of a statement that carry an item of `pageOfKeptTexts`, each with both its kept texts. */
export function keptHistoryItems(
  rows: ReadonlyArray<{ tx_id: string | null; json?: string | null; tail?: string | null }>,
): DbKeptHistoryItem[] {
  const out = rows.filter((r) => r.tx_id !== null) as Array<DbKeptHistoryItem>;
  for (const r of out) {
    // Written with the keys in the block's database transaction: a key without them is an indexer/api mismatch.
    if (r.json === null) throw new UnexpectedRowError(`transaction ${r.tx_id} has no kept list text (tx_list_json)`);
    if (r.tail === null) throw new UnexpectedRowError(`transaction ${r.tx_id} has no kept principal text (principal_tx_json)`);
  }
  return out;
}

/**
 * `/extended/v1/address/{principal}/transactions_with_transfers` (`$1` principal, `$2` limit, `$3` offset, `$4`
 * height or null): the tip, the number of the principal's transactions in the range, and one page of them (newest
 * first), each the transaction's kept list text and the principal's kept part of the item, in one statement. The
 * transactions are the principal's rows of `principal_transfer_txs` (migration 076): the total is two index reads and
 * the page one index range at any offset.
 */
function listText(range: ListRange): string {
  return `SELECT ${TIP_SELECT}, n.hi - n.lo AS total, h.*
   FROM ${FROM_TIP}
   ${listBounds('principal_transfer_txs', range, '$4')}
   ${pageOfKeptTexts(listPage('principal_transfer_txs', 'k'), 'k.seq DESC', 'transfers_tail')}`;
}

const LISTS: Record<ListRange, Statement> = { at: statement(listText('at')), until: statement(listText('until')) };

type Row = TipColumns & { total?: string; tx_id: string | null; abi_contract_id: string | null; contract_abi: unknown };

export async function getTxsWithTransfers(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  range: TransfersRange,
): Promise<{ tip: DbChainTip | null; total: number; rows: DbKeptHistoryItem[] }> {
  const rows = await query<TipColumns & { total: string; tx_id: string | null }>(db, LISTS[range.kind], [
    principal,
    page.limit,
    page.offset,
    range.height,
  ]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), rows: keptHistoryItems(rows) };
}

/**
 * `/extended/v1/address/{principal}/{tx_id}/with_transfers` (`$1` principal, `$2` tx id): the canonical transaction
 * when it is one of the principal's (its origin, the token-transfer recipient, the contract deployed or called, or a
 * party to one of its committed STX events), with the principal's STX transfers. Reads the transaction and its events
 * only.
 */
const ONE = statement(
  `SELECT ${TIP_SELECT}, ${txRowSelect('h')}, h.transfers, ${ABI_SELECT}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT ${txSelect('t')}, ${calledContract('t')} AS called, ev.transfers
     FROM txs t
     ${txParents('t')}
     ${principalTransfersSql('$1', STX_EVENT_TYPES)}
     WHERE t.tx_id = $2 AND t.canonical
       AND (t.sender_address = $1 OR (t.type_id = 'token_transfer' AND t.payload->>'recipient_address' = $1)
            OR t.contract_id = $1
            OR EXISTS (SELECT 1 FROM events e
                       WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.canonical AND e.committed
                         AND e.type IN ${STX_EVENT_TYPES} AND (e.sender = $1 OR e.recipient = $1)))
     LIMIT 1
   ) h ON true
   ${deployAbi('h.called')}`,
);

export async function getTxWithTransfers(
  db: Knex,
  principal: string,
  txId: string,
): Promise<{ tip: DbChainTip | null; row: DbTxWithTransfers | null; abis: ContractAbis }> {
  const rows = await query<Row>(db, ONE, [principal, txId]);
  const first = rows[0]!;
  const [row] = txRowsOf(rows) as DbTxWithTransfers[];
  return { tip: tipOf(first), row: row ?? null, abis: abisOf(rows) };
}
