import type { Knex } from 'knex';
import { LedgerDeltas, loadCounters, writeCounters } from './counters';

/**
 * Undoes the tip block at `height` exactly, from its own rows: its activity rows give the rune totals (rows, mints,
 * burns and burned amounts) and the per-address counts; its created and spent outputs give the balance changes.
 * Those deltas are subtracted, then the block's rows are deleted, the outputs it spent become unspent again and the
 * runes it etched disappear (their numbers were the highest, so numbering stays dense).
 */
export async function rollbackRuneBlock(trx: Knex.Transaction, height: number): Promise<void> {
  const deltas = new LedgerDeltas();
  const runeRows: Array<{ rune_number: number; n: string; mints: string; burns: string; burned: string }> = await trx(
    'rune_activity',
  )
    .where({ block_height: height })
    .groupBy('rune_number')
    .select(
      'rune_number',
      trx.raw('count(*) AS n'),
      trx.raw('count(*) FILTER (WHERE operation = 1) AS mints'),
      trx.raw('count(*) FILTER (WHERE operation = 2) AS burns'),
      trx.raw('coalesce(sum(amount) FILTER (WHERE operation = 2), 0) AS burned'),
    );
  for (const row of runeRows) {
    const d = deltas.rune(row.rune_number);
    d.activity -= BigInt(row.n);
    d.mints -= BigInt(row.mints);
    d.burnCount -= BigInt(row.burns);
    d.burned -= BigInt(row.burned);
  }
  const pairRows: Array<{ rune_number: number; address: string; n: string }> = await trx('rune_activity')
    .where({ block_height: height })
    .whereNotNull('address')
    .groupBy('rune_number', 'address')
    .select('rune_number', 'address', trx.raw('count(*) AS n'));
  for (const row of pairRows) {
    deltas.pair(row.rune_number, row.address).activity -= BigInt(row.n);
    deltas.addressActivity(row.address, -BigInt(row.n));
  }
  const created: Array<{ rune_number: number; address: string; amount: string }> = await trx('rune_outputs')
    .where({ created_height: height })
    .whereNotNull('address')
    .groupBy('rune_number', 'address')
    .select('rune_number', 'address', trx.raw('sum(amount) AS amount'));
  for (const row of created) deltas.pair(row.rune_number, row.address).balance -= BigInt(row.amount);
  const spent: Array<{ rune_number: number; address: string; amount: string }> = await trx('rune_outputs')
    .where({ spent_height: height })
    .whereNotNull('address')
    .groupBy('rune_number', 'address')
    .select('rune_number', 'address', trx.raw('sum(amount) AS amount'));
  for (const row of spent) deltas.pair(row.rune_number, row.address).balance += BigInt(row.amount);

  const current = await loadCounters(trx, deltas);
  await writeCounters(trx, current, deltas);

  await trx('rune_activity').where({ block_height: height }).delete();
  await trx('rune_txs').where({ block_height: height }).delete();
  await trx('rune_outputs').where({ created_height: height }).delete();
  await trx('rune_outputs').where({ spent_height: height }).update({ spent_height: null });
  await trx('rune_taproot_outputs').where({ created_height: height }).delete();
  await trx('rune_taproot_outputs').where({ spent_height: height }).update({ spent_height: null });
  // The genesis rune (no etching transaction) exists before any block and is never rolled back.
  await trx('runes').where({ block_height: height }).whereNotNull('etching_tx_id').delete();
  await trx('rune_blocks').where({ block_height: height }).delete();
}
