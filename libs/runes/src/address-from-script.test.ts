import { describe, expect, it } from '@jest/globals';
import { addressFromScript, isOpReturnScript, isP2trScript } from './address-from-script';
import type { Network } from './network';

const script = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const P2PKH = '76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac';
const P2SH = 'a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87';
const P2WPKH = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
const P2WSH = '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262';
const P2TR = '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const P2PK =
  '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac';

describe('addressFromScript', () => {
  it.each<[string, Network, string]>([
    [P2PKH, 'mainnet', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    [P2PKH, 'testnet', 'mpXwg4jMtRhuSpVq4xS3HFHmCmWp9NyGKt'],
    [P2PKH, 'signet', 'mpXwg4jMtRhuSpVq4xS3HFHmCmWp9NyGKt'],
    [P2PKH, 'regtest', 'mpXwg4jMtRhuSpVq4xS3HFHmCmWp9NyGKt'],
    [P2SH, 'mainnet', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    [P2WPKH, 'mainnet', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    [P2WPKH, 'testnet', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    [P2WPKH, 'signet', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    [P2WPKH, 'regtest', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'],
    [P2WSH, 'testnet', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7'],
    [P2TR, 'mainnet', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['6002751e', 'mainnet', 'bc1sw50qgdz25j'],
    ['5210751e76e8199196d454941c45d1b3a323', 'mainnet', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'],
  ])('%s on %s is %s', (hex, network, address) => {
    expect(addressFromScript(script(hex), network)).toBe(address);
  });

  it.each([
    ['P2PK', P2PK],
    ['bare multisig', `5121${'02'.padEnd(66, '1')}51ae`],
    ['OP_RETURN', '6a0461626364'],
    ['runestone', '6a5d00'],
    ['empty script', ''],
    ['witness v0 with a 21-byte program', `0015${'11'.repeat(21)}`],
    ['witness program of 41 bytes', `5129${'11'.repeat(41)}`],
    ['witness program of 1 byte', '510111'],
    ['push length not matching the script', `0014${'11'.repeat(21)}`],
    ['P2PKH with a wrong tail', '76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ad'],
  ])('%s has no address', (_name, hex) => {
    expect(addressFromScript(script(hex), 'mainnet')).toBeNull();
  });

  it('recognizes P2TR and OP_RETURN outputs', () => {
    expect(isP2trScript(script(P2TR))).toBe(true);
    expect(isP2trScript(script(P2WSH))).toBe(false);
    expect(isP2trScript(script('5210751e76e8199196d454941c45d1b3a323'))).toBe(false);
    expect(isOpReturnScript(script('6a'))).toBe(true);
    expect(isOpReturnScript(script(''))).toBe(false);
    expect(isOpReturnScript(script(P2PKH))).toBe(false);
  });
});
