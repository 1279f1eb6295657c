import { b58ToC32, c32addressDecode } from 'c32check';
import { DecodeError } from './decode-error';

/** PoX reward-address version bytes (the `version` field of the `{ version, hashbytes }` tuple). */
export const PoxAddressVersion = {
  P2PKH: 0x00,
  P2SH: 0x01,
  P2SHP2WPKH: 0x02,
  P2SHP2WSH: 0x03,
  P2WPKH: 0x04,
  P2WSH: 0x05,
  P2TR: 0x06,
} as const;

export interface PoxAddress {
  version: number;
  hashbytes: Uint8Array;
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ BECH32_GENERATORS[i]!) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (const c of hrp) out.push(c.charCodeAt(0) >> 5);
  out.push(0);
  for (const c of hrp) out.push(c.charCodeAt(0) & 31);
  return out;
}

/** Decodes a segwit address (BIP-173 bech32 for v0, BIP-350 bech32m for v1+). */
function decodeSegwit(address: string): { witnessVersion: number; program: Uint8Array } {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) throw new Error('mixed case');
  const s = address.toLowerCase();
  const sep = s.lastIndexOf('1');
  if (sep < 1 || sep + 7 > s.length || s.length > 90) throw new Error('bad bech32 layout');
  const hrp = s.slice(0, sep);
  if (hrp !== 'bc' && hrp !== 'tb' && hrp !== 'bcrt') throw new Error(`unknown human-readable part ${hrp}`);
  const data: number[] = [];
  for (const c of s.slice(sep + 1)) {
    const v = BECH32_CHARSET.indexOf(c);
    if (v === -1) throw new Error(`invalid bech32 character ${c}`);
    data.push(v);
  }
  const check = polymod([...hrpExpand(hrp), ...data]);
  const witnessVersion = data[0]!;
  const expected = witnessVersion === 0 ? BECH32_CONST : BECH32M_CONST;
  if (check !== expected) throw new Error('bad bech32 checksum');
  // 5-bit groups → bytes, no padding allowed beyond 4 zero bits.
  let acc = 0;
  let bits = 0;
  const program: number[] = [];
  for (const v of data.slice(1, -6)) {
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      program.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) throw new Error('bad bech32 padding');
  if (witnessVersion > 16 || program.length < 2 || program.length > 40) throw new Error('bad witness program');
  return { witnessVersion, program: Uint8Array.from(program) };
}

/**
 * Converts a Bitcoin address, as a node prints a PoX reward address (base58check for legacy P2PKH/P2SH, bech32 or
 * bech32m for P2WPKH/P2WSH/P2TR), into the PoX `{ version, hashbytes }` form. A P2SH address maps to version 0x01:
 * the address alone cannot tell P2SH-wrapped segwit (0x02/0x03) apart. Throws a `DecodeError` when invalid.
 */
export function parsePoxAddress(address: string): PoxAddress {
  if (typeof address !== 'string' || address.length === 0) throw new DecodeError('PoX address: empty');
  if (/^(bc|tb|bcrt)1/i.test(address)) {
    let decoded: { witnessVersion: number; program: Uint8Array };
    try {
      decoded = decodeSegwit(address);
    } catch (err) {
      throw new DecodeError(`PoX address ${address}: ${(err as Error).message}`);
    }
    const { witnessVersion, program } = decoded;
    if (witnessVersion === 0 && program.length === 20) return { version: PoxAddressVersion.P2WPKH, hashbytes: program };
    if (witnessVersion === 0 && program.length === 32) return { version: PoxAddressVersion.P2WSH, hashbytes: program };
    if (witnessVersion === 1 && program.length === 32) return { version: PoxAddressVersion.P2TR, hashbytes: program };
    throw new DecodeError(`PoX address ${address}: unsupported witness v${witnessVersion} (${program.length} bytes)`);
  }
  let version: number;
  let hash: string;
  try {
    [version, hash] = c32addressDecode(b58ToC32(address));
  } catch (err) {
    throw new DecodeError(`PoX address ${address}: ${(err as Error).message}`);
  }
  // b58ToC32 maps Bitcoin versions 0/111 to c32 22/26 (P2PKH) and 5/196 to 20/21 (P2SH).
  const poxVersion = version === 22 || version === 26 ? 0x00 : version === 20 || version === 21 ? 0x01 : null;
  if (poxVersion === null) throw new DecodeError(`PoX address ${address}: unknown base58 version`);
  return { version: poxVersion, hashbytes: Uint8Array.from(Buffer.from(hash, 'hex')) };
}
