import { describe, expect, it } from '@jest/globals';
import { U128_MAX, U32_MAX, U64_MAX } from './integer-limits';
import { NETWORKS, firstRuneHeight } from './network';
import {
  RESERVED_RUNE,
  RuneNameError,
  formatSpacedRune,
  isReservedRune,
  minimumAtHeight,
  parseSpacedRune,
  reservedRune,
  runeCommitment,
  runeFromName,
  runeToName,
} from './rune-name';

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof RuneNameError) return error.reason;
    throw error;
  }
  return 'ok';
};

describe('rune names', () => {
  it.each([
    [0n, 'A'],
    [1n, 'B'],
    [25n, 'Z'],
    [26n, 'AA'],
    [27n, 'AB'],
    [51n, 'AZ'],
    [52n, 'BA'],
    [2055900680524219742n, 'UNCOMMONGOODS'],
    [U128_MAX - 2n, 'BCGDENLQRQWDSLRUGSNLBTMFIJAT'],
    [U128_MAX - 1n, 'BCGDENLQRQWDSLRUGSNLBTMFIJAU'],
    [U128_MAX, 'BCGDENLQRQWDSLRUGSNLBTMFIJAV'],
  ])('%s is %s', (value, name) => {
    expect(runeToName(value)).toBe(name);
    expect(runeFromName(name)).toBe(value);
  });

  it('n A’s follow n-1 Z’s', () => {
    for (let length = 2; length <= 28; length++) {
      expect(runeToName(runeFromName('A'.repeat(length)) - 1n)).toBe('Z'.repeat(length - 1));
    }
  });

  it('rejects names that are empty, not A–Z, or beyond u128', () => {
    expect(reasonOf(() => runeFromName(''))).toBe('empty');
    expect(reasonOf(() => runeFromName('a'))).toBe('character');
    expect(reasonOf(() => runeFromName('A-B'))).toBe('character');
    expect(reasonOf(() => runeFromName('BCGDENLQRQWDSLRUGSNLBTMFIJAW'))).toBe('range');
    expect(reasonOf(() => runeFromName('BCGDENLQRQWDSLRUGSNLBTMFIJAVX'))).toBe('range');
    expect(reasonOf(() => runeFromName('A'.repeat(40)))).toBe('range');
    expect(() => runeToName(U128_MAX + 1n)).toThrow(RangeError);
    expect(() => runeToName(-1n)).toThrow(RangeError);
  });
});

describe('spaced names', () => {
  it('formats spacers after the letters whose bits are set', () => {
    expect(formatSpacedRune({ rune: 2055900680524219742n, spacers: 128 })).toBe('UNCOMMON•GOODS');
    expect(formatSpacedRune({ rune: runeFromName('ABC'), spacers: 0b11 })).toBe('A•B•C');
    expect(formatSpacedRune({ rune: 0n, spacers: 1 })).toBe('A');
    expect(formatSpacedRune({ rune: runeFromName('AB'), spacers: 0b10 })).toBe('AB');
    expect(formatSpacedRune({ rune: U128_MAX, spacers: 0x07ff_ffff })).toBe([...'BCGDENLQRQWDSLRUGSNLBTMFIJAV'].join('•'));
  });

  it.each([
    ['UNCOMMON•GOODS', 2055900680524219742n, 128],
    ['UNCOMMON.GOODS', 2055900680524219742n, 128],
    ['A.B', 27n, 1],
    ['A•B•C', runeFromName('ABC'), 0b11],
    ['A•BC', runeFromName('ABC'), 0b1],
    ['ABC', runeFromName('ABC'), 0],
  ])('parses %s', (text, rune, spacers) => {
    expect(parseSpacedRune(text)).toEqual({ rune, spacers });
  });

  it.each([
    ['.A', 'leading-spacer'],
    ['A..B', 'double-spacer'],
    ['A.•B', 'double-spacer'],
    ['A.', 'trailing-spacer'],
    ['AB•', 'trailing-spacer'],
    ['Ax', 'character'],
    ['', 'empty'],
  ])('rejects %j (%s)', (text, reason) => {
    expect(reasonOf(() => parseSpacedRune(text))).toBe(reason);
  });

  it('max spacers is every gap of the longest name', () => {
    expect(parseSpacedRune([...'BCGDENLQRQWDSLRUGSNLBTMFIJAV'].join('.')).spacers).toBe(0x07ff_ffff);
  });
});

describe('reserved names', () => {
  it('start at 27 A’s', () => {
    expect(RESERVED_RUNE).toBe(6402364363415443603228541259936211926n);
    expect(runeFromName('A'.repeat(27))).toBe(RESERVED_RUNE);
    expect(isReservedRune(runeFromName('Z'.repeat(26)))).toBe(false);
    expect(isReservedRune(RESERVED_RUNE)).toBe(true);
    expect(isReservedRune(U128_MAX)).toBe(true);
  });

  it('are given from block and tx', () => {
    expect(reservedRune(0n, 0)).toBe(RESERVED_RUNE);
    expect(reservedRune(0n, 1)).toBe(RESERVED_RUNE + 1n);
    expect(reservedRune(1n, 0)).toBe(RESERVED_RUNE + (1n << 32n));
    expect(reservedRune(840_000n, 7)).toBe(RESERVED_RUNE + ((840_000n << 32n) | 7n));
    expect(reservedRune(U64_MAX, Number(U32_MAX))).toBe(RESERVED_RUNE + ((U64_MAX << 32n) | U32_MAX));
  });
});

describe('minimumAtHeight', () => {
  const START = 840_000;
  const INTERVAL = 17_500;
  const name = (height: number) => runeToName(minimumAtHeight('mainnet', height));

  it.each([
    [0, 'AAAAAAAAAAAAA'],
    [START - 1, 'AAAAAAAAAAAAA'],
    [START, 'ZZYZXBRKWXVA'],
    [START + 1, 'ZZXZUDIVTVQA'],
    [START + INTERVAL - 1, 'AAAAAAAAAAAA'],
    [START + INTERVAL, 'ZZYZXBRKWXV'],
    [START + INTERVAL + 1, 'ZZXZUDIVTVQ'],
    [START + INTERVAL * 2 - 1, 'AAAAAAAAAAA'],
    [START + INTERVAL * 2, 'ZZYZXBRKWY'],
    [START + INTERVAL * 9, 'ZZZ'],
    [START + INTERVAL * 10 - 2, 'AAC'],
    [START + INTERVAL * 10 - 1, 'AAA'],
    [START + INTERVAL * 10, 'AAA'],
    [START + INTERVAL * 10 + INTERVAL / 2, 'NA'],
    [START + INTERVAL * 11 + INTERVAL / 2, 'N'],
    [START + INTERVAL * 12 - 2, 'B'],
    [START + 209_999, 'A'],
    [START + 210_000, 'A'],
    [10_000_000, 'A'],
  ])('mainnet %i: %s', (height, minimum) => {
    expect(name(height)).toBe(minimum);
  });

  it('falls linearly inside an interval', () => {
    const longer = runeFromName('AAAAAAAAAAAAA');
    const shorter = runeFromName('AAAAAAAAAAAA');
    for (const progress of [1, 100, 8_750, 17_499]) {
      const expected = longer - ((longer - shorter) * BigInt(progress)) / 17_500n;
      expect(minimumAtHeight('mainnet', START + progress - 1)).toBe(expected);
    }
  });

  it('counts from each network’s first rune height', () => {
    expect(firstRuneHeight('testnet')).toBe(2_520_000);
    expect(runeToName(minimumAtHeight('testnet', 2_519_999))).toBe('AAAAAAAAAAAAA');
    expect(runeToName(minimumAtHeight('testnet', 2_520_000))).toBe('ZZYZXBRKWXVA');
    for (const network of ['signet', 'regtest'] as const) {
      expect(firstRuneHeight(network)).toBe(0);
      expect(runeToName(minimumAtHeight(network, 0))).toBe('ZZYZXBRKWXVA');
      expect(runeToName(minimumAtHeight(network, 1))).toBe('ZZXZUDIVTVQA');
    }
    expect(NETWORKS.map(firstRuneHeight)).toEqual([840_000, 2_520_000, 0, 0]);
  });
});

describe('runeCommitment', () => {
  it.each([
    [0n, ''],
    [1n, '01'],
    [255n, 'ff'],
    [256n, '0001'],
    [65_535n, 'ffff'],
    [65_536n, '000001'],
    [U128_MAX, 'ff'.repeat(16)],
  ])('%s commits to %j', (rune, hex) => {
    expect(Buffer.from(runeCommitment(rune)).toString('hex')).toBe(hex);
  });
});
