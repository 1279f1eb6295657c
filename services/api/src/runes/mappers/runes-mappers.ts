/** Ledger rows → `/runes/v1` response bodies (shapes in `schemas/runes/`). */
import { RUNE_OPERATIONS, type DbRune, type RuneOperationName } from '@bda/db';
import { formatRuneAmount, formatSpacedRune, mintableAmount, type RuneEntry, runeToName, type Terms } from '@bda/runes';
import type { DbRuneActivity, DbRuneBalance, DbRuneHolder, DbRuneRef } from '../datastore/runes-queries';

export interface RuneRefResponse {
  id: string;
  number: number;
  name: string;
  spaced_name: string;
}

interface RuneLocationResponse {
  block_hash: string;
  block_height: number;
  tx_id: string;
  tx_index: number;
  vout: number | null;
  output: string | null;
  timestamp: number;
}

export interface RuneSimpleActivityResponse {
  address: string | null;
  receiver_address: string | null;
  amount: string | null;
  operation: RuneOperationName;
  location: RuneLocationResponse;
}

export interface RuneActivityResponse extends RuneSimpleActivityResponse {
  rune: RuneRefResponse;
}

export interface PaginatedResponse<T> {
  limit: number;
  offset: number;
  total: number;
  results: T[];
}

/** Names by (rune value, spacers): a pure function of its key, so caching it is always right. Bounded. */
const names = new Map<string, { name: string; spaced_name: string }>();

function runeNames(value: string, spacers: number): { name: string; spaced_name: string } {
  const key = `${value}:${spacers}`;
  let hit = names.get(key);
  if (!hit) {
    const rune = BigInt(value);
    hit = { name: runeToName(rune), spaced_name: formatSpacedRune({ rune, spacers }) };
    if (names.size >= 10_000) names.clear();
    names.set(key, hit);
  }
  return hit;
}

function toRuneRef(row: DbRuneRef): RuneRefResponse {
  const { name, spaced_name } = runeNames(row.rune, row.spacers);
  return { id: `${row.rune_block}:${row.rune_tx}`, number: row.rune_number, name, spaced_name };
}

function amount(value: string | null, divisibility: number): string | null {
  return value === null ? null : formatRuneAmount(BigInt(value), divisibility);
}

export function toSimpleActivity(row: DbRuneActivity): RuneSimpleActivityResponse {
  return {
    address: row.address,
    receiver_address: row.receiver_address,
    amount: amount(row.amount, row.divisibility),
    operation: RUNE_OPERATIONS[row.operation]!,
    location: {
      block_hash: row.block_hash,
      block_height: row.block_height,
      tx_id: row.tx_id,
      tx_index: row.tx_index,
      vout: row.vout,
      output: row.vout === null ? null : `${row.tx_id}:${row.vout}`,
      timestamp: Number(row.block_time),
    },
  };
}

/** The seed's record: the rune first, then the activity. */
export function toActivity(row: DbRuneActivity): RuneActivityResponse {
  return { rune: toRuneRef(row), ...toSimpleActivity(row) };
}

/** Mint-terms bounds are u64: kept as bigint, written as exact JSON integers (see `toJson`). */
type U64 = bigint | null;

export interface EtchingResponse {
  id: string;
  number: number;
  name: string;
  spaced_name: string;
  divisibility: number;
  symbol: string | null;
  turbo: boolean;
  mint_terms: {
    amount: string | null;
    cap: string | null;
    height_start: U64;
    height_end: U64;
    offset_start: U64;
    offset_end: U64;
  };
  supply: {
    current: string;
    minted: string;
    total_mints: string;
    mint_percentage: string;
    mintable: boolean;
    burned: string;
    total_burns: string;
    premine: string;
  };
  location: {
    block_hash: string | null;
    block_height: number;
    tx_id: string | null;
    tx_index: number;
    vout: null;
    output: null;
    timestamp: number;
  };
}

const big = (v: string | null): bigint | undefined => (v === null ? undefined : BigInt(v));

function terms(row: DbRune): Terms | null {
  if (!row.has_terms) return null;
  const t: Terms = {};
  if (row.terms_amount !== null) t.amount = BigInt(row.terms_amount);
  if (row.terms_cap !== null) t.cap = BigInt(row.terms_cap);
  if (row.terms_height_start !== null) t.heightStart = BigInt(row.terms_height_start);
  if (row.terms_height_end !== null) t.heightEnd = BigInt(row.terms_height_end);
  if (row.terms_offset_start !== null) t.offsetStart = BigInt(row.terms_offset_start);
  if (row.terms_offset_end !== null) t.offsetEnd = BigInt(row.terms_offset_end);
  return t;
}

/**
 * An etched rune with its supply. `mintable` is whether a mint in the next block (indexed tip + 1) would count;
 * `current` = premine + minted − burned; `mint_percentage` = mints / cap in percent with four decimals (rounded
 * down; 0 without a cap).
 */
export function toEtching(row: DbRune, tip: number | null): EtchingResponse {
  const rune = BigInt(row.rune);
  const d = row.divisibility;
  const mints = BigInt(row.mints);
  const perMint = big(row.terms_amount) ?? 0n;
  const minted = mints * perMint;
  const premine = BigInt(row.premine);
  const burned = BigInt(row.burned);
  const cap = big(row.terms_cap) ?? 0n;
  const entry: RuneEntry = {
    id: `${row.block_height}:${row.tx_index}`,
    block: row.block_height,
    tx: row.tx_index,
    etchingTxid: '',
    timestamp: Number(row.block_time),
    number: row.number,
    rune,
    spacers: row.spacers,
    divisibility: d,
    symbol: row.symbol,
    premine,
    terms: terms(row),
    turbo: row.turbo,
    mints,
    burned,
  };
  return {
    id: entry.id,
    number: row.number,
    name: runeToName(rune),
    spaced_name: formatSpacedRune({ rune, spacers: row.spacers }),
    divisibility: d,
    symbol: row.symbol,
    turbo: row.turbo,
    mint_terms: {
      amount: amount(row.terms_amount, d),
      cap: row.terms_cap,
      height_start: big(row.terms_height_start) ?? null,
      height_end: big(row.terms_height_end) ?? null,
      offset_start: big(row.terms_offset_start) ?? null,
      offset_end: big(row.terms_offset_end) ?? null,
    },
    supply: {
      current: formatRuneAmount(premine + minted - burned, d),
      minted: formatRuneAmount(minted, d),
      total_mints: mints.toString(),
      mint_percentage: formatRuneAmount(cap === 0n ? 0n : (mints * 1_000_000n) / cap, 4),
      mintable: mintableAmount(entry, (tip ?? -1) + 1) !== undefined,
      burned: formatRuneAmount(burned, d),
      total_burns: row.burn_count,
      premine: formatRuneAmount(premine, d),
    },
    location: {
      block_hash: row.etching_block_hash,
      block_height: row.block_height,
      tx_id: row.etching_tx_id,
      tx_index: row.tx_index,
      vout: null,
      output: null,
      timestamp: Number(row.block_time),
    },
  };
}

export function toHolder(row: DbRuneHolder, divisibility: number): { address: string; balance: string } {
  return { address: row.address, balance: formatRuneAmount(BigInt(row.balance), divisibility) };
}

export function toBalance(row: DbRuneBalance): { rune: RuneRefResponse; address: string; balance: string } {
  return { rune: toRuneRef(row), address: row.address, balance: formatRuneAmount(BigInt(row.balance), row.divisibility) };
}

const BIGINT_MARK = '\u0000bigint:';

/**
 * JSON text where bigint values become exact JSON integers (u64 mint-term bounds can exceed 2^53). Strings never
 * contain the mark: it is only produced by the replacer.
 */
export function toJson(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  // Only bodies with bigints (etchings) get here.
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? `${BIGINT_MARK}${value}` : value));
  return text.replace(/"\\u0000bigint:(\d+)"/g, '$1');
}
