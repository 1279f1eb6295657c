import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement, type Statement } from '../../datastore/read-statement';
import { ASSET_EVENT_TYPES } from './address-assets';

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
 * The bulk-sending contract whose transfers carry a memo in the log right after them (the reference API's defaults,
 * by network: a principal's own network decides which one is read).
 */
const SEND_MANY_MEMO_CONTRACTS = {
  mainnet: 'SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.send-many-memo',
  testnet: 'ST3F1X4QGV2SM8XD96X45M6RTQXKA1PZJZZCQAB4B.send-many-memo',
};

/** `$1` principal, `r.height` the range's height: the three kinds of inbound transfer, as rows of one shape. */
function kinds(range: 'at' | 'until'): string[] {
  const height = range === 'at' ? '= r.height' : '<= r.height';
  const stxTransferTo = `e.canonical AND e.committed AND e.type IN ${ASSET_EVENT_TYPES} AND e.type = 'stx_transfer_event'
       AND e.recipient = $1 AND e.block_height ${height}`;
  return [
    // A transfer by the send-many-memo contract: its memo is the value that contract logs as the next event.
    `SELECT e.sender, e.amount, l.value_hex AS memo, e.block_height, e.tx_id, e.tx_index, e.event_index AS ord,
            'bulk-send' AS transfer_type
     FROM events e
     JOIN events l ON l.index_block_hash = e.index_block_hash AND l.event_index = e.event_index + 1
       AND l.type = 'contract_event' AND l.canonical AND l.contract_identifier = $4 AND l.tx_id = e.tx_id
     WHERE ${stxTransferTo}`,
    // A transfer (from any transaction) that carried a memo of its own.
    `SELECT e.sender, e.amount, e.memo, e.block_height, e.tx_id, e.tx_index, e.event_index AS ord,
            'stx-transfer-memo' AS transfer_type
     FROM events e WHERE ${stxTransferTo} AND e.memo IS NOT NULL`,
    // A token-transfer transaction to the principal, whatever its outcome, with the memo of its payload.
    `SELECT t.sender_address, (t.payload->>'amount')::numeric, coalesce(t.payload->>'memo', '0x'), t.block_height,
            t.tx_id, t.tx_index, -1, 'stx-transfer'
     FROM txs t
     WHERE t.canonical AND t.type_id = 'token_transfer' AND t.payload->>'recipient_address' = $1 AND t.block_height ${height}`,
  ];
}

/**
 * `/extended/v1/address/{principal}/stx_inbound` (`$1` principal, `$2` limit, `$3` offset, `$4` the send-many-memo
 * contract, `$5` height or null for the tip): one page of inbound transfers at or up to the height, newest first, with
 * their number, in one statement.
 */
function inboundText(range: 'at' | 'until'): string {
  const all = kinds(range).join(' UNION ALL ');
  const bound =
    range === 'at'
      ? 'LEFT JOIN LATERAL (SELECT $5::integer AS height) r ON true'
      : 'LEFT JOIN LATERAL (SELECT least(coalesce($5::integer, tip.block_height), tip.block_height) AS height) r ON true';
  return `SELECT ${TIP_SELECT}, c.total, p.sender, p.amount, p.memo, p.block_height, p.tx_id, p.tx_index, p.transfer_type
   FROM ${FROM_TIP}
   ${bound}
   CROSS JOIN LATERAL (SELECT count(*) AS total FROM (${all}) a) c
   LEFT JOIN LATERAL (
     SELECT * FROM (${all}) x ORDER BY x.block_height DESC, x.tx_index DESC, x.ord DESC, x.transfer_type LIMIT $2 OFFSET $3
   ) p ON true
   ORDER BY p.block_height DESC, p.tx_index DESC, p.ord DESC, p.transfer_type`;
}

const INBOUND: Record<'at' | 'until', Statement> = { at: statement(inboundText('at')), until: statement(inboundText('until')) };

export async function getInboundStxTransfers(
  db: Knex,
  principal: string,
  page: { limit: number; offset: number },
  range: { kind: 'at' | 'until'; height: number | null },
): Promise<{ tip: DbChainTip | null; total: number; results: DbInboundStxTransfer[] }> {
  const contract = /^S[PM]/.test(principal) ? SEND_MANY_MEMO_CONTRACTS.mainnet : SEND_MANY_MEMO_CONTRACTS.testnet;
  type Row = TipColumns & { total: string } & Partial<DbInboundStxTransfer>;
  const rows = await query<Row>(db, INBOUND[range.kind], [principal, page.limit, page.offset, contract, range.height]);
  const first = rows[0]!;
  return { tip: tipOf(first), total: Number(first.total), results: rowsCarrying<DbInboundStxTransfer>(rows, 'tx_id') };
}
