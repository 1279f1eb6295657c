import { DecodeError } from './decode-error';

/** Strict hex → bytes: optional `0x` prefix, even length, hex digits only; otherwise a `DecodeError`. */
export function hexToBytes(hex: string, what = 'hex'): Uint8Array {
  if (typeof hex !== 'string') throw new DecodeError(`${what}: expected a hex string, got ${typeof hex}`);
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  // Node's hex decoding stops at the first pair that is not hex: the full length means every pair was.
  const bytes = Buffer.from(body, 'hex');
  if (body.length % 2 !== 0 || bytes.length * 2 !== body.length) throw new DecodeError(`${what}: not an even-length hex string`);
  return new Uint8Array(bytes);
}

/** Bytes → lower-case hex with a `0x` prefix. */
export function bytesToHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * A bounds-checked big-endian reader over a byte array. Every read past the end throws a `DecodeError` with the
 * offset (unlike `@stacks/transactions`' reader, which silently returns short reads).
 */
export class ByteReader {
  offset = 0;

  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  fail(message: string, offset = this.offset): never {
    throw new DecodeError(`${message} (at byte ${offset})`, { offset });
  }

  private need(n: number, what: string): void {
    if (n > this.remaining) this.fail(`unexpected end of input reading ${what}: need ${n} bytes, have ${this.remaining}`);
  }

  readBytes(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  readHex(n: number, what = 'bytes'): string {
    return bytesToHex(this.readBytes(n, what));
  }

  readU8(what = 'u8'): number {
    this.need(1, what);
    return this.bytes[this.offset++]!;
  }

  readU16(what = 'u16'): number {
    const b = this.readBytes(2, what);
    return (b[0]! << 8) | b[1]!;
  }

  readU32(what = 'u32'): number {
    const b = this.readBytes(4, what);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  readU64(what = 'u64'): bigint {
    return this.readUIntBE(8, what);
  }

  readUIntBE(n: number, what = 'integer'): bigint {
    const b = this.readBytes(n, what);
    let v = 0n;
    for (const byte of b) v = (v << 8n) | BigInt(byte);
    return v;
  }

  /** A string with a 1-byte (or `prefixBytes`-byte) length prefix, decoded as UTF-8. */
  readLengthPrefixedString(what: string, prefixBytes: 1 | 4 = 1): string {
    const len = prefixBytes === 1 ? this.readU8(`${what} length`) : this.readU32(`${what} length`);
    return utf8Decoder.decode(this.readBytes(len, what));
  }

  expectEnd(what: string): void {
    if (this.remaining !== 0) this.fail(`${what}: ${this.remaining} unexpected trailing byte(s)`);
  }
}

export function decodeUtf8Lossy(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}
