import type { Knex } from 'knex';
import type { NodeAttachment } from './node-payloads';
import { normalizeHex } from './sanitize';
import { unnestInsert, WriteBatch } from '../write-statements';
import { applyBnsAttachments } from '../bns';

/** `/attachments/new`: kept as sent (BNS zonefiles among them) for the naming read models. */
export async function applyAttachments(trx: Knex.Transaction, items: NodeAttachment[]): Promise<void> {
  const rows = items.map((a) => ({
    content_hash: normalizeHex(a.content_hash),
    attachment_index: a.attachment_index,
    tx_id: normalizeHex(a.tx_id),
    index_block_hash: normalizeHex(a.index_block_hash),
    block_height: Number(a.block_height),
    contract_id: a.contract_id,
    metadata: normalizeHex(a.metadata),
    content: Buffer.from(a.content.replace(/^0x/, ''), 'hex'),
  }));
  if (rows.length === 0) return;
  // An unnest insert (one array parameter per column): any number of attachments is one statement of a fixed text.
  const writes = new WriteBatch(trx);
  await writes.add(
    await unnestInsert(trx, 'attachments', rows, {
      onConflict: ['content_hash', 'tx_id', 'index_block_hash', 'attachment_index'],
    }),
  );
  await writes.flush();
  await applyBnsAttachments(trx, rows);
}
