import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  type BitcoinBlock,
  type HeldRune,
  type RuneEntry,
  type RuneLedgerView,
  decipherRunestone,
  formatRuneId,
} from '@bda/runes';
import type { DbRune } from '@bda/db';
import { lookupEach, OUTPOINT } from './rune-statements';

/** A held balance as prefetched, with the rune's ledger key. */
export interface PrefetchedHolding extends HeldRune {
  runeNumber: number;
}

/**
 * Everything `executeBlock` may ask about the state before a block, read in a handful of queries up front (the view
 * is synchronous): balances of every spent output, the runes the block mints or whose names it etches, the rune
 * count, and — for transactions that etch a named rune — the P2TR outputs their inputs spend.
 */
export class PrefetchedLedgerView implements RuneLedgerView {
  /** Rune id → ledger number for every rune the block can touch (held, minted); etchings are added later. */
  readonly numbers = new Map<string, number>();
  private readonly runes = new Map<string, RuneEntry>();
  private readonly names = new Map<bigint, string>();
  readonly held = new Map<string, PrefetchedHolding[]>();
  private readonly taproot = new Map<string, number>();
  private count = 0;

  private constructor(
    private readonly height: number,
    private readonly logger: Logger,
  ) {}

  static async load(trx: Knex.Transaction, block: BitcoinBlock, logger: Logger): Promise<PrefetchedLedgerView> {
    const view = new PrefetchedLedgerView(block.height, logger);
    const inBlock = new Set(block.txs.map((tx) => tx.txid));
    const spentTxids: string[] = [];
    const spentVouts: number[] = [];
    const mintIds = new Set<string>();
    const names = new Set<bigint>();
    const commitTxids: string[] = [];
    const commitVouts: number[] = [];
    for (const tx of block.txs) {
      const external = tx.inputs.filter((input) => !input.coinbase && !inBlock.has(input.txid));
      for (const input of external) {
        spentTxids.push(input.txid);
        spentVouts.push(input.vout);
      }
      const artifact = decipherRunestone(tx.outputs);
      if (!artifact) continue;
      if (artifact.mint) mintIds.add(formatRuneId(artifact.mint));
      const name = artifact.type === 'runestone' ? artifact.etching?.rune : artifact.etching;
      if (name === undefined) continue;
      names.add(name);
      for (const input of external) {
        commitTxids.push(input.txid);
        commitVouts.push(input.vout);
      }
    }

    if (spentTxids.length > 0) {
      // Two single-table lookups rather than one join: with young statistics the planner may loop over every rune
      // for each input.
      const { rows } = await trx.raw<{
        rows: Array<{ tx_id: Buffer; vout: number; address: string | null; amount: string; rune_number: number }>;
      }>(
        lookupEach(
          OUTPOINT,
          'rune_outputs',
          'o.tx_id = i.tx_id AND o.vout = i.vout AND o.spent_height IS NULL',
          'o.tx_id, o.vout, o.address, o.amount, o.rune_number',
        ),
        [spentTxids, spentVouts],
      );
      const numbers = [...new Set(rows.map((row) => row.rune_number))];
      const ids = new Map<number, string>();
      if (numbers.length > 0) {
        const runes: Array<{ number: number; block_height: number; tx_index: number }> = await trx('runes')
          .whereRaw('number = ANY(?::integer[])', [numbers])
          .select('number', 'block_height', 'tx_index');
        for (const r of runes) ids.set(r.number, `${r.block_height}:${r.tx_index}`);
      }
      // Balances of one output in rune id order (= rune number order), as the library orders a new output's.
      rows.sort((a, b) => a.rune_number - b.rune_number);
      for (const row of rows) {
        const key = `${row.tx_id.toString('hex')}:${row.vout}`;
        const runeId = ids.get(row.rune_number)!;
        view.numbers.set(runeId, row.rune_number);
        const list = view.held.get(key) ?? [];
        list.push({ runeId, amount: BigInt(row.amount), address: row.address, runeNumber: row.rune_number });
        view.held.set(key, list);
      }
    }

    if (mintIds.size > 0 || names.size > 0) {
      const ids = [...mintIds].map((id) => id.split(':').map(Number) as [number, number]);
      // Ids outside int4 cannot exist in the ledger; leave them out of the query.
      const valid = ids.filter(([b, t]) => b <= 2_147_483_647 && t <= 2_147_483_647);
      const rows: DbRune[] = await trx('runes')
        .where((q) => {
          if (valid.length > 0) q.orWhereIn(['block_height', 'tx_index'], valid);
          if (names.size > 0) q.orWhereIn('rune', [...names].map(String));
        })
        .select('*');
      for (const row of rows) {
        const entry = runeEntryFromRow(row);
        view.runes.set(entry.id, entry);
        view.names.set(entry.rune, entry.id);
        view.numbers.set(entry.id, row.number);
      }
    }

    if (commitTxids.length > 0) {
      const { rows } = await trx.raw<{ rows: Array<{ tx_id: Buffer; vout: number; created_height: number }> }>(
        lookupEach(
          OUTPOINT,
          'rune_taproot_outputs',
          'o.tx_id = i.tx_id AND o.vout = i.vout',
          'o.tx_id, o.vout, o.created_height',
        ),
        [commitTxids, commitVouts],
      );
      for (const row of rows) view.taproot.set(`${row.tx_id.toString('hex')}:${row.vout}`, row.created_height);
    }

    const max = await trx('runes').max<{ max: number | null }>('number as max').first();
    view.count = max?.max === null || max?.max === undefined ? 0 : max.max + 1;
    return view;
  }

  getRune(id: string): RuneEntry | undefined {
    return this.runes.get(id);
  }

  getRuneIdByName(rune: bigint): string | undefined {
    return this.names.get(rune);
  }

  runeCount(): number {
    return this.count;
  }

  inputBalances(txid: string, vout: number): HeldRune[] {
    return this.held.get(`${txid}:${vout}`) ?? [];
  }

  /**
   * Only P2TR outputs are stored (ADR 0007): an output we do not know is either not P2TR or older than the first
   * indexed block. It is reported as not P2TR — the commitment does not count.
   */
  prevout(txid: string, vout: number): { isP2tr: boolean; height: number } {
    const height = this.taproot.get(`${txid}:${vout}`);
    if (height !== undefined) return { isP2tr: true, height };
    this.logger.warn(
      { height: this.height, prevout: `${txid}:${vout}` },
      'an etching commitment spends an output the rune ledger does not know as P2TR; the commitment does not count',
    );
    return { isP2tr: false, height: this.height };
  }
}

const optional = (v: string | null): bigint | undefined => (v === null ? undefined : BigInt(v));

/** A `runes` row as the library's entry. */
function runeEntryFromRow(row: DbRune): RuneEntry {
  return {
    id: `${row.block_height}:${row.tx_index}`,
    block: row.block_height,
    tx: row.tx_index,
    etchingTxid: row.etching_tx_id?.slice(2) ?? '0'.repeat(64),
    timestamp: Number(row.block_time),
    number: row.number,
    rune: BigInt(row.rune),
    spacers: row.spacers,
    divisibility: row.divisibility,
    symbol: row.symbol,
    premine: BigInt(row.premine),
    terms: row.has_terms
      ? dropUndefined({
          amount: optional(row.terms_amount),
          cap: optional(row.terms_cap),
          heightStart: optional(row.terms_height_start),
          heightEnd: optional(row.terms_height_end),
          offsetStart: optional(row.terms_offset_start),
          offsetEnd: optional(row.terms_offset_end),
        })
      : null,
    turbo: row.turbo,
    mints: BigInt(row.mints),
    burned: BigInt(row.burned),
  };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
