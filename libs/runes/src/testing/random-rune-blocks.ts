import { Flag } from '../runestone';
import { RunestoneBuilder } from '../runestone-builder';
import type { RuneId } from '../rune-id';
import {
  BitcoinBlockBuilder,
  type BuiltBlock,
  opReturnScript,
  p2pkScript,
  p2trScript,
  p2wpkhScript,
} from './bitcoin-block-builder';

/**
 * Generates chains of blocks full of runestone transactions, deterministically from a seed: unnamed etchings (they
 * need no commitment) with premines and open terms, mints, edicts of every kind (one output, spread, amount 0,
 * OP_RETURN), pointers, cenotaphs, P2PK outputs. For ledger tests (rollback exactness) and the ingestion benchmark.
 * `clone()` copies the whole state, so two branches can grow from one block.
 */
export interface GeneratorOptions {
  seed: number;
  /** Height of the first block generated. */
  height: number;
  /** Hash of its parent (all zeros by default). */
  prevHash?: string;
  /** Distinct addresses used (small → many transfers between the same addresses). */
  keys?: number;
}

interface Outpoint {
  txid: string;
  vout: number;
}

export class RuneBlockGenerator {
  private state: number;
  private height: number;
  private prevHash: string;
  private readonly keys: number;
  private pool: Outpoint[] = [];
  private runeIds: RuneId[] = [];

  constructor(opts: GeneratorOptions) {
    this.state = opts.seed >>> 0 || 1;
    this.height = opts.height;
    this.prevHash = opts.prevHash ?? '0'.repeat(64);
    this.keys = opts.keys ?? 24;
  }

  get nextHeight(): number {
    return this.height;
  }

  /** Adds `n` spendable outputs of an earlier, unindexed transaction (they hold no runes): room for big blocks. */
  fund(n: number): this {
    const txid = (this.state >>> 0).toString(16).padStart(8, '0').repeat(8);
    for (let vout = 0; vout < n; vout++) this.pool.push({ txid, vout });
    this.next01();
    return this;
  }

  clone(seed?: number): RuneBlockGenerator {
    const copy = new RuneBlockGenerator({
      seed: seed ?? this.state,
      height: this.height,
      prevHash: this.prevHash,
      keys: this.keys,
    });
    copy.pool = [...this.pool];
    copy.runeIds = [...this.runeIds];
    return copy;
  }

  /** The next block: a coinbase plus `txCount` transactions (fewer while there is little to spend). */
  next(txCount: number, tag = ''): BuiltBlock {
    const height = this.height;
    const builder = new BitcoinBlockBuilder({
      prevHash: this.prevHash,
      height,
      tag,
      coinbaseOutputs: [p2trScript(this.key()), p2trScript(this.key()), p2trScript(this.key())],
    });
    // Outputs created in this block; some are spent later in the same block (they appear as created and spent).
    const created: Outpoint[] = [];
    [0, 1, 2].forEach((vout) => created.push({ txid: builder.coinbaseTxid, vout }));
    const coinbase = created.length;
    for (let i = 0; i < txCount && this.pool.length > 0; i++) {
      const txIndex = i + 1;
      const inputs = this.takeInputs(created, coinbase);
      const { outputs, etching } = this.outputs();
      const txid = builder.tx({ inputs: inputs.map((o) => ({ ...o })), outputs });
      outputs.forEach((script, vout) => {
        if (script[0] !== 0x6a) created.push({ txid, vout });
      });
      if (etching) this.runeIds.push({ block: BigInt(height), tx: txIndex });
    }
    // Outputs of this block become spendable from the next one on.
    this.pool.push(...created);
    const block = builder.build();
    this.prevHash = block.hash;
    this.height++;
    return block;
  }

  private takeInputs(created: Outpoint[], coinbase: number): Outpoint[] {
    const n = Math.min(this.pool.length, 1 + this.int(2));
    const inputs: Outpoint[] = [];
    for (let i = 0; i < n; i++) {
      // Never the coinbase's own outputs (immature); otherwise now and then one made earlier in this block.
      if (created.length > coinbase && this.chance(0.15)) {
        inputs.push(created.splice(coinbase + this.int(created.length - coinbase), 1)[0]!);
      } else if (this.pool.length > 0) {
        inputs.push(this.pool.splice(this.int(this.pool.length), 1)[0]!);
      }
    }
    return inputs;
  }

  private outputs(): { outputs: Uint8Array[]; etching: boolean } {
    const scripts: Uint8Array[] = [];
    const normal = 1 + this.int(4);
    for (let i = 0; i < normal; i++) scripts.push(this.outputScript());
    if (this.chance(0.08)) scripts.splice(this.int(scripts.length + 1), 0, opReturnScript());
    const count = scripts.length + 1;
    const runestone = new RunestoneBuilder();
    let etching = false;
    const roll = this.next01();
    if (roll < 0.1 || this.runeIds.length === 0) {
      etching = true;
      runestone.etching({
        divisibility: this.int(4),
        premine: this.chance(0.7) ? BigInt(1 + this.int(1_000_000)) : undefined,
        terms: this.chance(0.6) ? { amount: BigInt(1 + this.int(1000)), cap: BigInt(1 + this.int(50)) } : undefined,
      });
    } else if (roll < 0.4) {
      runestone.mint(this.pick(this.runeIds));
    }
    const edicts = this.int(3);
    for (let i = 0; i < edicts && this.runeIds.length > 0; i++) {
      const id = this.pick(this.runeIds);
      const amount = this.chance(0.3) ? 0n : BigInt(1 + this.int(50_000));
      // `count` (= number of outputs) spreads over all of them.
      runestone.edict(id, amount, this.int(count + 1));
    }
    if (this.chance(0.15)) runestone.pointer(this.int(count));
    // A cenotaph (tag 126, or a second Flags field with the cenotaph bit) burns its inputs and mint; it names no
    // rune here, so it etches nothing.
    let cenotaph = false;
    if (this.chance(0.04)) {
      runestone.field(126n, 0n);
      cenotaph = true;
    } else if (this.chance(0.02)) {
      runestone.field(2n, Flag.Cenotaph);
      cenotaph = true;
    }
    const at = this.int(scripts.length + 1);
    scripts.splice(at, 0, runestone.build());
    return { outputs: scripts, etching: etching && !cenotaph };
  }

  private outputScript(): Uint8Array {
    const roll = this.next01();
    const key = this.key();
    if (roll < 0.05) return p2pkScript(key);
    if (roll < 0.4) return p2wpkhScript(key);
    return p2trScript(key);
  }

  private key(): number {
    return 1 + this.int(this.keys);
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  private chance(p: number): boolean {
    return this.next01() < p;
  }

  private int(n: number): number {
    return Math.floor(this.next01() * n);
  }

  /** mulberry32. */
  private next01(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
}
