import { concatBytes } from './concat-bytes';
import { U128_MAX, U32_MAX, U64_MAX } from './integer-limits';
import { type RuneId, nextRuneId, runeIdFrom } from './rune-id';
import { scriptInstructions } from './script-instructions';
import { VarintError, decodeVarint } from './varint';

/** Why a runestone is a cenotaph. Only one is kept: the first met (see {@link decipherRunestone}). */
export type Flaw =
  | 'edict-output'
  | 'edict-rune-id'
  | 'invalid-script'
  | 'opcode'
  | 'supply-overflow'
  | 'trailing-integers'
  | 'truncated-field'
  | 'unrecognized-even-tag'
  | 'unrecognized-flag'
  | 'varint';

/** Open-mint terms. Each bound is optional; heights and offsets are u64. */
export interface Terms {
  amount?: bigint;
  cap?: bigint;
  heightStart?: bigint;
  heightEnd?: bigint;
  offsetStart?: bigint;
  offsetEnd?: bigint;
}

export interface Etching {
  divisibility?: number;
  premine?: bigint;
  rune?: bigint;
  spacers?: number;
  /** One Unicode scalar value. */
  symbol?: string;
  terms?: Terms;
  turbo: boolean;
}

/** Moves `amount` of rune `id` to output `output`; `output == outputs.length` spreads over all outputs. */
export interface Edict {
  id: RuneId;
  amount: bigint;
  output: number;
}

export interface Runestone {
  type: 'runestone';
  edicts: Edict[];
  etching?: Etching;
  mint?: RuneId;
  pointer?: number;
}

/** A malformed runestone. It keeps only the etched name and the mint id; its runes are burned. */
export interface Cenotaph {
  type: 'cenotaph';
  flaw: Flaw;
  /** The name the etching gave, when the Etching flag and a Rune tag were both present. */
  etching?: bigint;
  mint?: RuneId;
}

export type Artifact = Runestone | Cenotaph;

/** The part of a transaction output the decoder reads. */
export interface OutputScript {
  script: Uint8Array;
}

/** Message tags. Even tags must be understood (else cenotaph); odd tags may be ignored. */
export const Tag = {
  Body: 0n,
  Flags: 2n,
  Rune: 4n,
  Premine: 6n,
  Cap: 8n,
  Amount: 10n,
  HeightStart: 12n,
  HeightEnd: 14n,
  OffsetStart: 16n,
  OffsetEnd: 18n,
  Mint: 20n,
  Pointer: 22n,
  Cenotaph: 126n,
  Divisibility: 1n,
  Spacers: 3n,
  Symbol: 5n,
  Nop: 127n,
} as const;

/** Bits of the Flags field. The Cenotaph bit is never recognized. */
export const Flag = {
  Etching: 1n << 0n,
  Terms: 1n << 1n,
  Turbo: 1n << 2n,
  Cenotaph: 1n << 127n,
} as const;

export const MAX_DIVISIBILITY = 38;
export const MAX_SPACERS = 0x07ff_ffff;

const OP_RETURN = 0x6a;
/** OP_PUSHNUM_13, the runes protocol identifier right after OP_RETURN. */
const MAGIC_NUMBER = 0x5d;
const MAX_UNICODE_SCALAR = 0x10ffff;

/**
 * Finds and decodes the runestone of a transaction (ord's `Runestone::decipher`). `outputs` must
 * be all of the transaction's outputs, in order: their count bounds edict outputs and the pointer.
 *
 * Returns `null` when no output starts with `OP_RETURN OP_PUSHNUM_13`. Flaws, only the first kept:
 * 1. `opcode` / `invalid-script` while collecting the payload (a non-push opcode, a truncated push);
 * 2. `varint` when the payload is not a whole sequence of valid varints;
 * 3. message flaws in the order met: `truncated-field`, `trailing-integers`, `edict-rune-id`,
 *    `edict-output` (edicts before the flaw are read, later ones are not);
 * 4. `supply-overflow`, then `unrecognized-flag`, then `unrecognized-even-tag`.
 */
export function decipherRunestone(outputs: readonly OutputScript[]): Artifact | null {
  const payload = findPayload(outputs);
  if (payload === null) return null;
  if (typeof payload === 'string') return { type: 'cenotaph', flaw: payload };

  const integers = readIntegers(payload);
  if (integers === null) return { type: 'cenotaph', flaw: 'varint' };

  const message = readMessage(integers, outputs.length);
  let flaw = message.flaw;
  const fields = new Fields(message.fields);

  const flags = new Flags(fields.take(Tag.Flags, u128) ?? 0n);
  const etching = flags.take(Flag.Etching) ? readEtching(fields, flags) : undefined;
  const mint = fields.takePair(Tag.Mint, runeIdFrom);
  // A pointer must name an existing output (which also keeps it within u32).
  const pointer = fields.take(Tag.Pointer, (v) => (v < BigInt(outputs.length) ? Number(v) : undefined));

  if (etching && maxSupply(etching) > U128_MAX) flaw ??= 'supply-overflow';
  if (flags.remaining !== 0n) flaw ??= 'unrecognized-flag';
  if (fields.hasEvenTag()) flaw ??= 'unrecognized-even-tag';

  if (flaw) {
    const cenotaph: Cenotaph = { type: 'cenotaph', flaw };
    assign(cenotaph, 'etching', etching?.rune);
    assign(cenotaph, 'mint', mint);
    return cenotaph;
  }
  const runestone: Runestone = { type: 'runestone', edicts: message.edicts };
  assign(runestone, 'etching', etching);
  assign(runestone, 'mint', mint);
  assign(runestone, 'pointer', pointer);
  return runestone;
}

/**
 * Etching fields, read only under the Etching flag; terms only under Etching + Terms. Values
 * that fail their conversion stay unread: an even tag then makes a cenotaph, an odd one
 * (Divisibility, Spacers, Symbol) is simply dropped.
 */
function readEtching(fields: Fields, flags: Flags): Etching {
  const etching: Etching = { turbo: false };
  assign(etching, 'divisibility', fields.take(Tag.Divisibility, atMost(MAX_DIVISIBILITY)));
  assign(etching, 'premine', fields.take(Tag.Premine, u128));
  assign(etching, 'rune', fields.take(Tag.Rune, u128));
  assign(etching, 'spacers', fields.take(Tag.Spacers, atMost(MAX_SPACERS)));
  assign(etching, 'symbol', fields.take(Tag.Symbol, scalarValue));
  if (flags.take(Flag.Terms)) {
    const terms: Terms = {};
    assign(terms, 'cap', fields.take(Tag.Cap, u128));
    assign(terms, 'heightStart', fields.take(Tag.HeightStart, u64));
    assign(terms, 'heightEnd', fields.take(Tag.HeightEnd, u64));
    assign(terms, 'amount', fields.take(Tag.Amount, u128));
    assign(terms, 'offsetStart', fields.take(Tag.OffsetStart, u64));
    assign(terms, 'offsetEnd', fields.take(Tag.OffsetEnd, u64));
    etching.terms = terms;
  }
  etching.turbo = flags.take(Flag.Turbo);
  return etching;
}

/** The Flags field; bits are cleared as they are recognized. */
class Flags {
  constructor(public remaining: bigint) {}

  take(flag: bigint): boolean {
    const set = (this.remaining & flag) !== 0n;
    this.remaining &= ~flag;
    return set;
  }
}

/** `premine + cap × amount`, each defaulting to 0. */
function maxSupply(etching: Etching): bigint {
  const { premine = 0n, terms } = etching;
  return premine + (terms?.cap ?? 0n) * (terms?.amount ?? 0n);
}

/**
 * The payload of the first output whose script starts `OP_RETURN OP_PUSHNUM_13`: its remaining
 * data pushes concatenated. Outputs after it are never looked at.
 */
function findPayload(outputs: readonly OutputScript[]): Uint8Array | 'opcode' | 'invalid-script' | null {
  for (const { script } of outputs) {
    if (script[0] !== OP_RETURN || script[1] !== MAGIC_NUMBER) continue;
    const pushes: Uint8Array[] = [];
    for (const instruction of scriptInstructions(script, 2)) {
      if (instruction === 'truncated') return 'invalid-script';
      if ('opcode' in instruction) return 'opcode';
      pushes.push(instruction.push);
    }
    return concatBytes(pushes);
  }
  return null;
}

/** The payload as varints, or `null` if any of them is invalid. */
function readIntegers(payload: Uint8Array): bigint[] | null {
  const integers: bigint[] = [];
  try {
    for (let i = 0; i < payload.length;) {
      const { value, length } = decodeVarint(payload, i);
      integers.push(value);
      i += length;
    }
  } catch (error) {
    if (error instanceof VarintError) return null;
    throw error;
  }
  return integers;
}

interface Message {
  flaw?: Flaw;
  edicts: Edict[];
  fields: Map<bigint, bigint[]>;
}

/**
 * Splits the integers into (tag, value) fields until tag 0 (Body), after which everything is
 * edicts in groups of four: `[Δblock, Δtx, amount, output]`. A repeated tag queues its values.
 */
function readMessage(integers: readonly bigint[], outputCount: number): Message {
  const edicts: Edict[] = [];
  const fields = new Map<bigint, bigint[]>();
  for (let i = 0; i < integers.length; i += 2) {
    const tag = integers[i]!;
    if (tag === Tag.Body) {
      let id: RuneId = { block: 0n, tx: 0 };
      for (let j = i + 1; j < integers.length; j += 4) {
        if (j + 4 > integers.length) return { flaw: 'trailing-integers', edicts, fields };
        const [blockDelta, txDelta, amount, output] = integers.slice(j, j + 4) as [bigint, bigint, bigint, bigint];
        const next = nextRuneId(id, blockDelta, txDelta);
        if (!next) return { flaw: 'edict-rune-id', edicts, fields };
        // output == outputCount is allowed: it spreads the amount over all non-OP_RETURN outputs.
        if (output > BigInt(outputCount) || output > U32_MAX) return { flaw: 'edict-output', edicts, fields };
        id = next;
        edicts.push({ id, amount, output: Number(output) });
      }
      break;
    }
    const value = integers[i + 1];
    if (value === undefined) return { flaw: 'truncated-field', edicts, fields };
    const queue = fields.get(tag);
    if (queue) queue.push(value);
    else fields.set(tag, [value]);
  }
  return { edicts, fields };
}

/** Tagged values not yet consumed (ord's `Tag::take`). */
class Fields {
  constructor(private readonly fields: Map<bigint, bigint[]>) {}

  /**
   * Consumes the first value of `tag` when `convert` accepts it; otherwise leaves it in place (so
   * an even tag will make a cenotaph). Further values of a repeated tag stay behind as well.
   */
  take<T>(tag: bigint, convert: (value: bigint) => T | undefined): T | undefined {
    return this.consume(tag, 1, ([value]) => convert(value!));
  }

  /** Like {@link take} for a field made of two values (Mint). */
  takePair<T>(tag: bigint, convert: (first: bigint, second: bigint) => T | undefined): T | undefined {
    return this.consume(tag, 2, ([first, second]) => convert(first!, second!));
  }

  private consume<T>(tag: bigint, count: number, convert: (values: bigint[]) => T | undefined): T | undefined {
    const queue = this.fields.get(tag);
    if (!queue || queue.length < count) return undefined;
    const value = convert(queue.slice(0, count));
    if (value === undefined) return undefined;
    queue.splice(0, count);
    if (queue.length === 0) this.fields.delete(tag);
    return value;
  }

  hasEvenTag(): boolean {
    for (const tag of this.fields.keys()) if (tag % 2n === 0n) return true;
    return false;
  }
}

/** Any decoded integer is a u128. */
function u128(value: bigint): bigint {
  return value;
}

function u64(value: bigint): bigint | undefined {
  return value <= U64_MAX ? value : undefined;
}

/** A small bound (divisibility, spacers) as a number. */
function atMost(max: number): (value: bigint) => number | undefined {
  return (value) => (value <= BigInt(max) ? Number(value) : undefined);
}

/** The character for a u32 that is a Unicode scalar value (not a surrogate, at most U+10FFFF). */
function scalarValue(value: bigint): string | undefined {
  if (value > BigInt(MAX_UNICODE_SCALAR) || (value >= 0xd800n && value <= 0xdfffn)) return undefined;
  return String.fromCodePoint(Number(value));
}

/** Sets an optional property only when a value is present, so absent fields stay absent. */
function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}
