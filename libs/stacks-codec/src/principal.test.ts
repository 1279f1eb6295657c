import { randomBytes } from 'node:crypto';
import { c32address, c32addressDecode } from 'c32check';
import { describe, expect, it } from '@jest/globals';
import { DecodeError } from './decode-error';
import {
  decodeStacksAddress,
  encodeStacksAddress,
  isValidContractName,
  isValidPrincipal,
  isValidStacksAddress,
  principalNetwork,
} from './principal';

const SP = 'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9';
const HASH = '5a5c4e68a4fcc8d3ccb7e67fea8ad8ea4633d9da'; // any 20 bytes

describe('isValidPrincipal / isValidStacksAddress', () => {
  const valid: [string, 'mainnet' | 'testnet'][] = [
    [SP, 'mainnet'],
    ['SP000000000000000000002Q6VF78', 'mainnet'],
    ['ST000000000000000000002AMW42H', 'testnet'],
    ['SM2MARAVW6BEJCD13YV2RHGYHQWT7TDDNMNRB1MVT', 'mainnet'],
    ['SN3ZZ8E2MKH6MYV8Z0A19HYF85AQPW47EWWGYQEJ0', 'testnet'],
    ['SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.miamicoin-core-v1', 'mainnet'],
    ['ST000000000000000000002AMW42H.pox-4', 'testnet'],
    [`${SP}.A_b-9`, 'mainnet'],
    [`${SP}.${'a'.repeat(128)}`, 'mainnet'],
  ];
  for (const [p, network] of valid) {
    it(`accepts ${p.slice(0, 60)}`, () => {
      expect(isValidPrincipal(p)).toBe(true);
      expect(isValidPrincipal(p, network)).toBe(true);
      expect(isValidPrincipal(p, network === 'mainnet' ? 'testnet' : 'mainnet')).toBe(false);
      expect(principalNetwork(p)).toBe(network);
      if (!p.includes('.')) expect(isValidStacksAddress(p)).toBe(true);
    });
  }

  const invalid: [string, unknown][] = [
    ['bad checksum', SP.slice(0, -1) + (SP.endsWith('9') ? '8' : '9')],
    ['bad checksum (testnet)', 'ST000000000000000000002AMW42J'],
    ['version byte 0 (S0…)', c32address(0, HASH)],
    ['version byte 10 (SA…)', c32address(10, HASH)],
    ['version byte 31 (SZ…)', c32address(31, HASH)],
    ['lower case', SP.toLowerCase()],
    ['confusable O for 0', 'SP000000000000000000002Q6VF78'.replace(/0/g, 'O')],
    ['too long', SP + 'A'],
    ['too short', 'SP3D5'],
    ['prefix only', 'SP'],
    ['no S', SP.slice(1)],
    ['empty', ''],
    ['not a string', 42],
    ['null', null],
    ['contract name starting with a digit', `${SP}.1abc`],
    ['contract name with a dot', `${SP}.a.b`],
    ['contract name with a space', `${SP}.a b`],
    ['contract name with a non-ASCII letter', `${SP}.caf\u00e9`],
    ['empty contract name', `${SP}.`],
    ['contract name too long', `${SP}.${'a'.repeat(129)}`],
    ['contract on a bad address', `${SP.toLowerCase()}.token`],
    ['leading space', ` ${SP}`],
    ['asset identifier', `${SP}.token::coin`],
  ];
  for (const [name, p] of invalid) {
    it(`rejects ${name}`, () => {
      expect(isValidPrincipal(p)).toBe(false);
      expect(isValidStacksAddress(p)).toBe(false);
      expect(principalNetwork(p)).toBeNull();
    });
  }

  it('contract-name rule', () => {
    expect(isValidContractName('pox-4')).toBe(true);
    expect(isValidContractName('-pox')).toBe(false);
    expect(isValidContractName('_pox')).toBe(false);
    expect(isValidContractName('')).toBe(false);
  });
});

/**
 * The oracle: c32check's own decode-then-encode round trip (what a canonical address is, by the library's definition),
 * restricted to the four standard versions and upper-case digits as `isValidStacksAddress` promises.
 */
function validByC32check(s: string): boolean {
  if (!/^S[PMTN][0-9A-HJKMNP-TV-Z]{20,50}$/.test(s)) return false;
  try {
    const [version, hash] = c32addressDecode(s);
    return hash.length === 40 && c32address(version, hash) === s && [20, 21, 22, 26].includes(version);
  } catch {
    return false;
  }
}

describe('isValidStacksAddress against c32check', () => {
  const C32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  /** Seeded, so that a failure repeats: a 20-byte hash with 0–3 leading zero bytes. */
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const hashes = Array.from({ length: 400 }, (_, i) => {
    const bytes = randomBytes(20);
    for (let z = 0; z < i % 4; z++) bytes[z] = 0;
    return bytes.toString('hex');
  });

  it('accepts every address c32check writes for the four versions, and refuses the other versions', () => {
    for (const hash of hashes) {
      for (const version of [22, 20, 26, 21]) expect(isValidStacksAddress(c32address(version, hash))).toBe(true);
      for (const version of [0, 1, 10, 25, 31]) expect(isValidStacksAddress(c32address(version, hash))).toBe(false);
    }
  });

  it('agrees with c32check on mutated spellings: digits changed, inserted, removed, zero padding', () => {
    let checked = 0;
    let valid = 0;
    for (const hash of hashes) {
      const address = c32address([22, 20, 26, 21][next() % 4]!, hash);
      const at = 2 + (next() % (address.length - 2));
      const digit = C32[next() % 32]!;
      const variants = [
        address.slice(0, at) + digit + address.slice(at + 1),
        address.slice(0, at) + digit + address.slice(at),
        address.slice(0, at) + address.slice(at + 1),
        `${address.slice(0, 2)}0${address.slice(2)}`,
        address.slice(0, 2) + address.slice(2).replace(/^0/, ''),
        address + digit,
      ];
      for (const v of variants) {
        const expected = validByC32check(v);
        expect({ v, valid: isValidStacksAddress(v) }).toEqual({ v, valid: expected });
        checked++;
        if (expected) valid++;
      }
    }
    // The mutations must exercise both answers (an unchanged digit, a removed padding zero of a zero byte…).
    expect(checked).toBe(2400);
    expect(valid).toBeGreaterThan(0);
    expect(valid).toBeLessThan(checked);
  });
});

describe('encodeStacksAddress / decodeStacksAddress', () => {
  it('round-trips', () => {
    const { version, hash160 } = decodeStacksAddress(SP);
    expect(version).toBe(22);
    expect(encodeStacksAddress(version, hash160)).toBe(SP);
    expect(encodeStacksAddress(26, '0x' + hash160)).toMatch(/^ST/);
  });
  it('rejects bad input with DecodeError', () => {
    expect(() => decodeStacksAddress('nope')).toThrow(DecodeError);
    expect(() => encodeStacksAddress(32, HASH)).toThrow(DecodeError);
    expect(() => encodeStacksAddress(22, 'abcd')).toThrow(DecodeError);
  });
});
