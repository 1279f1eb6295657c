import { cvToJSON, hexToCV } from '@stacks/transactions';
import { ByteReader, bytesToHex, decodeUtf8Lossy, hexToBytes } from './byte-reader';
import { DecodeError, asDecodeError } from './decode-error';
import { encodeStacksAddress, isValidContractName } from './principal';

/**
 * A deserialized Clarity value. Byte-valued variants keep the raw bytes so that printing is exact (string-ascii and
 * string-utf8 are not re-encoded). Tuple entries are sorted by name, as Clarity orders them.
 */
export type ClarityNode =
  | { type: 'int'; value: bigint }
  | { type: 'uint'; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'buffer'; bytes: Uint8Array }
  | { type: 'string-ascii'; bytes: Uint8Array }
  | { type: 'string-utf8'; bytes: Uint8Array }
  | { type: 'principal'; address: string; contractName: string | null }
  | { type: 'optional'; value: ClarityNode | null }
  | { type: 'response'; ok: boolean; value: ClarityNode }
  | { type: 'list'; items: ClarityNode[] }
  | { type: 'tuple'; entries: [string, ClarityNode][] };

/** JSON-friendly view of a Clarity value, shaped like the reference API's `{ hex, repr }` plus its type. */
export interface DecodedClarityValue {
  /** `0x`-prefixed lower-case hex of the value's consensus serialization. */
  hex: string;
  /** Clarity literal, e.g. `(ok (tuple (a 1) (b u2)))`, `'SP….name`, `u"caf\u{c3a9}"`. */
  repr: string;
  /** Type of this value as the reference API prints it, e.g. `(response bool UnknownType)`, `(buff 3)`. */
  typeSignature: string;
  /** `cvToJSON` of `@stacks/transactions`, only when asked for (`{ json: true }`). */
  json?: unknown;
}

export const ClarityTypePrefix = {
  Int: 0x00,
  UInt: 0x01,
  Buffer: 0x02,
  BoolTrue: 0x03,
  BoolFalse: 0x04,
  PrincipalStandard: 0x05,
  PrincipalContract: 0x06,
  ResponseOk: 0x07,
  ResponseErr: 0x08,
  OptionalNone: 0x09,
  OptionalSome: 0x0a,
  List: 0x0b,
  Tuple: 0x0c,
  StringASCII: 0x0d,
  StringUTF8: 0x0e,
} as const;

/** Deeper nesting than Clarity allows (32); enough headroom, and a guard against stack exhaustion on garbage. */
const MAX_DEPTH = 64;
const CLARITY_NAME_RE = /^(?:[a-zA-Z][a-zA-Z0-9_!?+<>=/*-]*|[-+=/*]|[<>]=?)$/;

/** Clarity's name rule (tuple keys, function and asset names). */
export function isValidClarityName(name: string): boolean {
  return name.length <= 128 && CLARITY_NAME_RE.test(name);
}

/** Reads a 1-byte length-prefixed contract name and checks Clarity's contract-name rule. */
export function readContractName(r: ByteReader, what: string): string {
  const start = r.offset;
  const name = r.readLengthPrefixedString(what);
  if (!isValidContractName(name) && name !== '__transient') r.fail(`invalid ${what} ${JSON.stringify(name)}`, start);
  return name;
}

/** Reads a 1-byte length-prefixed Clarity name (function, asset or tuple-key name). */
export function readClarityName(r: ByteReader, what: string): string {
  const start = r.offset;
  const name = r.readLengthPrefixedString(what);
  if (!isValidClarityName(name)) r.fail(`invalid ${what} ${JSON.stringify(name)}`, start);
  return name;
}

/** Reads a principal serialized as a Clarity value (prefix 0x05 or 0x06) and returns `SP…` or `SP….name`. */
export function readPrincipalValue(r: ByteReader, what: string): string {
  const start = r.offset;
  const node = readClarityValue(r);
  if (node.type !== 'principal') r.fail(`${what}: expected a principal, got ${node.type}`, start);
  return principalString(node);
}

export function principalString(node: Extract<ClarityNode, { type: 'principal' }>): string {
  return node.contractName === null ? node.address : `${node.address}.${node.contractName}`;
}

/** Reads an address as `version (1) + hash160 (20)` and encodes it as c32. */
export function readAddress(r: ByteReader, what: string): string {
  const start = r.offset;
  const version = r.readU8(`${what} version`);
  const hash = r.readBytes(20, `${what} hash`);
  if (version >= 32) r.fail(`${what}: address version ${version} is not a valid c32 version`, start);
  return encodeStacksAddress(version, hash);
}

/** Reads one consensus-serialized Clarity value from `r`, bounds-checked. */
export function readClarityValue(r: ByteReader, depth = 0): ClarityNode {
  if (depth > MAX_DEPTH) r.fail(`Clarity value nested deeper than ${MAX_DEPTH}`);
  const start = r.offset;
  const prefix = r.readU8('Clarity type prefix');
  switch (prefix) {
    case ClarityTypePrefix.Int:
      return { type: 'int', value: BigInt.asIntN(128, r.readUIntBE(16, 'int')) };
    case ClarityTypePrefix.UInt:
      return { type: 'uint', value: r.readUIntBE(16, 'uint') };
    case ClarityTypePrefix.Buffer:
      return { type: 'buffer', bytes: r.readBytes(r.readU32('buffer length'), 'buffer') };
    case ClarityTypePrefix.BoolTrue:
      return { type: 'bool', value: true };
    case ClarityTypePrefix.BoolFalse:
      return { type: 'bool', value: false };
    case ClarityTypePrefix.PrincipalStandard:
      return { type: 'principal', address: readAddress(r, 'principal'), contractName: null };
    case ClarityTypePrefix.PrincipalContract: {
      const address = readAddress(r, 'contract principal');
      return { type: 'principal', address, contractName: readContractName(r, 'contract name') };
    }
    case ClarityTypePrefix.ResponseOk:
    case ClarityTypePrefix.ResponseErr:
      return {
        type: 'response',
        ok: prefix === ClarityTypePrefix.ResponseOk,
        value: readClarityValue(r, depth + 1),
      };
    case ClarityTypePrefix.OptionalNone:
      return { type: 'optional', value: null };
    case ClarityTypePrefix.OptionalSome:
      return { type: 'optional', value: readClarityValue(r, depth + 1) };
    case ClarityTypePrefix.List: {
      const count = r.readU32('list length');
      // Every element takes at least one byte: reject impossible lengths before looping.
      if (count > r.remaining) r.fail(`list length ${count} exceeds the ${r.remaining} remaining bytes`);
      const items: ClarityNode[] = [];
      for (let i = 0; i < count; i++) items.push(readClarityValue(r, depth + 1));
      return { type: 'list', items };
    }
    case ClarityTypePrefix.Tuple: {
      const count = r.readU32('tuple length');
      if (count * 3 > r.remaining) r.fail(`tuple length ${count} exceeds the ${r.remaining} remaining bytes`);
      const entries: [string, ClarityNode][] = [];
      const names = new Set<string>();
      for (let i = 0; i < count; i++) {
        const nameAt = r.offset;
        const name = readClarityName(r, 'tuple key');
        if (names.has(name)) r.fail(`duplicate tuple key ${JSON.stringify(name)}`, nameAt);
        names.add(name);
        entries.push([name, readClarityValue(r, depth + 1)]);
      }
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return { type: 'tuple', entries };
    }
    case ClarityTypePrefix.StringASCII:
      return { type: 'string-ascii', bytes: r.readBytes(r.readU32('string-ascii length'), 'string-ascii') };
    case ClarityTypePrefix.StringUTF8:
      return { type: 'string-utf8', bytes: r.readBytes(r.readU32('string-utf8 length'), 'string-utf8') };
    default:
      return r.fail(`unknown Clarity type prefix 0x${prefix.toString(16).padStart(2, '0')}`, start);
  }
}

/** Parses a whole hex (or byte) string as exactly one Clarity value; trailing bytes are an error. */
export function parseClarityValue(input: string | Uint8Array): ClarityNode {
  const bytes = typeof input === 'string' ? hexToBytes(input, 'Clarity value') : input;
  const r = new ByteReader(bytes);
  if (bytes.length === 0) throw new DecodeError('Clarity value: empty input');
  const node = readClarityValue(r);
  r.expectEnd('Clarity value');
  return node;
}

// Rust's `u8::escape_default`, which the reference API's printer applies to each string byte.
function escapeAsciiByte(b: number): string {
  switch (b) {
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x22:
      return '\\"';
    case 0x27:
      return "\\'";
    case 0x5c:
      return '\\\\';
    default:
      return b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '\\x' + b.toString(16).padStart(2, '0');
  }
}

const utf8Encoder = new TextEncoder();

/** Characters of a string-utf8 value (invalid sequences become U+FFFD, like the node's lossy decoding). */
function utf8Chars(bytes: Uint8Array): string[] {
  return Array.from(decodeUtf8Lossy(bytes));
}

/** Clarity literal for a value, as the reference API prints `repr`. */
export function clarityRepr(node: ClarityNode): string {
  switch (node.type) {
    case 'int':
      return node.value.toString();
    case 'uint':
      return `u${node.value.toString()}`;
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'buffer':
      return bytesToHex(node.bytes);
    case 'string-ascii': {
      let s = '"';
      for (const b of node.bytes) s += escapeAsciiByte(b);
      return s + '"';
    }
    case 'string-utf8': {
      let s = 'u"';
      for (const ch of utf8Chars(node.bytes)) {
        const cp = ch.codePointAt(0)!;
        s += cp < 0x80 ? escapeAsciiByte(cp) : `\\u{${Buffer.from(utf8Encoder.encode(ch)).toString('hex')}}`;
      }
      return s + '"';
    }
    case 'principal':
      return `'${principalString(node)}`;
    case 'optional':
      return node.value === null ? 'none' : `(some ${clarityRepr(node.value)})`;
    case 'response':
      return `(${node.ok ? 'ok' : 'err'} ${clarityRepr(node.value)})`;
    case 'list':
      return `(list${node.items.map((v) => ' ' + clarityRepr(v)).join('')})`;
    case 'tuple':
      return `(tuple${node.entries.map(([k, v]) => ` (${k} ${clarityRepr(v)})`).join('')})`;
  }
}

/**
 * Type of a value as the reference API prints `type_signature`: lengths are the value's own (a 3-byte buffer is
 * `(buff 3)`, a string-utf8 is 4 bytes per character), a list takes its first element's type, and the unknown side of
 * a response or a `none` is `UnknownType`.
 */
export function clarityTypeSignature(node: ClarityNode): string {
  switch (node.type) {
    case 'int':
    case 'uint':
    case 'bool':
    case 'principal':
      return node.type;
    case 'buffer':
      return `(buff ${node.bytes.length})`;
    case 'string-ascii':
      return `(string-ascii ${node.bytes.length})`;
    case 'string-utf8':
      return `(string-utf8 ${utf8Chars(node.bytes).length * 4})`;
    case 'optional':
      return `(optional ${node.value === null ? 'UnknownType' : clarityTypeSignature(node.value)})`;
    case 'response':
      return node.ok
        ? `(response ${clarityTypeSignature(node.value)} UnknownType)`
        : `(response UnknownType ${clarityTypeSignature(node.value)})`;
    case 'list':
      return `(list ${node.items.length} ${node.items[0] ? clarityTypeSignature(node.items[0]) : 'UnknownType'})`;
    case 'tuple':
      return `(tuple${node.entries.map(([k, v]) => ` (${k} ${clarityTypeSignature(v)})`).join('')})`;
  }
}

function describe(bytes: Uint8Array, node: ClarityNode, json: boolean): DecodedClarityValue {
  const hex = bytesToHex(bytes);
  const out: DecodedClarityValue = { hex, repr: clarityRepr(node), typeSignature: clarityTypeSignature(node) };
  if (json) out.json = asDecodeError('Clarity value to JSON', () => cvToJSON(hexToCV(hex.slice(2))));
  return out;
}

/**
 * Decodes a hex-serialized Clarity value (`raw_result`, an event's `raw_value`, a function argument).
 * Throws a `DecodeError` (an `Error`) with the offending byte offset on malformed input.
 */
export function decodeClarityValue(hex: string, options?: { json?: boolean }): DecodedClarityValue {
  const bytes = hexToBytes(hex, 'Clarity value');
  return describe(bytes, parseClarityValue(bytes), options?.json ?? false);
}

/** Reads one value from `r` and describes it (used for function arguments and NFT post-condition values). */
export function readDecodedClarityValue(r: ByteReader): DecodedClarityValue {
  const start = r.offset;
  const node = readClarityValue(r);
  return describe(r.bytes.subarray(start, r.offset), node, false);
}

/** Decodes a `u32 count` + values list (the serialization of contract-call arguments). */
export function decodeClarityValueList(hex: string): DecodedClarityValue[] {
  const r = new ByteReader(hexToBytes(hex, 'Clarity value list'));
  const count = r.readU32('value count');
  if (count > r.remaining) r.fail(`value count ${count} exceeds the ${r.remaining} remaining bytes`);
  const out: DecodedClarityValue[] = [];
  for (let i = 0; i < count; i++) out.push(readDecodedClarityValue(r));
  r.expectEnd('Clarity value list');
  return out;
}
