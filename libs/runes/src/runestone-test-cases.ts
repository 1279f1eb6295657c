import { U128_MAX, U32_MAX, U64_MAX } from './integer-limits';
import { type Artifact, type Cenotaph, Flag, type Flaw, type Runestone, Tag } from './runestone';
import { RunestoneBuilder, encodeIntegers, runestoneScript } from './runestone-builder';

/**
 * The decoder table: transactions (their output scripts) and what ord makes of them. Shared by
 * `runestone.test.ts` and the comparison with `@magiceden-oss/runestone-lib`.
 */
export interface DecoderCase {
  name: string;
  outputs: Uint8Array[];
  expected: Artifact | null;
}

/** A P2WPKH output script, standing for any ordinary output. */
export const PAYMENT = Uint8Array.of(0x00, 0x14, ...new Array<number>(20).fill(7));

const bytes = (...values: number[]) => Uint8Array.of(...values);
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));
/** `OP_RETURN OP_PUSHNUM_13` then the integers as one push. */
const message = (...integers: bigint[]) => runestoneScript(encodeIntegers(integers));
const HEADER = bytes(0x6a, 0x5d);
const id = (block: bigint, tx: number) => ({ block, tx });
const runestone = (fields: Partial<Omit<Runestone, 'type'>> = {}): Runestone => ({
  type: 'runestone',
  edicts: [],
  ...fields,
});
const cenotaph = (flaw: Flaw, kept: Partial<Omit<Cenotaph, 'type' | 'flaw'>> = {}): Cenotaph => ({
  type: 'cenotaph',
  flaw,
  ...kept,
});

const {
  Body,
  Flags,
  Rune,
  Premine,
  Cap,
  Amount,
  HeightStart,
  HeightEnd,
  OffsetStart,
  OffsetEnd,
  Mint,
  Pointer,
  Divisibility,
  Spacers,
  Nop,
} = Tag;
const SymbolTag = Tag.Symbol;
const ETCHING = Flag.Etching;
const TERMS = Flag.Terms;
const TURBO = Flag.Turbo;

export const DECODER_CASES: DecoderCase[] = [
  // Finding the runestone
  { name: 'no outputs', outputs: [], expected: null },
  { name: 'no OP_RETURN output', outputs: [PAYMENT], expected: null },
  { name: 'bare OP_RETURN', outputs: [bytes(0x6a)], expected: null },
  {
    name: 'OP_RETURN without the magic number',
    outputs: [cat(bytes(0x6a, 0x04), encodeIntegers([1n, 2n, 3n, 4n]))],
    expected: null,
  },
  { name: 'magic number not right after OP_RETURN', outputs: [bytes(0x6a, 0x00, 0x5d)], expected: null },
  { name: 'OP_PUSHNUM_13 without OP_RETURN', outputs: [bytes(0x5d, 0x6a)], expected: null },
  { name: 'empty runestone', outputs: [HEADER], expected: runestone() },
  {
    name: 'script invalid before the magic number is skipped',
    outputs: [bytes(0x6a, 0x09, 0x5d, 0x04), message(Mint, 1n, Mint, 1n)],
    expected: runestone({ mint: id(1n, 1) }),
  },
  {
    name: 'only the first runestone output counts',
    outputs: [message(Mint, 1n, Mint, 1n), message(Mint, 2n, Mint, 2n)],
    expected: runestone({ mint: id(1n, 1) }),
  },
  {
    name: 'the first runestone output counts even when flawed',
    outputs: [cat(HEADER, bytes(0x69)), message(Mint, 2n, Mint, 2n)],
    expected: cenotaph('opcode'),
  },

  // Instructions after the magic number
  { name: 'OP_0 pushes nothing', outputs: [cat(HEADER, bytes(0x00), bytes(0x02, 22, 0))], expected: runestone({ pointer: 0 }) },
  {
    name: 'pushes are concatenated, even mid-varint',
    outputs: [cat(HEADER, bytes(0x01, 20, 0x01, 0x81), bytes(0x01, 0x01), bytes(0x02, 20, 2)), PAYMENT],
    expected: runestone({ mint: id(129n, 2) }),
  },
  { name: 'OP_PUSHDATA1', outputs: [cat(HEADER, bytes(0x4c, 0x04, 20, 1, 20, 1))], expected: runestone({ mint: id(1n, 1) }) },
  {
    name: 'OP_PUSHDATA2',
    outputs: [cat(HEADER, bytes(0x4d, 0x04, 0x00, 20, 1, 20, 1))],
    expected: runestone({ mint: id(1n, 1) }),
  },
  {
    name: 'OP_PUSHDATA4',
    outputs: [cat(HEADER, bytes(0x4e, 0x04, 0x00, 0x00, 0x00, 20, 1, 20, 1))],
    expected: runestone({ mint: id(1n, 1) }),
  },
  {
    name: 'a non-push opcode (OP_VERIFY)',
    outputs: [cat(HEADER, bytes(0x69), bytes(0x02, 20, 1))],
    expected: cenotaph('opcode'),
  },
  { name: 'OP_PUSHNUM_1 is not a data push', outputs: [cat(HEADER, bytes(0x51))], expected: cenotaph('opcode') },
  { name: 'OP_1NEGATE is not a data push', outputs: [cat(HEADER, bytes(0x4f))], expected: cenotaph('opcode') },
  { name: 'a second OP_RETURN is an opcode', outputs: [cat(HEADER, bytes(0x6a))], expected: cenotaph('opcode') },
  { name: 'truncated direct push', outputs: [cat(HEADER, bytes(0x04, 20, 1))], expected: cenotaph('invalid-script') },
  { name: 'truncated OP_PUSHDATA1 length', outputs: [cat(HEADER, bytes(0x4c))], expected: cenotaph('invalid-script') },
  {
    name: 'truncated OP_PUSHDATA2 data',
    outputs: [cat(HEADER, bytes(0x4d, 0x05, 0x00, 20, 1))],
    expected: cenotaph('invalid-script'),
  },
  {
    name: 'truncated OP_PUSHDATA4 length',
    outputs: [cat(HEADER, bytes(0x4e, 0x01, 0x00))],
    expected: cenotaph('invalid-script'),
  },
  { name: 'opcode before a truncated push', outputs: [cat(HEADER, bytes(0x69, 0x04))], expected: cenotaph('opcode') },
  {
    name: 'truncated push hides a later opcode',
    outputs: [cat(HEADER, bytes(0x02, 0x69))],
    expected: cenotaph('invalid-script'),
  },
  {
    name: 'script flaw wins over a bad varint',
    outputs: [cat(HEADER, bytes(0x01, 0x80), bytes(0x69))],
    expected: cenotaph('opcode'),
  },

  // Varints
  { name: 'unterminated varint', outputs: [runestoneScript(bytes(20, 0x80))], expected: cenotaph('varint') },
  {
    name: '19-byte varint: u128::MAX name',
    outputs: [runestoneScript(cat(bytes(2, 1, 4), new Uint8Array(18).fill(0xff), bytes(0x03)))],
    expected: runestone({ etching: { rune: U128_MAX, turbo: false } }),
  },
  {
    name: '19-byte varint with a zero value (non-minimal)',
    outputs: [runestoneScript(cat(bytes(20), new Uint8Array(18).fill(0x80), bytes(0x00), bytes(20, 0)))],
    expected: runestone({ mint: id(0n, 0) }),
  },
  {
    name: '19-byte varint overflowing u128',
    outputs: [runestoneScript(cat(new Uint8Array(18).fill(0x80), bytes(0x04)))],
    expected: cenotaph('varint'),
  },
  {
    name: '20-byte varint is overlong',
    outputs: [runestoneScript(cat(new Uint8Array(19).fill(0x80), bytes(0x00)))],
    expected: cenotaph('varint'),
  },
  {
    name: 'varint flaw wins over message flaws',
    outputs: [runestoneScript(cat(encodeIntegers([126n, 0n, 2n]), bytes(0xff)))],
    expected: cenotaph('varint'),
  },

  // Message structure
  { name: 'tag without a value', outputs: [message(Flags)], expected: cenotaph('truncated-field') },
  {
    name: 'truncated field after a complete one',
    outputs: [message(Mint, 1n, Mint, 1n, Pointer), PAYMENT],
    expected: cenotaph('truncated-field', { mint: id(1n, 1) }),
  },
  { name: 'edict group of three', outputs: [message(Body, 1n, 1n, 5n), PAYMENT], expected: cenotaph('trailing-integers') },
  {
    name: 'trailing integer after a whole edict',
    outputs: [message(Body, 1n, 1n, 5n, 0n, 1n), PAYMENT],
    expected: cenotaph('trailing-integers'),
  },
  { name: 'body with no edicts', outputs: [message(Body)], expected: runestone() },
  {
    name: 'edict ids are delta-encoded',
    outputs: [message(Body, 1n, 1n, 10n, 0n, 0n, 1n, 20n, 0n, 1n, 0n, 30n, 0n, 0n, 5n, 40n, 1n), PAYMENT],
    expected: runestone({
      edicts: [
        { id: id(1n, 1), amount: 10n, output: 0 },
        { id: id(1n, 2), amount: 20n, output: 0 },
        { id: id(2n, 0), amount: 30n, output: 0 },
        { id: id(2n, 5), amount: 40n, output: 1 },
      ],
    }),
  },
  {
    name: 'edict id 0:0 (this etching)',
    outputs: [message(Body, 0n, 0n, 7n, 0n), PAYMENT],
    expected: runestone({ edicts: [{ id: id(0n, 0), amount: 7n, output: 0 }] }),
  },
  {
    name: 'edict id block 0 with tx > 0',
    outputs: [message(Body, 0n, 1n, 7n, 0n), PAYMENT],
    expected: cenotaph('edict-rune-id'),
  },
  {
    name: 'edict block delta beyond u64',
    outputs: [message(Body, U64_MAX + 1n, 0n, 7n, 0n), PAYMENT],
    expected: cenotaph('edict-rune-id'),
  },
  {
    name: 'edict block sum beyond u64',
    outputs: [message(Body, U64_MAX, 0n, 7n, 0n, 1n, 0n, 7n, 0n), PAYMENT],
    expected: cenotaph('edict-rune-id'),
  },
  {
    name: 'edict block u64::MAX',
    outputs: [message(Body, U64_MAX, 0n, 7n, 0n), PAYMENT],
    expected: runestone({ edicts: [{ id: id(U64_MAX, 0), amount: 7n, output: 0 }] }),
  },
  {
    name: 'edict tx beyond u32',
    outputs: [message(Body, 1n, U32_MAX + 1n, 7n, 0n), PAYMENT],
    expected: cenotaph('edict-rune-id'),
  },
  {
    name: 'edict tx sum beyond u32',
    outputs: [message(Body, 1n, U32_MAX, 7n, 0n, 0n, 1n, 7n, 0n), PAYMENT],
    expected: cenotaph('edict-rune-id'),
  },
  {
    name: 'edict amount u128::MAX',
    outputs: [message(Body, 1n, 1n, U128_MAX, 0n), PAYMENT],
    expected: runestone({ edicts: [{ id: id(1n, 1), amount: U128_MAX, output: 0 }] }),
  },
  {
    name: 'edict output == number of outputs (spread)',
    outputs: [message(Body, 1n, 1n, 7n, 2n), PAYMENT],
    expected: runestone({ edicts: [{ id: id(1n, 1), amount: 7n, output: 2 }] }),
  },
  {
    name: 'edict output beyond the outputs',
    outputs: [message(Body, 1n, 1n, 7n, 3n), PAYMENT],
    expected: cenotaph('edict-output'),
  },
  {
    name: 'edict output counted from the real transaction',
    outputs: [message(Body, 1n, 1n, 7n, 3n), PAYMENT, PAYMENT, PAYMENT],
    expected: runestone({ edicts: [{ id: id(1n, 1), amount: 7n, output: 3 }] }),
  },
  {
    name: 'edict output beyond u32',
    outputs: [message(Body, 1n, 1n, 7n, U32_MAX + 1n), PAYMENT],
    expected: cenotaph('edict-output'),
  },
  {
    name: 'edict flaw after a good edict',
    outputs: [message(Body, 1n, 1n, 7n, 0n, 0n, 1n, 7n, 9n), PAYMENT],
    expected: cenotaph('edict-output'),
  },
  {
    name: 'message flaw wins over an unrecognized even tag',
    outputs: [message(126n, 0n, Body, 1n, 1n, 7n, 9n), PAYMENT],
    expected: cenotaph('edict-output'),
  },
  {
    name: 'truncated field wins over an unrecognized flag',
    outputs: [message(Flags, Flag.Cenotaph, Spacers)],
    expected: cenotaph('truncated-field'),
  },

  // Flags
  { name: 'etching flag alone', outputs: [message(Flags, ETCHING)], expected: runestone({ etching: { turbo: false } }) },
  {
    name: 'terms flag with etching',
    outputs: [message(Flags, ETCHING | TERMS)],
    expected: runestone({ etching: { terms: {}, turbo: false } }),
  },
  {
    name: 'turbo flag with etching',
    outputs: [message(Flags, ETCHING | TURBO)],
    expected: runestone({ etching: { turbo: true } }),
  },
  { name: 'terms flag without etching', outputs: [message(Flags, TERMS)], expected: cenotaph('unrecognized-flag') },
  { name: 'turbo flag without etching', outputs: [message(Flags, TURBO)], expected: cenotaph('unrecognized-flag') },
  { name: 'cenotaph flag', outputs: [message(Flags, Flag.Cenotaph)], expected: cenotaph('unrecognized-flag') },
  { name: 'unknown flag bit 3', outputs: [message(Flags, 1n << 3n)], expected: cenotaph('unrecognized-flag') },
  { name: 'flags given twice', outputs: [message(Flags, ETCHING, Flags, ETCHING)], expected: cenotaph('unrecognized-even-tag') },
  {
    name: 'a cenotaph keeps the etched name and the mint',
    outputs: [
      message(Flags, ETCHING | TERMS | Flag.Cenotaph, Rune, 5n, Divisibility, 2n, Premine, 9n, Amount, 1n, Mint, 1n, Mint, 1n),
    ],
    expected: cenotaph('unrecognized-flag', { etching: 5n, mint: id(1n, 1) }),
  },
  {
    name: 'a cenotaph etching without a name',
    outputs: [message(Flags, ETCHING | Flag.Cenotaph, Premine, 9n)],
    expected: cenotaph('unrecognized-flag'),
  },

  // Etching fields
  {
    name: 'full etching',
    outputs: [
      new RunestoneBuilder()
        .etching({
          rune: 2055900680524219742n,
          divisibility: 38,
          spacers: 128,
          symbol: '⧉',
          premine: 1000n,
          turbo: true,
          terms: { amount: 10n, cap: 100n, heightStart: 840_000n, heightEnd: 1_050_000n, offsetStart: 1n, offsetEnd: U64_MAX },
        })
        .pointer(0)
        .build(),
    ],
    expected: runestone({
      etching: {
        divisibility: 38,
        premine: 1000n,
        rune: 2055900680524219742n,
        spacers: 128,
        symbol: '⧉',
        terms: { amount: 10n, cap: 100n, heightStart: 840_000n, heightEnd: 1_050_000n, offsetStart: 1n, offsetEnd: U64_MAX },
        turbo: true,
      },
      pointer: 0,
    }),
  },
  { name: 'rune without the etching flag', outputs: [message(Rune, 5n)], expected: cenotaph('unrecognized-even-tag') },
  { name: 'premine without the etching flag', outputs: [message(Premine, 5n)], expected: cenotaph('unrecognized-even-tag') },
  {
    name: 'cap without the terms flag',
    outputs: [message(Flags, ETCHING, Cap, 5n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  {
    name: 'amount without the terms flag',
    outputs: [message(Flags, ETCHING, Amount, 5n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  {
    name: 'height start without the terms flag',
    outputs: [message(Flags, ETCHING, HeightStart, 5n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  { name: 'divisibility without the etching flag is ignored', outputs: [message(Divisibility, 5n)], expected: runestone() },
  {
    name: 'divisibility 38',
    outputs: [message(Flags, ETCHING, Divisibility, 38n)],
    expected: runestone({ etching: { divisibility: 38, turbo: false } }),
  },
  {
    name: 'divisibility 39 is dropped',
    outputs: [message(Flags, ETCHING, Divisibility, 39n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'divisibility beyond u8 is dropped',
    outputs: [message(Flags, ETCHING, Divisibility, 256n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'second divisibility is ignored',
    outputs: [message(Flags, ETCHING, Divisibility, 2n, Divisibility, 3n)],
    expected: runestone({ etching: { divisibility: 2, turbo: false } }),
  },
  {
    name: 'spacers 0x07FFFFFF',
    outputs: [message(Flags, ETCHING, Spacers, 0x07ff_ffffn)],
    expected: runestone({ etching: { spacers: 0x07ff_ffff, turbo: false } }),
  },
  {
    name: 'spacers 0x08000000 are dropped',
    outputs: [message(Flags, ETCHING, Spacers, 0x0800_0000n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'symbol in the BMP',
    outputs: [message(Flags, ETCHING, SymbolTag, 0x61n)],
    expected: runestone({ etching: { symbol: 'a', turbo: false } }),
  },
  {
    name: 'symbol outside the BMP',
    outputs: [message(Flags, ETCHING, SymbolTag, 0x1f9ffn)],
    expected: runestone({ etching: { symbol: '\u{1F9FF}', turbo: false } }),
  },
  {
    name: 'symbol U+10FFFF',
    outputs: [message(Flags, ETCHING, SymbolTag, 0x10ffffn)],
    expected: runestone({ etching: { symbol: '\u{10FFFF}', turbo: false } }),
  },
  {
    name: 'symbol U+0000',
    outputs: [message(Flags, ETCHING, SymbolTag, 0n)],
    expected: runestone({ etching: { symbol: '\u0000', turbo: false } }),
  },
  {
    name: 'surrogate symbol is dropped',
    outputs: [message(Flags, ETCHING, SymbolTag, 0xd800n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'symbol beyond U+10FFFF is dropped',
    outputs: [message(Flags, ETCHING, SymbolTag, 0x110000n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'symbol beyond u32 is dropped',
    outputs: [message(Flags, ETCHING, SymbolTag, U32_MAX + 0x61n)],
    expected: runestone({ etching: { turbo: false } }),
  },
  {
    name: 'rune u128::MAX',
    outputs: [message(Flags, ETCHING, Rune, U128_MAX)],
    expected: runestone({ etching: { rune: U128_MAX, turbo: false } }),
  },
  {
    name: 'premine u128::MAX',
    outputs: [message(Flags, ETCHING, Premine, U128_MAX)],
    expected: runestone({ etching: { premine: U128_MAX, turbo: false } }),
  },
  {
    name: 'cap u128::MAX × amount 1',
    outputs: [message(Flags, ETCHING | TERMS, Cap, U128_MAX, Amount, 1n)],
    expected: runestone({ etching: { terms: { cap: U128_MAX, amount: 1n }, turbo: false } }),
  },
  {
    name: 'cap × amount overflows',
    outputs: [message(Flags, ETCHING | TERMS, Cap, U128_MAX, Amount, 2n)],
    expected: cenotaph('supply-overflow'),
  },
  {
    name: 'premine + cap × amount overflows',
    outputs: [message(Flags, ETCHING | TERMS, Rune, 9n, Premine, 1n, Cap, U128_MAX, Amount, 1n)],
    expected: cenotaph('supply-overflow', { etching: 9n }),
  },
  {
    name: 'supply overflow wins over an unrecognized flag',
    outputs: [message(Flags, ETCHING | TERMS | Flag.Cenotaph, Premine, 1n, Cap, U128_MAX, Amount, 1n, 126n, 0n)],
    expected: cenotaph('supply-overflow'),
  },
  {
    name: 'unrecognized flag wins over an unrecognized even tag',
    outputs: [message(Flags, ETCHING | Flag.Cenotaph, 126n, 0n)],
    expected: cenotaph('unrecognized-flag'),
  },
  {
    name: 'height start u64::MAX',
    outputs: [message(Flags, ETCHING | TERMS, HeightStart, U64_MAX)],
    expected: runestone({ etching: { terms: { heightStart: U64_MAX }, turbo: false } }),
  },
  {
    name: 'height start beyond u64',
    outputs: [message(Flags, ETCHING | TERMS, HeightStart, U64_MAX + 1n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  {
    name: 'height end beyond u64',
    outputs: [message(Flags, ETCHING | TERMS, HeightEnd, U64_MAX + 1n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  {
    name: 'offset start beyond u64',
    outputs: [message(Flags, ETCHING | TERMS, OffsetStart, U64_MAX + 1n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  {
    name: 'offset end beyond u64',
    outputs: [message(Flags, ETCHING | TERMS, OffsetEnd, U64_MAX + 1n)],
    expected: cenotaph('unrecognized-even-tag'),
  },

  {
    name: 'rune given twice',
    outputs: [message(Flags, ETCHING, Rune, 5n, Rune, 6n)],
    expected: cenotaph('unrecognized-even-tag', { etching: 5n }),
  },
  {
    name: 'message flaw keeps the etched name',
    outputs: [message(Flags, ETCHING, Rune, 5n, Body, 0n, 1n, 1n, 0n)],
    expected: cenotaph('edict-rune-id', { etching: 5n }),
  },
  {
    name: 'terms with offsets only',
    outputs: [message(Flags, ETCHING | TERMS, OffsetEnd, 10n, OffsetStart, 2n)],
    expected: runestone({ etching: { terms: { offsetStart: 2n, offsetEnd: 10n }, turbo: false } }),
  },
  {
    name: 'a cenotaph drops the pointer and the edicts',
    outputs: [message(Pointer, 0n, 126n, 1n, Body, 1n, 1n, 1n, 0n)],
    expected: cenotaph('unrecognized-even-tag'),
  },

  // Mint and pointer
  { name: 'mint', outputs: [message(Mint, 840_000n, Mint, 3n)], expected: runestone({ mint: id(840_000n, 3) }) },
  { name: 'mint 0:0', outputs: [message(Mint, 0n, Mint, 0n)], expected: runestone({ mint: id(0n, 0) }) },
  {
    name: 'mint block u64::MAX, tx u32::MAX',
    outputs: [message(Mint, U64_MAX, Mint, U32_MAX)],
    expected: runestone({ mint: id(U64_MAX, Number(U32_MAX)) }),
  },
  {
    name: 'mint block beyond u64',
    outputs: [message(Mint, U64_MAX + 1n, Mint, 0n)],
    expected: cenotaph('unrecognized-even-tag'),
  },
  { name: 'mint tx beyond u32', outputs: [message(Mint, 1n, Mint, U32_MAX + 1n)], expected: cenotaph('unrecognized-even-tag') },
  { name: 'mint block 0 with tx > 0', outputs: [message(Mint, 0n, Mint, 1n)], expected: cenotaph('unrecognized-even-tag') },
  { name: 'mint with one value', outputs: [message(Mint, 1n)], expected: cenotaph('unrecognized-even-tag') },
  {
    name: 'mint with three values',
    outputs: [message(Mint, 1n, Mint, 1n, Mint, 2n)],
    expected: cenotaph('unrecognized-even-tag', { mint: id(1n, 1) }),
  },
  { name: 'pointer to the last output', outputs: [message(Pointer, 1n), PAYMENT], expected: runestone({ pointer: 1 }) },
  { name: 'pointer == number of outputs', outputs: [message(Pointer, 2n), PAYMENT], expected: cenotaph('unrecognized-even-tag') },
  { name: 'pointer beyond u32', outputs: [message(Pointer, U32_MAX + 1n), PAYMENT], expected: cenotaph('unrecognized-even-tag') },

  // Other tags
  { name: 'cenotaph tag 126', outputs: [message(126n, 0n)], expected: cenotaph('unrecognized-even-tag') },
  { name: 'nop tag 127 is ignored', outputs: [message(Nop, 5n)], expected: runestone() },
  { name: 'unknown odd tag is ignored', outputs: [message(9n, 5n, 1001n, 1n)], expected: runestone() },
  { name: 'unknown even tag 24', outputs: [message(24n, 5n)], expected: cenotaph('unrecognized-even-tag') },
  { name: 'tag u128::MAX (odd) is ignored', outputs: [message(U128_MAX, 5n)], expected: runestone() },
  {
    name: 'tags after the body are edicts',
    outputs: [message(Body, 20n, 1n, 1n, 0n), PAYMENT],
    expected: runestone({ edicts: [{ id: id(20n, 1), amount: 1n, output: 0 }] }),
  },
  {
    name: 'fields before the body, edicts after',
    outputs: [
      new RunestoneBuilder().etching({ rune: 100n, premine: 5n }).mint(id(1n, 0)).pointer(1).edict(id(0n, 0), 5n, 1).build(),
      PAYMENT,
    ],
    expected: runestone({
      edicts: [{ id: id(0n, 0), amount: 5n, output: 1 }],
      etching: { premine: 5n, rune: 100n, turbo: false },
      mint: id(1n, 0),
      pointer: 1,
    }),
  },
];
