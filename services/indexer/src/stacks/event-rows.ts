import { toEventJsonText } from '@bda/db';
import { decodeClarityValue } from '@bda/stacks-codec';
import type { NativeStatement } from '../write-statements';
import type { NodeEvent } from './node-payloads';
import { normalizeHex, sanitizeText } from './sanitize';

type Body = Record<string, unknown>;

/** The `events` columns of one node event (block-level columns are added by the caller). */
export function eventRow(ev: NodeEvent) {
  const body = (ev[ev.type] ?? {}) as Body;
  const str = (k: string): string | null =>
    typeof body[k] === 'string' ? (body[k] as string) : body[k] == null ? null : String(body[k]);
  const rawValue = str('raw_value');
  return {
    event_index: ev.event_index,
    tx_id: normalizeHex(ev.txid),
    type: ev.type,
    committed: ev.committed !== false,
    asset_identifier: str('asset_identifier'),
    sender: str('sender'),
    recipient: str('recipient'),
    amount: str('amount'),
    memo: str('memo') ? normalizeHex(str('memo')!) : null,
    value_hex: rawValue ? normalizeHex(rawValue) : null,
    value_repr: rawValue ? reprOf(rawValue) : null,
    contract_identifier: str('contract_identifier'),
    topic: str('topic'),
    locked_amount: str('locked_amount'),
    unlock_height: str('unlock_height'),
    locked_address: str('locked_address'),
  };
}

function reprOf(hex: string): string | null {
  try {
    return sanitizeText(decodeClarityValue(hex).repr);
  } catch {
    return null; // kept as hex; an undecodable value must not cost the block
  }
}

/**
 * The insert of a block's `event_json` rows (migration 101): each event's answer text, rendered from its `events`
 * columns by the api's mapper, the first row of a repeated key kept as the `events` insert keeps it.
 */
export function eventJsonInsert(
  indexBlockHash: string,
  events: ReadonlyArray<ReturnType<typeof eventRow>>,
): NativeStatement | undefined {
  const indexes: number[] = [];
  const texts: string[] = [];
  for (const e of events) {
    const text = toEventJsonText(e);
    if (text === null) continue;
    indexes.push(e.event_index);
    texts.push(text);
  }
  if (texts.length === 0) return undefined;
  return {
    sql: `INSERT INTO event_json (index_block_hash, event_index, json)
      SELECT $1::text, * FROM unnest($2::int[], $3::text[]) ON CONFLICT (index_block_hash, event_index) DO NOTHING`,
    bindings: [indexBlockHash, indexes, texts],
  };
}
