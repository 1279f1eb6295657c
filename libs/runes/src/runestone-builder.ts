import { concatBytes } from './concat-bytes';
import { U32_MAX, fitsIn } from './integer-limits';
import type { RuneId } from './rune-id';
import { Flag, Tag, type Terms } from './runestone';
import { encodeVarint } from './varint';

/** What {@link RunestoneBuilder.etching} writes; `rune` and `spacers` are raw protocol values. */
export interface EtchingSpec {
  rune?: bigint;
  divisibility?: number;
  spacers?: number;
  symbol?: string;
  premine?: bigint;
  terms?: Terms;
  turbo?: boolean;
  /** Extra bits OR-ed into the Flags field (e.g. `Flag.Cenotaph`), to build flawed runestones. */
  flags?: bigint;
}

/**
 * Writes runestone output scripts (`OP_RETURN OP_PUSHNUM_13 <payload>`), for tests and fixtures.
 * It encodes whatever it is given, valid or not: extra raw fields and flags make it possible to
 * produce every kind of cenotaph. Field order follows ord's encoder; edicts are sorted by id and
 * delta-encoded.
 */
export class RunestoneBuilder {
  private readonly fields: Array<[bigint, bigint]> = [];
  private readonly edicts: Array<{ id: RuneId; amount: bigint; output: bigint }> = [];

  etching(spec: EtchingSpec): this {
    let flags = Flag.Etching | (spec.flags ?? 0n);
    if (spec.terms) flags |= Flag.Terms;
    if (spec.turbo) flags |= Flag.Turbo;
    this.field(Tag.Flags, flags);
    this.optional(Tag.Rune, spec.rune);
    this.optional(Tag.Divisibility, spec.divisibility);
    this.optional(Tag.Spacers, spec.spacers);
    this.optional(Tag.Symbol, spec.symbol?.codePointAt(0));
    this.optional(Tag.Premine, spec.premine);
    const terms = spec.terms;
    if (terms) {
      this.optional(Tag.Amount, terms.amount);
      this.optional(Tag.Cap, terms.cap);
      this.optional(Tag.HeightStart, terms.heightStart);
      this.optional(Tag.HeightEnd, terms.heightEnd);
      this.optional(Tag.OffsetStart, terms.offsetStart);
      this.optional(Tag.OffsetEnd, terms.offsetEnd);
    }
    return this;
  }

  mint(id: RuneId): this {
    return this.field(Tag.Mint, id.block).field(Tag.Mint, BigInt(id.tx));
  }

  pointer(output: number | bigint): this {
    return this.field(Tag.Pointer, BigInt(output));
  }

  edict(id: RuneId, amount: bigint, output: number | bigint): this {
    this.edicts.push({ id, amount, output: BigInt(output) });
    return this;
  }

  /** A raw (tag, value) pair, written after the etching, mint and pointer fields. */
  field(tag: bigint, value: bigint): this {
    this.fields.push([tag, value]);
    return this;
  }

  /** The message as integers: fields, then tag 0 and the delta-encoded edicts. */
  integers(): bigint[] {
    const integers = this.fields.flat();
    if (this.edicts.length === 0) return integers;
    integers.push(Tag.Body);
    const sorted = [...this.edicts].sort((a, b) =>
      a.id.block === b.id.block ? a.id.tx - b.id.tx : a.id.block < b.id.block ? -1 : 1,
    );
    let previous: RuneId = { block: 0n, tx: 0 };
    for (const { id, amount, output } of sorted) {
      const blockDelta = id.block - previous.block;
      const txDelta = blockDelta === 0n ? id.tx - previous.tx : id.tx;
      integers.push(blockDelta, BigInt(txDelta), amount, output);
      previous = id;
    }
    return integers;
  }

  /** The output script carrying the message in one data push. */
  build(): Uint8Array {
    return runestoneScript(encodeIntegers(this.integers()));
  }

  private optional(tag: bigint, value: bigint | number | undefined): void {
    if (value !== undefined) this.field(tag, BigInt(value));
  }
}

/** Concatenated varints. */
export function encodeIntegers(integers: readonly bigint[]): Uint8Array {
  return concatBytes(integers.map(encodeVarint));
}

/** `OP_RETURN OP_PUSHNUM_13` followed by each payload chunk as one minimal data push. */
export function runestoneScript(...chunks: Uint8Array[]): Uint8Array {
  return concatBytes([Uint8Array.of(0x6a, 0x5d), ...chunks.map(pushData)]);
}

/** The smallest push of `data`: direct for up to 75 bytes, else OP_PUSHDATA1/2/4. */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  if (!fitsIn(BigInt(n), U32_MAX)) throw new RangeError('push too large');
  const header =
    n < 0x4c
      ? [n]
      : n <= 0xff
        ? [0x4c, n]
        : n <= 0xffff
          ? [0x4d, n & 0xff, n >> 8]
          : [0x4e, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  const out = new Uint8Array(header.length + n);
  out.set(header);
  out.set(data, header.length);
  return out;
}
