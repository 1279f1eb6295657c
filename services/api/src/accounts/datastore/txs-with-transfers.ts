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

/** The column of `principal_tx_json` a page splices after the transaction's text. */
export type KeptTail = 'v2_tail' | 'transfers_tail';

/**
 * The items of a page of the principal's (`$1`) history in one field (ADR 0046, as ADR 0043 did for the chain pages):
 * a FROM item `h` with `results`, the items `{"tx":<text>,<tail>}` joined with commas in `order` — each the
 * transaction's kept list text (`tx_list_json`, ADR 0035, by its hash index) and the principal's kept `tail`
 * (`principal_tx_json`, ADR 0039, by its pair's hash: `principalTxJsonProbe`), both copied unparsed — and `missing`, a key of the page without one
 * of its texts (null when each has both). `keys` is a FROM item aliased `k` with `tx_id` and `index_block_hash`, in
 * `order` (the aggregate then sorts nothing).
 */
export function keptItemsOfPage(keys: string, order: string, tail: KeptTail): string {
  return `CROSS JOIN LATERAL (
     SELECT string_agg('{"tx":' || j.json || CASE WHEN x.${tail} = '' THEN '}' ELSE ',' || x.${tail} || '}' END, ','
                       ORDER BY ${order}) AS results,
            min(k.tx_id) FILTER (WHERE j.json IS NULL OR x.${tail} IS NULL) AS missing
     FROM ${keys}
     LEFT JOIN LATERAL (
       SELECT j.json FROM tx_list_json j WHERE j.tx_id = k.tx_id AND j.index_block_hash = k.index_block_hash OFFSET 0
     ) j ON true
     LEFT JOIN principal_tx_json x ON ${principalTxJsonProbe('$1')}
   ) h`;
}

/**
 * The join condition of the principal's (`principal`, a parameter) `principal_tx_json` row `x` of the page's key `k`:
 * the pair's hash index (migration 111, 2 buffers a probe instead of the primary key's 5), the key columns compared
 * on the row.
 */
export function principalTxJsonProbe(principal: string): string {
  return `(x.tx_id || x.principal) = (k.tx_id || ${principal}) AND x.principal = ${principal} AND x.tx_id = k.tx_id
       AND x.index_block_hash = k.index_block_hash`;
}

/** The columns of a statement with `keptItemsOfPage`. */
export interface DbKeptItems {
  results: string | null;
  missing: string | null;
}

/**
 * The joined items of a page ('' for none). Both texts are written with the keys in the block's database
 * transaction: a key without them is an indexer/api mismatch.
 */
export function keptItems(row: DbKeptItems): string {
  if (row.missing !== null) {
    throw new UnexpectedRowError(
      `transaction ${row.missing} has no kept list text (tx_list_json) or principal text (principal_tx_json)`,
    );
  }
  return row.results ?? '';
}

/**
 * `/extended/v1/address/{principal}/transactions_with_transfers` (`$1` principal, `$2` limit, `$3` offset, `$4`
 * height or null): the tip, the number of the principal's transactions in the range, and one page of them (newest
 * first), each the transaction's kept list text and the principal's kept part of the item, in one statement. The
 * transactions are the principal's rows of `principal_transfer_txs` (migration 076): the total is two index reads and
 * the page one index range at any offset. One row: the page's items joined (`keptItemsOfPage`, ADR 0046).
 */
function listText(range: ListRange): string {
  return `SELECT ${TIP_SELECT}, n.hi - n.lo AS total, h.results, h.missing
   FROM ${FROM_TIP}
   ${listBounds('principal_transfer_txs', range, '$4')}
   ${keptItemsOfPage(listPage('principal_transfer_txs', 'k'), 'k.seq DESC', 'transfers_tail')}`;
}

const LISTS: Record<ListRange, Statement> = { at: statement(listText('at')), until: statement(listText('until')) };

type Row = TipColumns & { total?: string; tx_id: string | null; abi_contract_id: string | null; contract_abi: unknown };

export async function getTxsWithTransfers(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  range: TransfersRange,
): Promise<{ tip: DbChainTip | null; total: number; results: string }> {
  const [row] = await query<TipColumns & DbKeptItems & { total: string }>(db, LISTS[range.kind], [
    principal,
    page.limit,
    page.offset,
    range.height,
  ]);
  return { tip: tipOf(row!), total: Number(row!.total), results: keptItems(row!) };
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
