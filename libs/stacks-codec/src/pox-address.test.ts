import { describe, expect, it } from '@jest/globals';
import { DecodeError } from './decode-error';
import { parsePoxAddress } from './pox-address';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('parsePoxAddress', () => {
  const cases: [string, number, string][] = [
    // base58check (hashes checked against an independent base58 decoder)
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 0x00, '62e907b15cbf27d5425399ebf6f0fb50ebb88f18'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 0x01, 'b472a266d0bd89c13706a4132ccfb16f7c3b9fcb'],
    ['mxXw9bceXuFB6HZjqriS527kTqt5H9VczT', 0x00, 'baa9990ac0b535dd6fafb334cea25792cda92151'],
    ['2N2JD6wb56AfK4tfmM6PwdVmoYk2dCKf4Br', 0x01, '6349a418fc4578d10a372b54b45c280cc8c4382f'],
    // BIP-173 / BIP-350 test vectors
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 0x04, '751e76e8199196d454941c45d1b3a323f1433bd6'],
    [
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      0x05,
      '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    ],
    [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      0x06,
      '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    ],
  ];
  for (const [address, version, hashbytes] of cases) {
    it(address, () => {
      const got = parsePoxAddress(address);
      expect({ version: got.version, hashbytes: hex(got.hashbytes) }).toEqual({ version, hashbytes });
    });
  }

  it('decodes the taproot address from the node documentation', () => {
    const got = parsePoxAddress('tb1pf4x64urhdsdmadxxhv2wwjv6e3evy59auu2xaauu3vz3adxtskfschm453');
    expect(got.version).toBe(0x06);
    expect(got.hashbytes.length).toBe(32);
  });

  const invalid = [
    '',
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', // checksum
    'bc1QW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // mixed case
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', // v1 with a bech32 (not bech32m) checksum
    '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', // base58 checksum
    'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9',
    'not an address',
  ];
  for (const address of invalid) {
    it(`rejects ${JSON.stringify(address)}`, () => {
      expect(() => parsePoxAddress(address)).toThrow(DecodeError);
    });
  }
});
