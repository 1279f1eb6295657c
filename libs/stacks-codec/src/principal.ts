import { hash } from 'node:crypto';
import { c32address, c32addressDecode } from 'c32check';
import { DecodeError } from './decode-error';

export type StacksNetworkName = 'mainnet' | 'testnet';

/** c32 address version bytes of standard Stacks addresses. */
export const StacksAddressVersion = {
  MainnetSingleSig: 22, // SP…
  MainnetMultiSig: 20, // SM…
  TestnetSingleSig: 26, // ST…
  TestnetMultiSig: 21, // SN…
} as const;

const VERSION_NETWORK: ReadonlyMap<number, StacksNetworkName> = new Map([
  [StacksAddressVersion.MainnetSingleSig, 'mainnet'],
  [StacksAddressVersion.MainnetMultiSig, 'mainnet'],
  [StacksAddressVersion.TestnetSingleSig, 'testnet'],
  [StacksAddressVersion.TestnetMultiSig, 'testnet'],
]);

// 'S', the version character (P, M, T or N), then Crockford-style c32 digits (no I, L, O, U; upper case only).
const STANDARD_ADDRESS_RE = /^S[PMTN][0-9A-HJKMNP-TV-Z]{20,50}$/;
// Clarity's contract-name rule: a letter, then letters, digits, '-' or '_'; at most 128 bytes on the wire.
const CONTRACT_NAME_RE = /^[a-zA-Z][a-zA-Z0-9_-]*$/;
export const MAX_CONTRACT_NAME_LENGTH = 128;

/**
 * A canonical standard Stacks address: upper-case c32check with a valid checksum, a 20-byte hash and one of the four
 * address versions (SP/SM mainnet, ST/SN testnet). With `network`, the version must also belong to that network.
 *
 * Checked here without c32check's decode-then-encode round trip, whose four SHA-256 in JavaScript were 15 % of the
 * api's CPU on an address lookup: the digits are unpacked into the 24 bytes they stand for (hash and checksum), the
 * spelling is canonical when its leading `0` digits are exactly the payload's leading zero bytes (as c32check writes
 * them, the rest being the payload's value in base 32), and the checksum is two one-shot SHA-256 of node's crypto (`crypto.hash`: no Hash object per round, 2.4 against 3.9 µs
 * for both here). The test
 * compares this with c32check's own round trip on random and mutated addresses.
 */
export function isValidStacksAddress(s: unknown, network?: StacksNetworkName): s is string {
  if (typeof s !== 'string' || !STANDARD_ADDRESS_RE.test(s)) return false;
  const version = C32_DIGIT_VALUE[s.charCodeAt(1)]!;
  const payload = c32PayloadBytes(s, 2);
  if (payload === null) return false;
  const versioned = new Uint8Array(21);
  versioned[0] = version;
  versioned.set(payload.subarray(0, 20), 1);
  const check = hash('sha256', hash('sha256', versioned, 'buffer'), 'buffer');
  if (check[0] !== payload[20] || check[1] !== payload[21] || check[2] !== payload[22] || check[3] !== payload[23]) return false;
  const net = VERSION_NETWORK.get(version);
  return net !== undefined && (network === undefined || net === network);
}

const C32_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Value of each upper-case c32 digit by char code (the address regex has already refused anything else). */
const C32_DIGIT_VALUE: number[] = [];
for (let i = 0; i < C32_ALPHABET.length; i++) C32_DIGIT_VALUE[C32_ALPHABET.charCodeAt(i)] = i;

/**
 * The 24 bytes (hash160 and checksum) that the c32 digits of `s` from `start` spell canonically, or null: a value
 * that does not fit, or a spelling c32check would not write (leading `0` digits other than one per leading zero byte).
 */
function c32PayloadBytes(s: string, start: number): Uint8Array | null {
  let zeros = 0;
  while (start + zeros < s.length && s.charCodeAt(start + zeros) === 48) zeros++;
  const out = new Uint8Array(24);
  let pos = 23;
  let acc = 0;
  let bits = 0;
  for (let i = s.length - 1; i >= start + zeros; i--) {
    acc |= C32_DIGIT_VALUE[s.charCodeAt(i)]! << bits;
    bits += 5;
    if (bits >= 8) {
      if (pos < 0) return null;
      out[pos--] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (acc !== 0) {
    if (pos < 0) return null;
    out[pos--] = acc;
  }
  // Bytes pos+1…23 hold the value without leading zero bytes; the zero digits stand for the zero bytes before it.
  return zeros + (23 - pos) === 24 ? out : null;
}

/** Clarity contract-name rule (`[a-zA-Z][a-zA-Z0-9_-]*`, 1–128 characters). */
export function isValidContractName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= MAX_CONTRACT_NAME_LENGTH && CONTRACT_NAME_RE.test(name);
}

/** A standard principal (`SP…`) or a contract principal (`SP….contract-name`). */
export function isValidPrincipal(s: unknown, network?: StacksNetworkName): s is string {
  if (typeof s !== 'string') return false;
  const dot = s.indexOf('.');
  if (dot === -1) return isValidStacksAddress(s, network);
  return isValidStacksAddress(s.slice(0, dot), network) && isValidContractName(s.slice(dot + 1));
}

/** `true` for `SP….name` contract principals (validity is not checked). */
export function isContractPrincipal(s: string): boolean {
  return s.includes('.');
}

/** The network of a valid principal, or `null` when it is not a valid principal. */
export function principalNetwork(s: unknown): StacksNetworkName | null {
  if (!isValidPrincipal(s)) return null;
  const [version] = c32addressDecode(s.split('.')[0]!);
  return VERSION_NETWORK.get(version) ?? null;
}

/** Decodes a standard address into its version byte and hash160 (hex, no prefix); a `DecodeError` if invalid. */
export function decodeStacksAddress(address: string): { version: number; hash160: string } {
  if (!isValidStacksAddress(address)) throw new DecodeError(`invalid Stacks address: ${JSON.stringify(address)}`);
  const [version, hash160] = c32addressDecode(address);
  return { version, hash160 };
}

/** Encodes a version byte (0–31) and a 20-byte hash into a c32check address; a `DecodeError` if impossible. */
export function encodeStacksAddress(version: number, hash160: Uint8Array | string): string {
  const hex = typeof hash160 === 'string' ? hash160.replace(/^0x/, '') : Buffer.from(hash160).toString('hex');
  if (!Number.isInteger(version) || version < 0 || version >= 32) {
    throw new DecodeError(`address version byte ${version} is out of the c32 range 0–31`);
  }
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) throw new DecodeError('address hash must be 20 bytes');
  const key = `${version}:${hex.toLowerCase()}`;
  let address = addressCache.get(key);
  if (address === undefined) {
    address = c32address(version, hex.toLowerCase());
    // The same senders and recipients come back block after block; c32check hashes twice per encoding.
    if (addressCache.size >= ADDRESS_CACHE_SIZE) addressCache.delete(addressCache.keys().next().value!);
    addressCache.set(key, address);
  }
  return address;
}

const ADDRESS_CACHE_SIZE = 10_000;
/** Oldest-first eviction (insertion order), bounded: at most ~1.5 MB. */
const addressCache = new Map<string, string>();

/** The network a standard address version byte belongs to, or `null` for a non-standard version. */
export function addressVersionNetwork(version: number): StacksNetworkName | null {
  return VERSION_NETWORK.get(version) ?? null;
}
