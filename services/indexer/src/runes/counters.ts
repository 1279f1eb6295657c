import type { Knex } from 'knex';
import { ctidsOf, lookupEach, upsertColumns } from './rune-statements';

const PAIR = [
  ['rune_number', 'int'],
  ['address', 'text'],
] as const;

/**
 * The running totals of the rune ledger (`runes` counters, `rune_balances`, `rune_addresses`) and how a block changes
 * them. Applying a block adds its deltas; rolling it back adds the same deltas negated, derived from the block's own
 * rows — so the totals after a rollback are exactly those before the block.
 */

export interface RuneDelta {
  mints: bigint;
  burned: bigint;
  burnCount: bigint;
  activity: bigint;
}

export interface PairDelta {
  runeNumber: number;
  address: string;
  balance: bigint;
  activity: bigint;
}

export class LedgerDeltas {
  readonly runes = new Map<number, RuneDelta>();
  readonly pairs = new Map<string, PairDelta>();
  readonly addresses = new Map<string, bigint>();

  rune(number: number): RuneDelta {
    let d = this.runes.get(number);
    if (!d) {
      d = { mints: 0n, burned: 0n, burnCount: 0n, activity: 0n };
      this.runes.set(number, d);
    }
    return d;
  }

  pair(runeNumber: number, address: string): PairDelta {
    const key = pairKey(runeNumber, address);
    let d = this.pairs.get(key);
    if (!d) {
      d = { runeNumber, address, balance: 0n, activity: 0n };
      this.pairs.set(key, d);
      this.rune(runeNumber);
      if (!this.addresses.has(address)) this.addresses.set(address, 0n);
    }
    return d;
  }

  addressActivity(address: string, n: bigint): void {
    this.addresses.set(address, (this.addresses.get(address) ?? 0n) + n);
  }
}

export function pairKey(runeNumber: number, address: string): string {
  return `${runeNumber}\u0000${address}`;
}

/** Current values of the counters a block touches. */
export interface CurrentCounters {
  runeActivity: Map<number, bigint>;
  pairs: Map<string, { balance: bigint; activity: bigint }>;
  addresses: Map<string, { activity: bigint; runeCount: number }>;
}

export async function loadCounters(trx: Knex.Transaction, deltas: LedgerDeltas): Promise<CurrentCounters> {
  const current: CurrentCounters = { runeActivity: new Map(), pairs: new Map(), addresses: new Map() };
  if (deltas.runes.size > 0) {
    const rows: Array<{ number: number; activity_count: string }> = await trx('runes')
      .whereRaw('number = ANY(?::integer[])', [[...deltas.runes.keys()]])
      .select('number', 'activity_count');
    for (const row of rows) current.runeActivity.set(row.number, BigInt(row.activity_count));
  }
  if (deltas.pairs.size > 0) {
    const pairs = [...deltas.pairs.values()];
    const { rows } = await trx.raw<{
      rows: Array<{ rune_number: number; address: string; balance: string; activity_count: string }>;
    }>(
      lookupEach(
        PAIR,
        'rune_balances',
        'o.rune_number = i.rune_number AND o.address = i.address',
        'o.rune_number, o.address, o.balance, o.activity_count',
      ),
      [pairs.map((p) => p.runeNumber), pairs.map((p) => p.address)],
    );
    for (const row of rows) {
      current.pairs.set(pairKey(row.rune_number, row.address), {
        balance: BigInt(row.balance),
        activity: BigInt(row.activity_count),
      });
    }
  }
  if (deltas.addresses.size > 0) {
    const rows: Array<{ address: string; activity_count: string; rune_count: number }> = await trx('rune_addresses')
      .whereRaw('address = ANY(?::text[])', [[...deltas.addresses.keys()]])
      .select('address', 'activity_count', 'rune_count');
    for (const row of rows)
      current.addresses.set(row.address, { activity: BigInt(row.activity_count), runeCount: row.rune_count });
  }
  return current;
}

/**
 * Adds `deltas` to the counters (`current` as loaded before). Pairs and addresses whose activity count reaches 0
 * are deleted (a row exists exactly while it has activity), so a rollback leaves no trace of the block.
 */
export async function writeCounters(trx: Knex.Transaction, current: CurrentCounters, deltas: LedgerDeltas): Promise<void> {
  const holderDelta = new Map<number, bigint>();
  const runeCountDelta = new Map<string, number>();
  const upsertPairs: Array<{ runeNumber: number; address: string; balance: bigint; activity: bigint }> = [];
  const deletePairs: Array<{ runeNumber: number; address: string }> = [];
  for (const [key, d] of deltas.pairs) {
    const old = current.pairs.get(key) ?? { balance: 0n, activity: 0n };
    const balance = old.balance + d.balance;
    const activity = old.activity + d.activity;
    if (balance < 0n || activity < 0n) {
      throw new Error(`rune ledger inconsistent: rune ${d.runeNumber} at ${d.address} would go to ${balance} (${activity} rows)`);
    }
    const was = old.balance > 0n;
    const is = balance > 0n;
    if (was !== is) {
      holderDelta.set(d.runeNumber, (holderDelta.get(d.runeNumber) ?? 0n) + (is ? 1n : -1n));
      runeCountDelta.set(d.address, (runeCountDelta.get(d.address) ?? 0) + (is ? 1 : -1));
    }
    if (activity === 0n) {
      if (balance !== 0n)
        throw new Error(`rune ledger inconsistent: rune ${d.runeNumber} at ${d.address} holds ${balance} without activity`);
      if (current.pairs.has(key)) deletePairs.push(d);
    } else if (balance !== old.balance || activity !== old.activity || !current.pairs.has(key)) {
      upsertPairs.push({ runeNumber: d.runeNumber, address: d.address, balance, activity });
    }
  }
  if (deletePairs.length > 0) {
    await trx.raw(
      `DELETE FROM rune_balances WHERE ctid = ANY(${ctidsOf(PAIR, 'rune_balances', 'o.rune_number = i.rune_number AND o.address = i.address')})`,
      [deletePairs.map((p) => p.runeNumber), deletePairs.map((p) => p.address)],
    );
  }
  await upsertColumns(
    trx,
    'rune_balances',
    ['rune_number', 'address'],
    [
      ['rune_number', 'int', upsertPairs.map((p) => p.runeNumber)],
      ['address', 'text', upsertPairs.map((p) => p.address)],
      ['balance', 'numeric', upsertPairs.map((p) => p.balance.toString())],
      ['activity_count', 'bigint', upsertPairs.map((p) => p.activity.toString())],
    ],
  );

  const upsertAddresses: Array<{ address: string; activity: bigint; runeCount: number }> = [];
  const deleteAddresses: string[] = [];
  for (const [address, d] of deltas.addresses) {
    const old = current.addresses.get(address);
    const activity = (old?.activity ?? 0n) + d;
    const runeCount = (old?.runeCount ?? 0) + (runeCountDelta.get(address) ?? 0);
    if (activity < 0n || runeCount < 0)
      throw new Error(`rune ledger inconsistent: address ${address} counters would go negative`);
    if (activity === 0n) {
      if (old) deleteAddresses.push(address);
    } else if (!old || activity !== old.activity || runeCount !== old.runeCount) {
      upsertAddresses.push({ address, activity, runeCount });
    }
  }
  if (deleteAddresses.length > 0) await trx('rune_addresses').whereRaw('address = ANY(?::text[])', [deleteAddresses]).delete();
  await upsertColumns(
    trx,
    'rune_addresses',
    ['address'],
    [
      ['address', 'text', upsertAddresses.map((a) => a.address)],
      ['activity_count', 'bigint', upsertAddresses.map((a) => a.activity.toString())],
      ['rune_count', 'int', upsertAddresses.map((a) => a.runeCount)],
    ],
  );

  const runes = [...deltas.runes].filter(
    ([n, d]) => d.mints !== 0n || d.burned !== 0n || d.burnCount !== 0n || d.activity !== 0n || (holderDelta.get(n) ?? 0n) !== 0n,
  );
  if (runes.length > 0) {
    await trx.raw(
      `UPDATE runes r SET mints = r.mints + d.mints, burned = r.burned + d.burned, burn_count = r.burn_count + d.burn_count,
         activity_count = r.activity_count + d.activity, holder_count = r.holder_count + d.holders
       FROM (${lookupEach(
         [
           ['number', 'int'],
           ['mints', 'numeric'],
           ['burned', 'numeric'],
           ['burn_count', 'bigint'],
           ['activity', 'bigint'],
           ['holders', 'bigint'],
         ],
         'runes',
         'o.number = i.number',
         'o.ctid AS rid, i.*',
       )}) d
       WHERE r.ctid = d.rid`,
      [
        runes.map(([n]) => n),
        runes.map(([, d]) => d.mints.toString()),
        runes.map(([, d]) => d.burned.toString()),
        runes.map(([, d]) => d.burnCount.toString()),
        runes.map(([, d]) => d.activity.toString()),
        runes.map(([n]) => (holderDelta.get(n) ?? 0n).toString()),
      ],
    );
  }
}
