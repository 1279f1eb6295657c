/**
 * Writes a rune ledger straight into the tables (the api only reads them), numbering the rows the way the indexer
 * does: block positions, per-operation positions and counts before each row, per-rune / per-address /
 * per-rune-and-address sequences, and every counter.
 */
import type { Knex } from 'knex';
import { RUNE_OPERATIONS, type RuneOperationName } from '@bda/db';

export interface SeedRune {
  number: number;
  block: number;
  tx: number;
  rune: bigint;
  spacers?: number;
  divisibility?: number;
  symbol?: string | null;
  premine?: bigint;
  terms?: {
    amount?: bigint;
    cap?: bigint;
    heightStart?: bigint;
    heightEnd?: bigint;
    offsetStart?: bigint;
    offsetEnd?: bigint;
  } | null;
  turbo?: boolean;
  /** null: the genesis rune (no etching transaction). */
  etchingTxId?: string | null;
  etchingBlockHash?: string | null;
  time?: number;
  mints?: bigint;
  burned?: bigint;
}

export interface SeedRow {
  txIndex: number;
  txId: string;
  rune: number;
  operation: RuneOperationName;
  address?: string | null;
  receiver?: string | null;
  amount?: bigint | null;
  vout?: number | null;
}

export interface SeedBlock {
  height: number;
  hash: string;
  time: number;
  rows: SeedRow[];
}

export async function seedLedger(
  db: Knex,
  runes: SeedRune[],
  blocks: SeedBlock[],
  balances: Array<{ rune: number; address: string; balance: bigint }>,
) {
  const runeSeq = new Map<number, number>();
  const addressSeq = new Map<string, number>();
  const pairSeq = new Map<string, number>();
  const burns = new Map<number, number>();
  const next = <K>(m: Map<K, number>, k: K) => {
    const v = m.get(k) ?? 0;
    m.set(k, v + 1);
    return v;
  };
  const activity: Record<string, unknown>[] = [];
  const txs: Record<string, unknown>[] = [];
  const blockRows: Record<string, unknown>[] = [];
  for (const block of blocks) {
    const before = [0, 0, 0, 0, 0];
    block.rows.forEach((row, position) => {
      const op = RUNE_OPERATIONS.indexOf(row.operation);
      const address = row.address ?? null;
      if (op === 2) burns.set(row.rune, (burns.get(row.rune) ?? 0) + 1);
      activity.push({
        block_height: block.height,
        position,
        tx_index: row.txIndex,
        tx_id: row.txId,
        rune_number: row.rune,
        operation: op,
        address,
        receiver_address: row.receiver ?? null,
        amount: row.amount === undefined || row.amount === null ? null : row.amount.toString(),
        vout: row.vout ?? null,
        op_position: before[op],
        before_etching: before[0],
        before_mint: before[1],
        before_burn: before[2],
        before_send: before[3],
        before_receive: before[4],
        rune_seq: next(runeSeq, row.rune),
        address_seq: address === null ? null : next(addressSeq, address),
        rune_address_seq: address === null ? null : next(pairSeq, `${row.rune}|${address}`),
      });
      before[op]!++;
      const last = txs[txs.length - 1];
      if (last && last['tx_id'] === row.txId) (last['activity_count'] as number)++;
      else
        txs.push({
          tx_id: row.txId,
          block_height: block.height,
          tx_index: row.txIndex,
          first_position: position,
          activity_count: 1,
        });
    });
    blockRows.push({
      block_height: block.height,
      block_hash: block.hash,
      prev_hash: `0x${'00'.repeat(32)}`,
      block_time: block.time,
      tx_count: 1 + new Set(block.rows.map((r) => r.txIndex)).size,
      activity_count: block.rows.length,
      etching_count: before[0],
      mint_count: before[1],
      burn_count: before[2],
      send_count: before[3],
      receive_count: before[4],
    });
  }
  const holders = new Map<number, number>();
  const runeCounts = new Map<string, number>();
  for (const b of balances) {
    if (b.balance > 0n) {
      holders.set(b.rune, (holders.get(b.rune) ?? 0) + 1);
      runeCounts.set(b.address, (runeCounts.get(b.address) ?? 0) + 1);
    }
  }
  const opt = (v: bigint | undefined) => (v === undefined ? null : v.toString());
  await db('runes').insert(
    runes.map((r) => ({
      number: r.number,
      block_height: r.block,
      tx_index: r.tx,
      rune: r.rune.toString(),
      spacers: r.spacers ?? 0,
      divisibility: r.divisibility ?? 0,
      symbol: r.symbol ?? null,
      premine: (r.premine ?? 0n).toString(),
      has_terms: !!r.terms,
      terms_amount: opt(r.terms?.amount),
      terms_cap: opt(r.terms?.cap),
      terms_height_start: opt(r.terms?.heightStart),
      terms_height_end: opt(r.terms?.heightEnd),
      terms_offset_start: opt(r.terms?.offsetStart),
      terms_offset_end: opt(r.terms?.offsetEnd),
      turbo: r.turbo ?? false,
      etching_tx_id: r.etchingTxId === undefined ? `0x${r.number.toString(16).padStart(64, 'e')}` : r.etchingTxId,
      etching_block_hash: r.etchingBlockHash === undefined ? `0x${r.block.toString(16).padStart(64, 'b')}` : r.etchingBlockHash,
      block_time: r.time ?? 1_700_000_000,
      mints: (r.mints ?? 0n).toString(),
      burned: (r.burned ?? 0n).toString(),
      burn_count: burns.get(r.number) ?? 0,
      activity_count: runeSeq.get(r.number) ?? 0,
      holder_count: holders.get(r.number) ?? 0,
    })),
  );
  if (blockRows.length) await db('rune_blocks').insert(blockRows);
  for (let i = 0; i < activity.length; i += 1000) await db('rune_activity').insert(activity.slice(i, i + 1000));
  if (txs.length) await db('rune_txs').insert(txs);
  const pairs = new Map<string, { rune: number; address: string; balance: bigint }>();
  for (const [key, n] of pairSeq) {
    const [rune, address] = key.split('|') as [string, string];
    pairs.set(key, { rune: Number(rune), address, balance: 0n });
    void n;
  }
  for (const b of balances) pairs.set(`${b.rune}|${b.address}`, { rune: b.rune, address: b.address, balance: b.balance });
  const pairRows = [...pairs].map(([key, p]) => ({
    rune_number: p.rune,
    address: p.address,
    balance: p.balance.toString(),
    activity_count: pairSeq.get(key) ?? 1,
  }));
  if (pairRows.length) await db('rune_balances').insert(pairRows);
  const addresses = new Set([...addressSeq.keys(), ...runeCounts.keys()]);
  if (addresses.size) {
    await db('rune_addresses').insert(
      [...addresses].map((a) => ({ address: a, activity_count: addressSeq.get(a) ?? 1, rune_count: runeCounts.get(a) ?? 0 })),
    );
  }
}
