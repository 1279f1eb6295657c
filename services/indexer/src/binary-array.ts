/**
 * One-dimensional PostgreSQL arrays in the binary wire format (what `array_send` writes and `array_recv` reads), for
 * array parameters. node-postgres sends a `Buffer` parameter in the binary format, and PostgreSQL then reads every
 * element with its type's receive function: text as its bytes, integers as big-endian words, bytea as raw bytes. The
 * text literal that is the alternative (`{"…","…"}`) has to be quoted and escaped element by element here, bytea
 * doubled in size as hex, the whole string measured and copied once more by node-postgres, and PostgreSQL has to parse
 * it all again, character by character.
 *
 * Only the element types below have an encoder; `encodeBinaryArray` answers `undefined` for any other type, and for
 * any value whose JavaScript type the encoder does not take, so that the caller sends the text literal instead.
 */

/** Type OIDs (`pg_type.oid`, fixed for built-in types). */
export const PG_TYPE = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  json: 114,
  varchar: 1043,
  jsonb: 3802,
} as const;

const ENCODABLE = new Set<number>(Object.values(PG_TYPE));

const INT_RANGE: Record<number, [bigint, bigint]> = {
  [PG_TYPE.int2]: [-(2n ** 15n), 2n ** 15n - 1n],
  [PG_TYPE.int4]: [-(2n ** 31n), 2n ** 31n - 1n],
  [PG_TYPE.int8]: [-(2n ** 63n), 2n ** 63n - 1n],
};
const NUMBER_RANGE: Record<number, [number, number]> = Object.fromEntries(
  Object.entries(INT_RANGE).map(([oid, [min, max]]) => [oid, [Number(min), Number(max)]]),
);
const INT_BYTES: Record<number, number> = { [PG_TYPE.int2]: 2, [PG_TYPE.int4]: 4, [PG_TYPE.int8]: 8 };
const DECIMAL_INTEGER = /^-?\d{1,20}$/;

/**
 * `values` as a binary array of `elementOid`, or `undefined` when the type has no encoder or a value is not one the
 * encoder takes (the caller then sends a text literal, which has the final word on such values). `null` and
 * `undefined` are NULL elements. Taken per type:
 * - text, varchar: strings, and numbers or bigints (as their decimal text);
 * - json, jsonb: strings (already JSON text, sent as they are) and objects or arrays (`JSON.stringify`);
 * - int2, int4, int8: integral numbers, bigints and decimal strings, within the type's range;
 * - bool: booleans; bytea: buffers.
 */
export function encodeBinaryArray(values: readonly unknown[], elementOid: number): Buffer | undefined {
  if (!ENCODABLE.has(elementOid)) return undefined;
  const n = values.length;
  // Room for the header and every length word, plus each element's largest encoding.
  let capacity = 20 + 4 * n;
  let hasNull = 0;
  // Strings to write, where the element is text-like (converted once, here).
  const texts: Array<string | null> | undefined = isTextual(elementOid) ? new Array<string | null>(n) : undefined;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v == null) {
      hasNull = 1;
      if (texts) texts[i] = null;
      continue;
    }
    if (texts) {
      const s = toText(v, elementOid);
      if (s === undefined) return undefined;
      texts[i] = s;
      // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair, 2 units, takes 4); jsonb adds its version byte.
      capacity += 3 * s.length + 1;
    } else if (elementOid === PG_TYPE.bytea) {
      if (!Buffer.isBuffer(v)) return undefined;
      capacity += v.length;
    } else if (elementOid === PG_TYPE.bool) {
      if (typeof v !== 'boolean') return undefined;
      capacity += 1;
    } else {
      if (!isInteger(v, elementOid)) return undefined;
      capacity += 8;
    }
  }
  const buf = Buffer.allocUnsafe(capacity);
  buf.writeInt32BE(n === 0 ? 0 : 1, 0); // dimensions (an empty array has none)
  buf.writeInt32BE(hasNull, 4);
  buf.writeUInt32BE(elementOid, 8);
  let at = 12;
  if (n > 0) {
    buf.writeInt32BE(n, 12); // length of the one dimension
    buf.writeInt32BE(1, 16); // its lower bound
    at = 20;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v == null) {
      putInt32(buf, -1, at);
      at += 4;
      continue;
    }
    if (texts) {
      let start = at + 4;
      if (elementOid === PG_TYPE.jsonb) buf[start++] = 1; // jsonb's binary format version
      const written = buf.write(texts[i]!, start, 'utf8');
      const length = start + written - (at + 4);
      putInt32(buf, length, at);
      at += 4 + length;
    } else if (elementOid === PG_TYPE.bytea) {
      const bytes = v as Buffer;
      putInt32(buf, bytes.length, at);
      bytes.copy(buf, at + 4);
      at += 4 + bytes.length;
    } else if (elementOid === PG_TYPE.bool) {
      putInt32(buf, 1, at);
      buf[at + 4] = v ? 1 : 0;
      at += 5;
    } else {
      const size = INT_BYTES[elementOid]!;
      putInt32(buf, size, at);
      if (size === 8) {
        if (typeof v === 'number') {
          // A safe integer as two 32-bit words; the high one keeps the sign (two's complement).
          const high = Math.floor(v / 0x1_0000_0000);
          putInt32(buf, high, at + 4);
          putInt32(buf, v - high * 0x1_0000_0000, at + 8);
        } else buf.writeBigInt64BE(BigInt(v as bigint | string), at + 4);
      } else if (size === 4) putInt32(buf, Number(v), at + 4);
      else buf.writeInt16BE(Number(v), at + 4);
      at += 4 + size;
    }
  }
  return buf.subarray(0, at);
}

/**
 * A big-endian 32-bit integer at `at`, as four byte stores: `Buffer#writeInt32BE` checks its arguments on every call,
 * which costs more than the write itself in a cold process, where this loop runs interpreted.
 */
function putInt32(buf: Buffer, value: number, at: number): void {
  buf[at] = value >>> 24;
  buf[at + 1] = value >>> 16;
  buf[at + 2] = value >>> 8;
  buf[at + 3] = value;
}

function isTextual(oid: number): boolean {
  return oid === PG_TYPE.text || oid === PG_TYPE.varchar || oid === PG_TYPE.json || oid === PG_TYPE.jsonb;
}

function toText(v: unknown, oid: number): string | undefined {
  if (typeof v === 'string') return v;
  if (oid === PG_TYPE.json || oid === PG_TYPE.jsonb) {
    return typeof v === 'object' && !Buffer.isBuffer(v) && !(v instanceof Date) ? JSON.stringify(v) : undefined;
  }
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return undefined;
}

/** An integral number, bigint or decimal string within the range of `oid`. */
function isInteger(v: unknown, oid: number): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= NUMBER_RANGE[oid]![0] && v <= NUMBER_RANGE[oid]![1];
  const [min, max] = INT_RANGE[oid]!;
  if (typeof v === 'bigint') return v >= min && v <= max;
  if (typeof v === 'string' && DECIMAL_INTEGER.test(v)) {
    const int = BigInt(v);
    return int >= min && int <= max;
  }
  return false;
}
