import { describe, expect, it } from '@jest/globals';
import { formatRuneId, parseRuneId } from './rune-id';
import { decipherRunestone } from './runestone';
import { RunestoneBuilder, pushData } from './runestone-builder';
import { DECODER_CASES, PAYMENT } from './runestone-test-cases';

const outputsOf = (scripts: Uint8Array[]) => scripts.map((script) => ({ script }));

describe('decipherRunestone', () => {
  it.each(DECODER_CASES.map((c) => [c.name, c] as const))('%s', (_name, { outputs, expected }) => {
    expect(decipherRunestone(outputsOf(outputs))).toEqual(expected);
  });

  it('covers every flaw', () => {
    const flaws = new Set(DECODER_CASES.flatMap(({ expected }) => (expected?.type === 'cenotaph' ? [expected.flaw] : [])));
    expect([...flaws].sort()).toEqual([
      'edict-output',
      'edict-rune-id',
      'invalid-script',
      'opcode',
      'supply-overflow',
      'trailing-integers',
      'truncated-field',
      'unrecognized-even-tag',
      'unrecognized-flag',
      'varint',
    ]);
  });

  it('round-trips what the builder writes', () => {
    const script = new RunestoneBuilder()
      .etching({ rune: 99_999_999_999n, spacers: 5, divisibility: 2, symbol: '$', premine: 10n, terms: { amount: 1n, cap: 3n } })
      .edict({ block: 840_001n, tx: 7 }, 4n, 1)
      .edict({ block: 840_000n, tx: 2 }, 0n, 2)
      .edict({ block: 840_000n, tx: 9 }, 1n, 0)
      .build();
    expect(decipherRunestone(outputsOf([script, PAYMENT]))).toEqual({
      type: 'runestone',
      edicts: [
        { id: { block: 840_000n, tx: 2 }, amount: 0n, output: 2 },
        { id: { block: 840_000n, tx: 9 }, amount: 1n, output: 0 },
        { id: { block: 840_001n, tx: 7 }, amount: 4n, output: 1 },
      ],
      etching: {
        rune: 99_999_999_999n,
        spacers: 5,
        divisibility: 2,
        symbol: '$',
        premine: 10n,
        terms: { amount: 1n, cap: 3n },
        turbo: false,
      },
    });
  });

  it('reads a payload larger than one standard push', () => {
    const builder = new RunestoneBuilder();
    for (let tx = 0; tx < 100; tx++) builder.edict({ block: 840_000n, tx }, 1n, 0);
    const script = builder.build();
    expect(script[2]).toBe(0x4d); // OP_PUSHDATA2
    const artifact = decipherRunestone(outputsOf([script, PAYMENT]));
    expect(artifact?.type === 'runestone' && artifact.edicts).toHaveLength(100);
  });
});

describe('pushData', () => {
  it('uses the smallest push opcode', () => {
    expect([...pushData(new Uint8Array(75)).subarray(0, 1)]).toEqual([75]);
    expect([...pushData(new Uint8Array(76)).subarray(0, 2)]).toEqual([0x4c, 76]);
    expect([...pushData(new Uint8Array(256)).subarray(0, 3)]).toEqual([0x4d, 0x00, 0x01]);
    expect([...pushData(new Uint8Array(65_536)).subarray(0, 5)]).toEqual([0x4e, 0x00, 0x00, 0x01, 0x00]);
  });
});

describe('rune ids', () => {
  it('format and parse block:tx', () => {
    expect(formatRuneId({ block: 840_000n, tx: 3 })).toBe('840000:3');
    expect(parseRuneId('840000:3')).toEqual({ block: 840_000n, tx: 3 });
    expect(parseRuneId('18446744073709551615:4294967295')).toEqual({ block: 2n ** 64n - 1n, tx: 4_294_967_295 });
  });

  it.each(['', '1', '1:', ':1', 'a:1', '1:-1', '18446744073709551616:0', '1:4294967296'])('rejects %j', (text) => {
    expect(() => parseRuneId(text)).toThrow(RangeError);
  });
});
