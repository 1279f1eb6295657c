import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { encodeStacksAddress, principalNetwork, StacksAddressVersion } from '@bda/stacks-codec';
import { runPrepared } from '../write-statements';
import { refreshPoxPositions } from './pox-positions';
import { decodePoxPrintEvent, POX_CONTRACT_VERSIONS } from './pox-print-event';

/** The `reward_set` a Nakamoto-era node sends with a block (reference/node-events.md), as far as it is read here. */
export interface NodeRewardSet {
  pox_ustx_threshold?: string | number | null;
  signers?: Array<{ signing_key: string; weight: number; stacked_amt: string | number }> | null;
}

/**
 * The `pox_reward_sets` insert of a block that carries a reward set with its cycle number (null otherwise): written
 * with the block's own rows, canonical or not, so that the cycle read models can be computed again when a reorg
 * brings the block back.
 */
export function rewardSetInsert(
  trx: Knex.Transaction,
  block: { block_height: number; cycle_number?: number | null; reward_set?: NodeRewardSet | null },
  indexBlockHash: string,
): Knex.QueryBuilder | null {
  const set = block.reward_set;
  if (!set || typeof set !== 'object' || block.cycle_number == null) return null;
  const signers = Array.isArray(set.signers)
    ? set.signers.map((s) => ({
        signing_key: String(s.signing_key),
        weight: Number(s.weight),
        stacked_amt: String(s.stacked_amt),
      }))
    : [];
  const threshold = set.pox_ustx_threshold;
  return trx('pox_reward_sets')
    .insert({
      index_block_hash: indexBlockHash,
      block_height: block.block_height,
      cycle_number: block.cycle_number,
      pox_ustx_threshold: threshold == null || !/^[0-9]{1,40}$/.test(String(threshold)) ? null : String(threshold),
      signers: JSON.stringify(signers),
    })
    .onConflict('index_block_hash')
    .ignore();
}

/**
 * The PoX read models of blocks joining the canonical chain (their `canonical` flags already set), in the same
 * transaction: their PoX `print` events decoded into `pox_events`, and the cycles whose reward set they carry
 * computed again. Called beside the chain and account read models (`stacks/read-models.ts`).
 */
export async function addCanonicalPoxBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const hashes = [...blockHashes];
  const prints = await runPrepared<PrintRow>(trx, PRINTS_SQL, [hashes, POX_CONTRACTS]);
  const rows = [];
  for (const p of prints) {
    const version = POX_CONTRACT_VERSIONS.get(p.contract_identifier);
    if (!version) continue;
    const ev = decodePoxPrintEvent(p.value_hex, version);
    if (!ev) continue;
    rows.push({
      index_block_hash: p.index_block_hash,
      event_index: p.event_index,
      pox_version: version,
      block_height: p.block_height,
      tx_id: p.tx_id,
      tx_index: p.tx_index,
      name: ev.name,
      stacker: ev.stacker,
      locked: ev.locked.toString(),
      balance: ev.balance.toString(),
      burnchain_unlock_height: ev.burnchain_unlock_height.toString(),
      pox_addr: ev.pox_addr,
      pox_addr_raw: ev.pox_addr_raw,
      delegator: ev.delegator,
      delegate_to: ev.delegate_to,
      signer_key: ev.signer_key,
      start_cycle_id: ev.start_cycle_id?.toString() ?? null,
      end_cycle_id: ev.end_cycle_id?.toString() ?? null,
      amount_ustx: ev.amount_ustx?.toString() ?? null,
      unlock_burn_height: ev.unlock_burn_height?.toString() ?? null,
      data: JSON.stringify(ev.data),
    });
  }
  if (rows.length > 0) await trx('pox_events').insert(rows).onConflict(['index_block_hash', 'event_index']).ignore();
  await refreshPoxPositions(trx, hashes);
  await refreshCycles(trx, hashes);
}

/** Undoes `addCanonicalPoxBlocks` for blocks leaving the canonical chain (their flags already cleared). */
export async function removePoxBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const hashes = [...blockHashes];
  await runPrepared(trx, 'DELETE FROM pox_events WHERE index_block_hash = ANY($1::text[])', [hashes]);
  await refreshPoxPositions(trx, hashes);
  await refreshCycles(trx, hashes);
}

const POX_CONTRACTS = [...POX_CONTRACT_VERSIONS.keys()];

type PrintRow = {
  index_block_hash: string;
  event_index: number;
  block_height: number;
  tx_id: string;
  tx_index: number;
  contract_identifier: string;
  value_hex: string;
};

/** The committed `print` events of the PoX contracts in successful transactions of `$1`'s blocks. */
const PRINTS_SQL = `SELECT e.index_block_hash, e.event_index, e.block_height, e.tx_id, e.tx_index, e.contract_identifier, e.value_hex
  FROM events e
  JOIN txs t ON t.tx_id = e.tx_id AND t.index_block_hash = e.index_block_hash
  WHERE e.index_block_hash = ANY($1::text[]) AND e.type = 'contract_event' AND e.topic = 'print' AND e.committed
    AND e.contract_identifier = ANY($2::text[]) AND e.value_hex IS NOT NULL AND t.status = 'success'`;

/** The cycles whose reward set one of `$1`'s blocks carries. */
const AFFECTED_CYCLES_SQL = `SELECT DISTINCT cycle_number FROM pox_reward_sets WHERE index_block_hash = ANY($1::text[])`;

type RewardSetRow = {
  cycle_number: number;
  index_block_hash: string;
  block_height: number;
  signers: Array<{ signing_key: string; weight: number; stacked_amt: string }>;
  /** A principal of the block (its first transaction's sender): the chain's network. */
  sender_address: string | null;
};

/** Per cycle of `$1`, the reward set of the lowest canonical block that carried one (`pox_reward_sets_cycle`). */
const CHOSEN_SETS_SQL = `SELECT c.cycle_number, s.index_block_hash, s.block_height, s.signers, s.sender_address
  FROM unnest($1::int[]) AS c(cycle_number)
  CROSS JOIN LATERAL (
    SELECT r.index_block_hash, r.block_height, r.signers,
           (SELECT t.sender_address FROM txs t WHERE t.index_block_hash = r.index_block_hash ORDER BY t.tx_index LIMIT 1) AS sender_address
    FROM pox_reward_sets r
    JOIN blocks b ON b.index_block_hash = r.index_block_hash AND b.canonical
    WHERE r.cycle_number = c.cycle_number
    ORDER BY r.block_height, r.index_block_hash
    LIMIT 1
  ) s`;

/** Stacks p2pkh address of a compressed public key on `network`. */
function signerAddress(signingKey: string, network: 'mainnet' | 'testnet'): string {
  const key = Buffer.from(signingKey.replace(/^0x/, ''), 'hex');
  const hash160 = createHash('ripemd160').update(createHash('sha256').update(key).digest()).digest();
  return encodeStacksAddress(
    network === 'mainnet' ? StacksAddressVersion.MainnetSingleSig : StacksAddressVersion.TestnetSingleSig,
    hash160,
  );
}

/**
 * `pox_cycles` and `pox_cycle_signers` of every cycle whose reward set one of `hashes` carries, computed again from
 * the canonical blocks that carry one now: deleted, then written from the lowest such block (none left: the cycle is
 * gone). Percentages as the reference API computes them (share of the cycle's totals × 100).
 */
async function refreshCycles(trx: Knex.Transaction, hashes: string[]): Promise<void> {
  const affected = (await runPrepared<{ cycle_number: number }>(trx, AFFECTED_CYCLES_SQL, [hashes])).map((r) => r.cycle_number);
  if (affected.length === 0) return;
  await runPrepared(trx, 'DELETE FROM pox_cycle_signers WHERE cycle_number = ANY($1::int[])', [affected]);
  await runPrepared(trx, 'DELETE FROM pox_cycles WHERE cycle_number = ANY($1::int[])', [affected]);
  const sets = await runPrepared<RewardSetRow>(trx, CHOSEN_SETS_SQL, [affected]);
  for (const set of sets) {
    const network = principalNetwork(set.sender_address) ?? 'mainnet';
    const signers = set.signers.map((s) => ({
      key: `0x${s.signing_key.replace(/^0x/, '').toLowerCase()}`,
      weight: s.weight,
      stacked: BigInt(s.stacked_amt),
    }));
    const totalWeight = signers.reduce((a, s) => a + s.weight, 0);
    const totalStacked = signers.reduce((a, s) => a + s.stacked, 0n);
    await trx('pox_cycles').insert({
      cycle_number: set.cycle_number,
      index_block_hash: set.index_block_hash,
      block_height: set.block_height,
      total_weight: totalWeight,
      total_stacked_amount: totalStacked.toString(),
      total_signers: signers.length,
    });
    if (signers.length === 0) continue;
    await trx('pox_cycle_signers')
      .insert(
        signers.map((s) => ({
          cycle_number: set.cycle_number,
          signing_key: s.key,
          signer_address: signerAddress(s.key, network),
          weight: s.weight,
          stacked_amount: s.stacked.toString(),
          weight_percent: totalWeight === 0 ? 0 : (s.weight / totalWeight) * 100,
          stacked_amount_percent: totalStacked === 0n ? 0 : percentOf(s.stacked, totalStacked),
        })),
      )
      .onConflict(['cycle_number', 'signing_key'])
      .ignore();
  }
}

/** `part / whole × 100` as a double, from exact integers (micro-STX totals exceed 2^53). */
function percentOf(part: bigint, whole: bigint): number {
  // 15 significant digits of the quotient, then scaled: exact enough for a double.
  const scale = 10n ** 18n;
  return Number((part * 100n * scale) / whole) / Number(scale);
}
