import type { Knex } from 'knex';
import { INBOUND_KINDS, type DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';
import { listBounds, listPage, type ListRange } from './numbered-list';

/** An STX transfer to the principal with its memo. Amount as a decimal string. */
export interface DbInboundStxTransfer {
  sender: string;
  amount: string;
  memo: string;
  block_height: number;
  tx_id: string;
  tx_index: number;
  transfer_type: 'bulk-send' | 'stx-transfer' | 'stx-transfer-memo';
}

/**
 * `/extended/v1/address/{principal}/stx_inbound` (`$1` principal, `$2` limit, `$3` offset, `$4` height or null for the
 * tip): one page of inbound transfers at or up to the height, newest first, with their number, in one statement: its
 * rows of `principal_stx_inbound` (migration 076, which also decides the send-many-memo contract by the principal's
 * network), the total two index reads and the page one index range at any offset.
 */
function inboundText(range: ListRange): string {
  return `SELECT ${TIP_SELECT}, n.hi - n.lo AS total, p.sender, p.amount, p.memo, p.block_height, p.tx_id, p.tx_index,
     CASE p.kind ${Object.entries(INBOUND_KINDS)
       .map(([type, kind]) => `WHEN ${kind} THEN '${type}'`)
       .join(' ')} END AS transfer_type
   FROM ${FROM_TIP}
   ${listBounds('principal_stx_inbound', range, '$4')}
   LEFT JOIN LATERAL (SELECT * FROM ${listPage('principal_stx_inbound', 'k')}) p ON true
   ORDER BY p.seq DESC`;
}

const INBOUND: Record<ListRange, Statement> = { at: statement(inboundText('at')), until: statement(inboundText('until')) };

export async function getInboundStxTransfers(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  range: { kind: ListRange; height: number | null },
): Promise<{ tip: DbChainTip | null; total: number; results: DbInboundStxTransfer[] }> {
  type Row = TipColumns & { total: string } & Partial<DbInboundStxTransfer>;
  const rows = await query<Row>(db, INBOUND[range.kind], [principal, page.limit, page.offset, range.height]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), results: rowsCarrying<DbInboundStxTransfer>(rows, 'tx_id') };
}
