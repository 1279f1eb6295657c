import { describe, expect, it } from '@jest/globals';
import { unixToIso } from './row-values';

const viaDate = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('unixToIso', () => {
  it('writes what Date#toISOString writes for whole seconds across leap years, century rules and day edges', () => {
    const edges = [
      1, 59, 60, 86_399, 86_400, 951_782_400 /* 2000-02-29 */, 951_868_799, 951_868_800, 4_107_456_000 /* 2100-02-28 */,
      4_107_542_400 /* 2100-03-01: not a leap year */, 1_709_164_800 /* 2024-02-29 */, 1_735_689_599, 1_735_689_600,
      253_402_300_799 /* 9999-12-31T23:59:59 */,
    ];
    for (const s of edges) expect(unixToIso(s)).toBe(viaDate(s));
  });

  it('agrees with Date#toISOString on 10,000 random whole seconds up to year 9999', () => {
    let x = 12_345;
    for (let i = 0; i < 10_000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      const s = 1 + Math.floor((x / 2_147_483_648) * 253_402_300_798);
      expect(unixToIso(s)).toBe(viaDate(s));
    }
  });

  it('keeps toISOString for fractions and six-digit years, and answers empty for no time', () => {
    expect(unixToIso(1_700_000_000.25)).toBe('2023-11-14T22:13:20.250Z');
    expect(unixToIso(253_402_300_800)).toBe('+010000-01-01T00:00:00.000Z');
    for (const none of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) expect(unixToIso(none)).toBe('');
  });
});
