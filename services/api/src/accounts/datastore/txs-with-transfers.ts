import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, statement, type Statement } from '../../datastore/read-statement';
// The chain family's transaction row and ABI lookups: shared by every list of transactions (see the report on ADR 0023).
import { UnexpectedRowError } from '@bda/db';
import { ABI_SELECT, abisOf, calledContract, deployAbi, type ContractAbis } from '../../chain/datastore/contract-abis';
import { txParents, txRowSelect, txRowsOf, txSelect, type DbTxRow } from '../../chain/datastore/txs';
import { ASSET_EVENT_TYPES } from './address-assets';
import { listBounds, listPage, type ListRange } from './numbered-list';

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

export type DbTxWithTransfers = DbTxRow & { transfers: DbPrincipalTransfer[] | null };

/** Which transactions of the principal: at one height, up to a height (capped at the tip), or by id. */
export type TransfersRange = { kind: 'at'; height: number } | { kind: 'until'; height: number | null };

const STX_EVENT_TYPES = `('stx_transfer_event', 'stx_mint_event', 'stx_burn_event')`;

/** The principal's asset events of the transaction `t` (STX only with `stxOnly`), highest event index first. */
function transfersOf(stxOnly: boolean): string {
  const types = stxOnly ? STX_EVENT_TYPES : ASSET_EVENT_TYPES;
  return `LEFT JOIN LATERAL (
     SELECT json_agg(json_build_object('type', e.type, 'event_index', e.event_index, 'amount', e.amount::text,
              'sender', e.sender, 'recipient', e.recipient, 'asset_identifier', e.asset_identifier,
              'value_hex', e.value_hex, 'value_repr', e.value_repr) ORDER BY e.event_index DESC) AS transfers
     FROM events e
     WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash AND e.canonical AND e.committed
       AND e.type IN ${types} AND (e.sender = $1 OR e.recipient = $1)
   ) ev ON true`;
}

/**
 * A transaction of a principal's page: the few columns its per-principal fields need, the principal's transfers, and
 * its kept list text (`tx_list_json`, ADR 0035) that the answer's `tx` copies.
 */
export interface DbKeptTxWithTransfers {
  tx_id: string;
  index_block_hash: string;
  block_height: number;
  tx_index: number;
  microblock_sequence: number | null;
  sender_address: string;
  sponsor_address: string | null;
  sponsored: boolean;
  fee_rate: string;
  transfers: DbPrincipalTransfer[] | null;
  json: string | null;
}

/**
 * The transactions whose keys `keys` lists (a FROM item aliased `k`, newest first in `order`), as `h`: each with the
 * columns of `DbKeptTxWithTransfers`, the principal's asset transfers (`transfers`), its kept list text (by primary
 * key: no block rows or ABIs) and its place in the page (`pos`); ordered by `pos`. `$1` is the principal.
 */
export function pageWithTransfers(keys: string, order = 'k.block_height DESC, k.tx_index DESC'): string {
  return `LEFT JOIN LATERAL (
     SELECT t.*, row_number() OVER (ORDER BY ${order}) AS pos
     FROM ${keys}
     CROSS JOIN LATERAL (
       SELECT t.tx_id, t.index_block_hash, t.block_height, t.tx_index, t.microblock_sequence, t.sender_address, t.sponsor_address,
              t.sponsored, t.fee_rate, ev.transfers, j.json
       FROM txs t
       LEFT JOIN tx_list_json j ON j.tx_id = t.tx_id AND j.index_block_hash = t.index_block_hash
       ${transfersOf(false)}
       WHERE t.tx_id = k.tx_id AND t.index_block_hash = k.index_block_hash
       OFFSET 0
     ) t
   ) h ON true
   ORDER BY h.pos`;
}

/** The rows of a statement that carry a transaction of `pageWithTransfers`, each with its kept text. */
export function keptTxsWithTransfers(
  rows: ReadonlyArray<{ tx_id: string | null }>,
): Array<DbKeptTxWithTransfers & { json: string }> {
  const out = rows.filter((r) => r.tx_id !== null) as Array<DbKeptTxWithTransfers>;
  for (const r of out) {
    // Written with the transaction in the block's database transaction: a key without it is an indexer/api mismatch.
    if (r.json === null) throw new UnexpectedRowError(`transaction ${r.tx_id} has no kept list text (tx_list_json)`);
  }
  return out as Array<DbKeptTxWithTransfers & { json: string }>;
}

/**
 * `/extended/v1/address/{principal}/transactions_with_transfers` (`$1` principal, `$2` limit, `$3` offset, `$4`
 * height or null): the tip, the number of the principal's transactions in the range, and one page of them (newest
 * first) with the principal's transfers of each and the ABIs of the contracts the page calls, in one statement. The
 * transactions are the principal's rows of `principal_transfer_txs` (migration 076): the total is two index reads and
 * the page one index range at any offset.
 */
function listText(range: ListRange): string {
  return `SELECT ${TIP_SELECT}, n.hi - n.lo AS total, h.*
   FROM ${FROM_TIP}
   ${listBounds('principal_transfer_txs', range, '$4')}
   ${pageWithTransfers(listPage('principal_transfer_txs', 'k'), 'k.seq DESC')}`;
}

const LISTS: Record<ListRange, Statement> = { at: statement(listText('at')), until: statement(listText('until')) };

type Row = TipColumns & { total?: string; tx_id: string | null; abi_contract_id: string | null; contract_abi: unknown };

export async function getTxsWithTransfers(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  range: TransfersRange,
): Promise<{ tip: DbChainTip | null; total: number; rows: Array<DbKeptTxWithTransfers & { json: string }> }> {
  const rows = await query<TipColumns & { total: string; tx_id: string | null }>(db, LISTS[range.kind], [
    principal,
    page.limit,
    page.offset,
    range.height,
  ]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), rows: keptTxsWithTransfers(rows) };
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
     ${transfersOf(true)}
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
