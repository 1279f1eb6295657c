import { createHash } from 'node:crypto';
import { encodeStacksAddress, isValidStacksAddress } from '@bda/stacks-codec';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bitcoin base58check version byte → Stacks address version (c32): p2pkh and p2sh, mainnet and testnet. */
const STACKS_VERSION_OF: ReadonlyMap<number, number> = new Map([
  [0x00, 22], // 1… → SP…
  [0x05, 20], // 3… → SM…
  [0x6f, 26], // m…/n… → ST…
  [0xc4, 21], // 2… → SN…
]);

function base58Decode(s: string): Buffer | null {
  let n = 0n;
  for (const ch of s) {
    const d = BASE58.indexOf(ch);
    if (d < 0) return null;
    n = n * 58n + BigInt(d);
  }
  let hex = n === 0n ? '' : n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let zeros = 0;
  while (zeros < s.length && s[zeros] === '1') zeros += 1;
  return Buffer.concat([Buffer.alloc(zeros), Buffer.from(hex, 'hex')]);
}

/**
 * The Stacks form of a Stacks 1.0 owner address: a base58check Bitcoin address (p2pkh or p2sh) becomes the c32
 * address of the same hash160 (as the genesis import carried names into Stacks 2.0); a valid Stacks address is kept.
 * Null when it is neither.
 */
export function toStacksAddress(address: string): string | null {
  if (isValidStacksAddress(address)) return address;
  const bytes = base58Decode(address);
  if (!bytes || bytes.length !== 25) return null;
  const payload = bytes.subarray(0, 21);
  const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
  if (!check.equals(bytes.subarray(21))) return null;
  const version = STACKS_VERSION_OF.get(payload[0]!);
  if (version === undefined) return null;
  return encodeStacksAddress(version, payload.subarray(1));
}
