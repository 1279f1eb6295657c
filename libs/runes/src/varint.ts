import { U128_MAX } from './integer-limits';

/** Why a LEB128 varint could not be read (ord's `varint::Error`). */
export type VarintErrorReason = 'overlong' | 'overflow' | 'unterminated';

export class VarintError extends Error {
  constructor(readonly reason: VarintErrorReason) {
    super(`invalid varint: ${reason}`);
    this.name = 'VarintError';
  }
}

/** A u128 needs at most 19 groups of 7 bits; the 19th group may only use its two low bits. */
const MAX_VARINT_BYTES = 19;
const LAST_BYTE_OVERFLOW_BITS = 0b0111_1100;

/**
 * Reads one LEB128 u128 starting at `offset`: 7 bits a byte, least significant group first,
 * high bit set on every byte but the last.
 *
 * Throws {@link VarintError}: `overlong` when a 20th byte would be read, `overflow` when the
 * 19th byte sets any of bits `0b0111_1100` (the value would not fit 128 bits), `unterminated`
 * when the input ends while the high bit still asks for more.
 */
export function decodeVarint(bytes: Uint8Array, offset = 0): { value: bigint; length: number } {
  let value = 0n;
  for (let i = 0; offset + i < bytes.length; i++) {
    if (i >= MAX_VARINT_BYTES) throw new VarintError('overlong');
    const byte = bytes[offset + i]!;
    const group = byte & 0x7f;
    if (i === MAX_VARINT_BYTES - 1 && (group & LAST_BYTE_OVERFLOW_BITS) !== 0) {
      throw new VarintError('overflow');
    }
    value |= BigInt(group) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return { value, length: i + 1 };
  }
  throw new VarintError('unterminated');
}

/** Encodes a u128 as the shortest LEB128 byte string; throws `RangeError` outside u128. */
export function encodeVarint(value: bigint): Uint8Array {
  if (value < 0n || value > U128_MAX) throw new RangeError(`varint out of u128 range: ${value}`);
  const bytes: number[] = [];
  let rest = value;
  while (rest >> 7n > 0n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Uint8Array.from(bytes);
}
