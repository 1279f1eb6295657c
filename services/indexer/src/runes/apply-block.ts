import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  type BitcoinBlock,
  type BlockRuneEffects,
  type Network,
  type RuneEntry,
  type RuneOperation,
  executeBlock,
  genesisRunes,
  isP2trScript,
} from '@bda/runes';
import { RUNE_OPERATIONS } from '@bda/db';
import { LedgerDeltas, loadCounters, pairKey, writeCounters } from './counters';
import { PrefetchedLedgerView } from './ledger-view';
import { ctidsOf, insertColumns, OUTPOINT } from './rune-statements';

const OP_CODE: Record<RuneOperation, number> = Object.fromEntries(RUNE_OPERATIONS.map((op, i) => [op, i])) as Record<
  RuneOperation,
  number
>;

/**
 * Executes a block on the ledger as of its parent and stores everything it did: the block row with its per-operation
 * counts, new runes (first), rune totals, created and spent outputs, balances, activity rows with their positions in
 * every list, the transactions that have rows, and the block's P2TR outputs. Returns the number of activity rows.
 */
export async function applyRuneBlock(
  trx: Knex.Transaction,
  block: BitcoinBlock,
  network: Network,
  logger: Logger,
  undoDepth: number,
): Promise<number> {
  await seedGenesis(trx, network);
  const view = await PrefetchedLedgerView.load(trx, block, logger);
  const effects = executeBlock(block, network, view);
  for (const entry of effects.etchings) view.numbers.set(entry.id, entry.number);
  const numberOf = (runeId: string): number => {
    const n = view.numbers.get(runeId);
    if (n === undefined) throw new Error(`rune ${runeId} used by block ${block.height} is not in the prefetched ledger state`);
    return n;
  };

  const opCounts = [0, 0, 0, 0, 0];
  for (const row of effects.activity) opCounts[OP_CODE[row.operation]]!++;
  await trx('rune_blocks').insert({
    block_height: block.height,
    block_hash: `0x${block.hash}`,
    prev_hash: `0x${block.prevHash}`,
    block_time: block.timestamp,
    tx_count: block.txs.length,
    activity_count: effects.activity.length,
    etching_count: opCounts[0],
    mint_count: opCounts[1],
    burn_count: opCounts[2],
    send_count: opCounts[3],
    receive_count: opCounts[4],
  });
  await insertRunes(trx, effects.etchings, `0x${block.hash}`);

  const deltas = blockDeltas(effects, view, numberOf);
  const current = await loadCounters(trx, deltas);
  await insertActivity(trx, block, effects, numberOf, current);
  await writeCounters(trx, current, deltas);
  await storeOutputs(trx, block, effects, numberOf);
  await storeTaprootOutputs(trx, block);
  await prune(trx, block.height - undoDepth);
  return effects.activity.length;
}

/** What the block adds to the totals. */
function blockDeltas(effects: BlockRuneEffects, view: PrefetchedLedgerView, numberOf: (id: string) => number): LedgerDeltas {
  const deltas = new LedgerDeltas();
  for (const { runeId, count } of effects.mints) deltas.rune(numberOf(runeId)).mints += count;
  for (const { runeId, amount } of effects.burned) deltas.rune(numberOf(runeId)).burned += amount;
  for (const row of effects.activity) {
    const n = numberOf(row.runeId);
    const d = deltas.rune(n);
    d.activity += 1n;
    if (row.operation === 'burn') d.burnCount += 1n;
    if (row.address !== null) {
      deltas.pair(n, row.address).activity += 1n;
      deltas.addressActivity(row.address, 1n);
    }
  }
  const created = new Map<string, { address: string | null; balances: Array<{ runeId: string; amount: bigint }> }>();
  for (const output of effects.outputs) {
    created.set(`${output.txid}:${output.vout}`, output);
    if (output.address === null) continue;
    for (const { runeId, amount } of output.balances) deltas.pair(numberOf(runeId), output.address).balance += amount;
  }
  for (const spent of effects.spent) {
    const key = `${spent.txid}:${spent.vout}`;
    const inBlock = created.get(key);
    const holdings = inBlock ? inBlock.balances.map((b) => ({ ...b, address: inBlock.address })) : (view.held.get(key) ?? []);
    for (const { runeId, amount, address } of holdings) {
      if (address !== null) deltas.pair(numberOf(runeId), address).balance -= amount;
    }
  }
  return deltas;
}

async function insertActivity(
  trx: Knex.Transaction,
  block: BitcoinBlock,
  effects: BlockRuneEffects,
  numberOf: (id: string) => number,
  current: Awaited<ReturnType<typeof loadCounters>>,
): Promise<void> {
  const rows = effects.activity;
  if (rows.length === 0) return;
  const runeSeq = new Map(current.runeActivity);
  const addressSeq = new Map([...current.addresses].map(([a, c]) => [a, c.activity]));
  const pairSeq = new Map([...current.pairs].map(([k, c]) => [k, c.activity]));
  const next = <K>(map: Map<K, bigint>, key: K): string => {
    const v = map.get(key) ?? 0n;
    map.set(key, v + 1n);
    return v.toString();
  };
  const before = [0, 0, 0, 0, 0];
  const cols = {
    position: [] as number[],
    txIndex: [] as number[],
    txId: [] as string[],
    rune: [] as number[],
    operation: [] as number[],
    address: [] as Array<string | null>,
    receiver: [] as Array<string | null>,
    amount: [] as Array<string | null>,
    vout: [] as Array<number | null>,
    opPosition: [] as number[],
    before: [[], [], [], [], []] as number[][],
    runeSeq: [] as string[],
    addressSeq: [] as Array<string | null>,
    pairSeq: [] as Array<string | null>,
  };
  const txs: Array<{ txid: string; txIndex: number; first: number; count: number }> = [];
  rows.forEach((row, position) => {
    const op = OP_CODE[row.operation];
    const n = numberOf(row.runeId);
    cols.position.push(position);
    cols.txIndex.push(row.txIndex);
    cols.txId.push(`0x${row.txid}`);
    cols.rune.push(n);
    cols.operation.push(op);
    cols.address.push(row.address);
    cols.receiver.push(row.receiverAddress);
    cols.amount.push(row.amount === null ? null : row.amount.toString());
    cols.vout.push(row.vout);
    cols.opPosition.push(before[op]!);
    before.forEach((count, i) => cols.before[i]!.push(count));
    before[op]!++;
    cols.runeSeq.push(next(runeSeq, n));
    cols.addressSeq.push(row.address === null ? null : next(addressSeq, row.address));
    cols.pairSeq.push(row.address === null ? null : next(pairSeq, pairKey(n, row.address)));
    const last = txs[txs.length - 1];
    if (last?.txid === row.txid) last.count++;
    else txs.push({ txid: row.txid, txIndex: row.txIndex, first: position, count: 1 });
  });
  await insertColumns(trx, 'rune_activity', [
    ['block_height', 'int', rows.map(() => block.height)],
    ['position', 'int', cols.position],
    ['tx_index', 'int', cols.txIndex],
    ['tx_id', 'text', cols.txId],
    ['rune_number', 'int', cols.rune],
    ['operation', 'smallint', cols.operation],
    ['address', 'text', cols.address],
    ['receiver_address', 'text', cols.receiver],
    ['amount', 'numeric', cols.amount],
    ['vout', 'int', cols.vout],
    ['op_position', 'int', cols.opPosition],
    ['before_etching', 'int', cols.before[0]!],
    ['before_mint', 'int', cols.before[1]!],
    ['before_burn', 'int', cols.before[2]!],
    ['before_send', 'int', cols.before[3]!],
    ['before_receive', 'int', cols.before[4]!],
    ['rune_seq', 'bigint', cols.runeSeq],
    ['address_seq', 'bigint', cols.addressSeq],
    ['rune_address_seq', 'bigint', cols.pairSeq],
  ]);
  await insertColumns(trx, 'rune_txs', [
    ['tx_id', 'text', txs.map((t) => `0x${t.txid}`)],
    ['block_height', 'int', txs.map(() => block.height)],
    ['tx_index', 'int', txs.map((t) => t.txIndex)],
    ['first_position', 'int', txs.map((t) => t.first)],
    ['activity_count', 'int', txs.map((t) => t.count)],
  ]);
}

/** Inserts the block's rune-holding outputs and marks the ones its inputs spent. */
async function storeOutputs(
  trx: Knex.Transaction,
  block: BitcoinBlock,
  effects: BlockRuneEffects,
  numberOf: (id: string) => number,
): Promise<void> {
  const rows = effects.outputs.flatMap((output) =>
    output.balances.map((b) => ({
      txid: output.txid,
      vout: output.vout,
      address: output.address,
      rune: numberOf(b.runeId),
      amount: b.amount,
    })),
  );
  await insertColumns(trx, 'rune_outputs', [
    ['tx_id', 'bytea', rows.map((r) => r.txid)],
    ['vout', 'int', rows.map((r) => r.vout)],
    ['rune_number', 'int', rows.map((r) => r.rune)],
    ['address', 'text', rows.map((r) => r.address)],
    ['amount', 'numeric', rows.map((r) => r.amount.toString())],
    ['created_height', 'int', rows.map(() => block.height)],
  ]);
  if (effects.spent.length > 0) {
    await trx.raw(
      `UPDATE rune_outputs SET spent_height = ?
       WHERE ctid = ANY(${ctidsOf(OUTPOINT, 'rune_outputs', 'o.tx_id = i.tx_id AND o.vout = i.vout AND o.spent_height IS NULL')})`,
      [block.height, effects.spent.map((s) => s.txid), effects.spent.map((s) => s.vout)],
    );
  }
}

/** Remembers the block's P2TR outputs (for later commitment checks) and marks those its inputs spend. */
async function storeTaprootOutputs(trx: Knex.Transaction, block: BitcoinBlock): Promise<void> {
  const created = block.txs.flatMap((tx) =>
    tx.outputs.flatMap((output, vout) => (isP2trScript(output.script) ? [{ txid: tx.txid, vout }] : [])),
  );
  await insertColumns(trx, 'rune_taproot_outputs', [
    ['tx_id', 'bytea', created.map((o) => o.txid)],
    ['vout', 'int', created.map((o) => o.vout)],
    ['created_height', 'int', created.map(() => block.height)],
  ]);
  const inputs = block.txs.flatMap((tx) => tx.inputs.filter((input) => !input.coinbase));
  if (inputs.length > 0) {
    await trx.raw(
      `UPDATE rune_taproot_outputs SET spent_height = ?
       WHERE ctid = ANY(${ctidsOf(OUTPOINT, 'rune_taproot_outputs', 'o.tx_id = i.tx_id AND o.vout = i.vout AND o.spent_height IS NULL')})`,
      [block.height, inputs.map((i) => i.txid), inputs.map((i) => i.vout)],
    );
  }
}

/** Spent outputs older than the undo window are no longer needed to roll back. */
async function prune(trx: Knex.Transaction, below: number): Promise<void> {
  await trx('rune_outputs').where('spent_height', '<', below).delete();
  await trx('rune_taproot_outputs').where('spent_height', '<', below).delete();
}

/** On mainnet the genesis rune exists before any block (number 0). */
async function seedGenesis(trx: Knex.Transaction, network: Network): Promise<void> {
  const genesis = genesisRunes(network);
  if (genesis.length === 0) return;
  if (await trx('runes').where({ number: 0 }).first('number')) return;
  await insertRunes(trx, genesis, null);
}

async function insertRunes(
  trx: Knex.Transaction,
  entries: ReadonlyArray<Readonly<RuneEntry>>,
  blockHash: string | null,
): Promise<void> {
  if (entries.length === 0) return;
  const opt = (v: bigint | undefined) => (v === undefined ? null : v.toString());
  await trx('runes').insert(
    entries.map((e) => ({
      number: e.number,
      block_height: e.block,
      tx_index: e.tx,
      rune: e.rune.toString(),
      spacers: e.spacers,
      divisibility: e.divisibility,
      symbol: e.symbol,
      premine: e.premine.toString(),
      has_terms: e.terms !== null,
      terms_amount: opt(e.terms?.amount),
      terms_cap: opt(e.terms?.cap),
      terms_height_start: opt(e.terms?.heightStart),
      terms_height_end: opt(e.terms?.heightEnd),
      terms_offset_start: opt(e.terms?.offsetStart),
      terms_offset_end: opt(e.terms?.offsetEnd),
      turbo: e.turbo,
      etching_tx_id: blockHash === null ? null : `0x${e.etchingTxid}`,
      etching_block_hash: blockHash,
      block_time: e.timestamp,
      mints: e.mints.toString(),
      burned: e.burned.toString(),
    })),
  );
}
