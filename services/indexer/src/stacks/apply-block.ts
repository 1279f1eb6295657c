import type { Knex } from 'knex';
import { advanceChainTip, reorgToTip, refreshChainTip } from './reorg';
import { decideStreams, setUnconfirmedStreamsCanonical } from './microblock-streams';
import { addressTxRows, type DeferredReadModels } from './read-models';
import { keepMempoolTxJsonOfBlocks, keepTxListJson, keepTxSummaryJson, type DbAddressTx } from '@bda/db';
import type { NodeBlock, NodeTx } from './node-payloads';
import { normalizeHex, sanitizeText, toJsonText } from './sanitize';
import { eventJsonInsert, eventRow } from './event-rows';
import { DEFAULT_PARKING_BOUNDS, parkBlock, type ParkingBounds } from './parked-blocks';
import { decodeTxColumns, type DecodedTxColumns } from './tx-fields';
import { ADDRESS_NAMES_AT_HEIGHT_SQL, applyBnsBlock } from '../bns';
import { rewardSetInsert } from '../pox';
import { blockTxIdsRow } from '../chain/block-tx-ids';
import {
  buildUnnestInsert,
  columnTypesOf,
  knownColumnTypes,
  runPrepared,
  withConstants,
  WriteBatch,
  type ColumnTypes,
  type NativeStatement,
  type PreparedInsert,
} from '../write-statements';

interface BlockContext {
  known: boolean;
  parent_canonical: boolean | null;
  tip_hash: string | null;
  tip_height: number | null;
  parent_has_microblocks: boolean;
  has_parked_children: boolean;
  /** Microblocks built on this block arrived before it. */
  has_own_microblocks: boolean;
  /** A canonical block built on this one arrived before it (its parent unknown then). */
  has_canonical_child: boolean;
}

export interface ApplyResult {
  outcome: 'applied' | 'duplicate' | 'parked';
}

/**
 * Applies a `/new_block`: stores the block with its transactions, events and rewards, then runs
 * fork choice (reference/node-events.md): a block higher than the tip becomes canonical together
 * with its ancestors; a tie keeps the first seen. A block whose parent is unknown and higher than
 * the tip's child is parked until the parent arrives. Applying the same block twice changes nothing.
 */
export async function applyNewBlock(
  trx: Knex.Transaction,
  block: NodeBlock,
  receivedAt: string,
  readModels: DeferredReadModels,
  parking: ParkingBounds = DEFAULT_PARKING_BOUNDS,
): Promise<ApplyResult> {
  const hash = normalizeHex(block.index_block_hash);
  const parentHash = normalizeHex(block.parent_index_block_hash);
  // One round trip (a prepared statement) for everything the decision needs.
  const [ctx] = await runPrepared<BlockContext>(trx, BLOCK_CONTEXT_SQL, [hash, parentHash]);
  if (!ctx) throw new Error('block context query returned no row');
  if (ctx.known) return { outcome: 'duplicate' };
  const parentKnown = ctx.parent_canonical !== null;

  // Parked: its parent is unknown and it is higher than the tip's child. At the tip's height + 1 it becomes the tip
  // with its parent unknown, as a chain whose first recorded block is not the node's genesis does (the fuzzed
  // fixture); when that parent arrives later, it joins the canonical chain below its child (`has_canonical_child`).
  // The parked set is bounded (ADR 0019): past its bounds, the oldest parked blocks go to the dead letters.
  if (!parentKnown && ctx.tip_height !== null && block.block_height - 1 > ctx.tip_height) {
    const row = {
      index_block_hash: hash,
      parent_index_block_hash: parentHash,
      block_height: block.block_height,
      body: JSON.stringify(block),
      received_at: receivedAt,
    };
    await parkBlock(trx, row, parking);
    return { outcome: 'parked' };
  }

  const becomesTip = ctx.tip_height === null || block.block_height > ctx.tip_height;
  // The common case: the block extends the canonical tip (or starts the chain) — written canonical at once.
  const extendsTip = becomesTip && (ctx.tip_hash === null || (ctx.parent_canonical === true && ctx.tip_hash === parentHash));
  const hasMicroblockTxs = block.transactions.some((tx) => tx.microblock_hash);
  // The block's rows (and, when it extends the tip, the tip itself) go in one statement: none of them reads another.
  const writes = new WriteBatch(trx);
  const rows = prepared.get(block) ?? blockRows(block, hash);
  prepared.delete(block);
  await insertBlockData(writes, rows, extendsTip);
  const rewardSet = rewardSetInsert(trx, block, hash);
  if (rewardSet) await writes.add(rewardSet);
  if (extendsTip) {
    await writes.add(advanceChainTip(trx, block, hash));
    // The kept naming answers (migration 094) whose names' expiries this height crosses.
    await writes.add({ sql: ADDRESS_NAMES_AT_HEIGHT_SQL, bindings: [block.block_height] });
  }
  await writes.flush();
  // The list texts of its transactions (migration 095, ADR 0035), rendered from the rows just written.
  if (rows.txs.length > 0) await keepTxListJson(trx, [hash]);
  // Their v3 summaries (migration 108, ADR 0042): written once, from the rows' own columns.
  if (rows.txs.length > 0) await keepTxSummaryJson(trx, [hash]);
  // The kept texts of pending calls to the contracts it deploys: their ABI arrives with it (ADR 0041).
  if (rows.txs.some((t) => t.type_id === 'smart_contract')) await keepMempoolTxJsonOfBlocks(trx, [hash]);
  // The naming read models follow the canonical chain (ADR 0022); a reorg recomputes them in `setCanonical`.
  if (extendsTip)
    await applyBnsBlock(trx, { index_block_hash: hash, block_height: block.block_height, txs: rows.txs, events: rows.events });
  // Touches only `microblocks`, which nothing above reads or writes.
  if (hasMicroblockTxs || ctx.parent_has_microblocks) await confirmMicroblocks(trx, block, hash, extendsTip);

  if (extendsTip) {
    readModels.add(rows.addressTxs, rows.txIds, hash);
    // Its stream came first (out of order): canonical now with the block, and its newest microblock is the tip's.
    if (ctx.has_own_microblocks) {
      await setUnconfirmedStreamsCanonical(trx, [hash], true);
      await refreshChainTip(trx, 0);
    }
  } else if (becomesTip) {
    await readModels.flush(trx); // the reorg removes and re-adds history rows: they must all be written
    const delta = await reorgToTip(trx, hash, receivedAt);
    await refreshChainTip(trx, delta);
  } else if (ctx.has_canonical_child) {
    // It fills the gap under a canonical child that came first: it (with any missing branch below it) joins the
    // canonical chain, and the blocks holding its heights until now leave it. Nothing above it changes.
    await readModels.flush(trx);
    const delta = await reorgToTip(trx, hash, receivedAt, block.block_height);
    await refreshChainTip(trx, delta);
    // The child's kept list texts were rendered without this parent's burn time (ADR 0035).
    await keepTxListJson(trx, await childBlocks(trx, hash));
  }

  if (ctx.has_parked_children) await applyParkedChildren(trx, hash, readModels, parking);
  return { outcome: 'applied' };
}

/** The blocks stored on `parentHash`. */
async function childBlocks(trx: Knex.Transaction, parentHash: string): Promise<string[]> {
  const rows = await trx('blocks')
    .where({ parent_index_block_hash: parentHash })
    .select<Array<{ index_block_hash: string }>>('index_block_hash');
  return rows.map((r) => r.index_block_hash);
}

/** Parked blocks waiting for `parentHash` are applied now, recursively (their own children follow). */
async function applyParkedChildren(
  trx: Knex.Transaction,
  parentHash: string,
  readModels: DeferredReadModels,
  parking: ParkingBounds,
): Promise<void> {
  const children = await trx('parked_blocks')
    .where({ parent_index_block_hash: parentHash })
    .orderBy('index_block_hash')
    .select<Array<{ index_block_hash: string; body: string; received_at: string }>>('index_block_hash', 'body', 'received_at');
  for (const child of children) {
    await trx('parked_blocks').where({ index_block_hash: child.index_block_hash }).delete();
    await applyNewBlock(trx, JSON.parse(child.body) as NodeBlock, child.received_at, readModels, parking);
  }
}

const BLOCK_CONTEXT_SQL = `SELECT EXISTS (SELECT 1 FROM blocks WHERE index_block_hash = $1) AS known,
         p.canonical AS parent_canonical,
         t.index_block_hash AS tip_hash, t.block_height AS tip_height,
         EXISTS (SELECT 1 FROM microblocks WHERE parent_index_block_hash = $2) AS parent_has_microblocks,
         EXISTS (SELECT 1 FROM parked_blocks WHERE parent_index_block_hash = $1) AS has_parked_children,
         EXISTS (SELECT 1 FROM microblocks WHERE parent_index_block_hash = $1) AS has_own_microblocks,
         EXISTS (SELECT 1 FROM blocks WHERE parent_index_block_hash = $1 AND canonical) AS has_canonical_child
  FROM (SELECT 1) one
  LEFT JOIN blocks p ON p.index_block_hash = $2
  LEFT JOIN chain_tip t ON true`;

/**
 * The rows of a block, computed from its payload alone. Whether they are canonical is decided when the block is
 * written: `canonical` is bound then, as one value for all rows of a table.
 */
interface BlockRows {
  block: Record<string, unknown>;
  txs: Array<ReturnType<typeof txRow>>;
  events: Array<ReturnType<typeof eventRow> & { index_block_hash: string; tx_index: number; block_height: number }>;
  rewards: Array<Record<string, unknown>>;
  /** The block's per-address history rows, written if it extends the canonical tip. */
  addressTxs: DbAddressTx[];
  txIds: string[];
  /** The block's `event_json` rows (migration 101), written with its events. */
  eventJson?: NativeStatement;
  /** The inserts of `block`, `txs` and `events`, built ahead when the tables' column types were known. */
  inserts?: BlockInserts;
}

interface BlockInserts {
  block: PreparedInsert;
  txs?: PreparedInsert;
  events?: PreparedInsert;
}

/** Rows built ahead by `prepareNewBlock`, taken by `applyNewBlock`. */
const prepared = new WeakMap<NodeBlock, BlockRows>();

/**
 * Decodes a block's transactions and builds its rows ahead of `applyNewBlock`: pure work, no database, which the
 * indexer does while PostgreSQL runs the previous record's write. A block that cannot be decoded is left alone here:
 * `applyNewBlock` meets the same error where it always did.
 */
export function prepareNewBlock(block: NodeBlock): void {
  if (prepared.has(block)) return;
  try {
    prepared.set(block, blockRows(block, normalizeHex(block.index_block_hash)));
  } catch {
    // reported by applyNewBlock
  }
}

function blockRows(block: NodeBlock, hash: string): BlockRows {
  const txIndexById = new Map<string, number>();
  const eventCounts = new Map<string, number>();
  // A txid the block repeats keeps its first position, as its row does (the insert keeps the first of a key).
  for (const tx of block.transactions) {
    const id = normalizeHex(tx.txid);
    if (!txIndexById.has(id)) txIndexById.set(id, tx.tx_index);
  }
  for (const ev of block.events) {
    const id = normalizeHex(ev.txid);
    eventCounts.set(id, (eventCounts.get(id) ?? 0) + 1);
  }
  const cost = { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 };
  for (const tx of block.transactions) {
    for (const k of Object.keys(cost) as Array<keyof typeof cost>) cost[k] += tx.execution_cost?.[k] ?? 0;
  }
  const blockRow = {
    index_block_hash: hash,
    block_hash: normalizeHex(block.block_hash),
    block_height: block.block_height,
    parent_index_block_hash: normalizeHex(block.parent_index_block_hash),
    parent_block_hash: normalizeHex(block.parent_block_hash),
    parent_microblock_hash: normalizeHex(block.parent_microblock),
    parent_microblock_sequence: block.parent_microblock_sequence,
    burn_block_hash: normalizeHex(block.burn_block_hash),
    burn_block_height: block.burn_block_height,
    burn_block_time: block.burn_block_time,
    block_time: block.block_time ?? null,
    miner_txid: block.miner_txid ? normalizeHex(block.miner_txid) : null,
    tenure_height: block.tenure_height ?? null,
    cycle_number: block.cycle_number ?? null,
    signer_bitvec: block.signer_bitvec ?? null,
    signer_signature: block.signer_signature ? JSON.stringify(block.signer_signature) : null,
    tx_count: block.transactions.length,
    execution_cost_read_count: cost.read_count,
    execution_cost_read_length: cost.read_length,
    execution_cost_runtime: cost.runtime,
    execution_cost_write_count: cost.write_count,
    execution_cost_write_length: cost.write_length,
    pox_v1_unlock_height: block.pox_v1_unlock_height ?? null,
    pox_v2_unlock_height: block.pox_v2_unlock_height ?? null,
    pox_v3_unlock_height: block.pox_v3_unlock_height ?? null,
  };
  const recipients: Array<string | null> = [];
  const txs = block.transactions.map((tx) => {
    const decoded = decodeTxColumns(tx, block.events, block.burn_block_height);
    const recipient = decoded.fields.payload.recipient_address;
    recipients.push(typeof recipient === 'string' ? recipient : null);
    return txRow(tx, decoded, block, hash, eventCounts.get(normalizeHex(tx.txid)) ?? 0);
  });
  const events = block.events.map((ev) => ({
    ...eventRow(ev),
    index_block_hash: hash,
    tx_index: txIndexById.get(normalizeHex(ev.txid)) ?? -1,
    block_height: block.block_height,
  }));
  const rewards = (block.matured_miner_rewards ?? []).map((r, i) => ({
    index_block_hash: hash,
    reward_index: i,
    block_height: block.block_height,
    from_index_block_hash: normalizeHex(r.from_index_consensus_hash) + normalizeHex(r.from_stacks_block_hash).slice(2),
    recipient: r.recipient,
    miner_address: r.miner_address ?? null,
    coinbase_amount: String(r.coinbase_amount),
    tx_fees_anchored: String(r.tx_fees_anchored),
    tx_fees_streamed_confirmed: String(r.tx_fees_streamed_confirmed),
    tx_fees_streamed_produced: String(r.tx_fees_streamed_produced),
  }));
  const addressTxs = addressTxRows(
    { index_block_hash: hash, block_height: block.block_height },
    txs.map((row, i) => ({
      tx_id: row.tx_id,
      tx_index: row.tx_index,
      microblock_sequence: row.microblock_sequence,
      sender_address: row.sender_address,
      sponsor_address: row.sponsor_address,
      contract_id: row.contract_id,
      recipient: recipients[i]!,
      status: row.status,
    })),
    events,
  );
  const rows: BlockRows = { block: blockRow, txs, events, rewards, addressTxs, txIds: txs.map((t) => t.tx_id) };
  rows.eventJson = eventJsonInsert(hash, events);
  const types = { blocks: knownColumnTypes('blocks'), txs: knownColumnTypes('txs'), events: knownColumnTypes('events') };
  if (types.blocks && types.txs && types.events) rows.inserts = blockInserts(rows, types.blocks, types.txs, types.events);
  return rows;
}

const CANONICAL = ['canonical'] as const;

/** The unnest inserts of a block's own rows, transactions and events, `canonical` left to bind. */
function blockInserts(rows: BlockRows, blockTypes: ColumnTypes, txTypes: ColumnTypes, eventTypes: ColumnTypes): BlockInserts {
  return {
    block: buildUnnestInsert(blockTypes, 'blocks', [rows.block], { constants: CANONICAL }),
    txs:
      rows.txs.length > 0
        ? buildUnnestInsert(txTypes, 'txs', rows.txs, { onConflict: ['tx_id', 'index_block_hash'], constants: CANONICAL })
        : undefined,
    events:
      rows.events.length > 0
        ? buildUnnestInsert(eventTypes, 'events', rows.events, {
            onConflict: ['index_block_hash', 'event_index'],
            constants: CANONICAL,
          })
        : undefined,
  };
}

async function insertBlockData(writes: WriteBatch, rows: BlockRows, canonical: boolean): Promise<void> {
  const trx = writes.trx;
  const inserts =
    rows.inserts ??
    blockInserts(rows, await columnTypesOf(trx, 'blocks'), await columnTypesOf(trx, 'txs'), await columnTypesOf(trx, 'events'));
  await writes.add(withConstants(inserts.block, [canonical]));
  if (inserts.txs) await writes.add(withConstants(inserts.txs, [canonical]));
  // The block's ids in the v1 order (migration 093), written once with its transactions, canonical or not.
  const txIds = blockTxIdsRow(rows.block['index_block_hash'] as string, rows.txs);
  if (txIds) await writes.add(trx('block_tx_ids').insert(txIds).onConflict('index_block_hash').ignore());
  if (inserts.events) await writes.add(withConstants(inserts.events, [canonical]));
  if (rows.eventJson) await writes.add(rows.eventJson);
  if (rows.rewards.length > 0) {
    await writes.add(
      trx('miner_rewards')
        .insert(rows.rewards.map((r) => ({ ...r, canonical })))
        .onConflict(['index_block_hash', 'reward_index'])
        .ignore(),
    );
  }
}

/** A transaction's row; `canonical` is bound when the block is written (`insertBlockData`). */
function txRow(tx: NodeTx, { fields, columns }: DecodedTxColumns, block: NodeBlock, hash: string, eventCount: number) {
  const cost = tx.execution_cost;
  return {
    tx_id: normalizeHex(tx.txid),
    index_block_hash: hash,
    block_hash: normalizeHex(block.block_hash),
    block_height: block.block_height,
    burn_block_time: block.burn_block_time,
    block_time: block.block_time ?? null,
    burn_block_height: block.burn_block_height,
    parent_index_block_hash: normalizeHex(block.parent_index_block_hash),
    tx_index: tx.tx_index,
    raw_tx: Buffer.from(tx.raw_tx.replace(/^0x/, ''), 'hex'),
    status: tx.status,
    raw_result: normalizeHex(tx.raw_result ?? '0x'),
    vm_error: sanitizeText(tx.vm_error ?? null),
    ...columns,
    sponsored: fields.sponsored,
    contract_abi: abiOf(tx),
    burnchain_op: tx.burnchain_op ? toJsonText(tx.burnchain_op) : null,
    execution_cost_read_count: cost?.read_count ?? 0,
    execution_cost_read_length: cost?.read_length ?? 0,
    execution_cost_runtime: cost?.runtime ?? 0,
    execution_cost_write_count: cost?.write_count ?? 0,
    execution_cost_write_length: cost?.write_length ?? 0,
    microblock_hash: tx.microblock_hash ? normalizeHex(tx.microblock_hash) : null,
    microblock_sequence: tx.microblock_sequence ?? null,
    microblock_parent_hash: tx.microblock_parent_hash ? normalizeHex(tx.microblock_parent_hash) : null,
    event_count: eventCount,
  };
}

function abiOf(tx: NodeTx): string | null {
  const abi = tx.contract_interface ?? tx.contract_abi ?? null;
  return abi == null ? null : toJsonText(abi);
}

/**
 * The anchored block confirms its parent's microblocks up to `parent_microblock` (see `decideStreams`); the rest of
 * the stream, and any competing stream, is orphaned. Microblocks known only from this block's transactions are
 * recorded too.
 */
async function confirmMicroblocks(trx: Knex.Transaction, block: NodeBlock, hash: string, canonical: boolean): Promise<void> {
  const parentHash = normalizeHex(block.parent_index_block_hash);
  const blockHash = normalizeHex(block.block_hash);
  const fromTxs = new Map<string, { seq: number; parentHash: string; count: number }>();
  for (const tx of block.transactions) {
    if (!tx.microblock_hash || tx.microblock_sequence == null) continue;
    const key = normalizeHex(tx.microblock_hash);
    const entry = fromTxs.get(key) ?? {
      seq: tx.microblock_sequence,
      parentHash: normalizeHex(tx.microblock_parent_hash ?? '0x'),
      count: 0,
    };
    entry.count += 1;
    fromTxs.set(key, entry);
  }
  if (fromTxs.size > 0) {
    await trx('microblocks')
      .insert(
        [...fromTxs].map(([microblockHash, m]) => ({
          microblock_hash: microblockHash,
          parent_index_block_hash: parentHash,
          microblock_sequence: m.seq,
          microblock_parent_hash: m.parentHash,
          block_hash: blockHash,
          index_block_hash: hash,
          tx_count: m.count,
          microblock_canonical: true,
          canonical,
        })),
      )
      .onConflict(['microblock_hash', 'parent_index_block_hash'])
      .ignore();
  }
  if (!canonical) return; // only the canonical child decides which microblocks of the stream survive
  await decideStreams(trx, parentHash, {
    microblockHash: normalizeHex(block.parent_microblock),
    sequence: block.parent_microblock_sequence,
    blockHash,
    indexBlockHash: hash,
  });
}
