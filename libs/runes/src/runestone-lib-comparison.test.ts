/**
 * How `@magiceden-oss/runestone-lib` (1.0.2) decodes our decoder table (see ADR 0003). Both
 * results are reduced to what both libraries can express: the lib reports every flaw (we compare
 * its first, ord keeps only the first) and returns spacers only inside a rune name.
 */
import { type Cenotaph as LibCenotaph, type RunestoneSpec, isRunestone, tryDecodeRunestone } from '@magiceden-oss/runestone-lib';
import { describe, expect, it } from '@jest/globals';
import { formatRuneId } from './rune-id';
import { formatSpacedRune, runeToName } from './rune-name';
import { type Artifact, decipherRunestone } from './runestone';
import { DECODER_CASES } from './runestone-test-cases';

type Comparable = Record<string, unknown> | null;

function fromOurs(artifact: Artifact | null): Comparable {
  if (!artifact) return null;
  if (artifact.type === 'cenotaph') {
    return {
      flaw: artifact.flaw,
      etching: artifact.etching === undefined ? undefined : runeToName(artifact.etching),
      mint: artifact.mint && formatRuneId(artifact.mint),
    };
  }
  const { etching } = artifact;
  return {
    edicts: artifact.edicts.map(({ id, amount, output }) => `${formatRuneId(id)} ${amount} ${output}`),
    etching: etching && {
      name: etching.rune === undefined ? undefined : formatSpacedRune({ rune: etching.rune, spacers: etching.spacers ?? 0 }),
      divisibility: etching.divisibility,
      premine: etching.premine,
      symbol: etching.symbol,
      terms: etching.terms && {
        amount: etching.terms.amount,
        cap: etching.terms.cap,
        heightStart: etching.terms.heightStart,
        heightEnd: etching.terms.heightEnd,
        offsetStart: etching.terms.offsetStart,
        offsetEnd: etching.terms.offsetEnd,
      },
      turbo: etching.turbo,
    },
    mint: artifact.mint && formatRuneId(artifact.mint),
    pointer: artifact.pointer,
  };
}

function fromLib(result: RunestoneSpec | LibCenotaph | null): Comparable {
  if (!result) return null;
  const mint = result.mint && formatRuneId(result.mint);
  if (!isRunestone(result)) {
    return { flaw: result.flaws[0]?.replaceAll('_', '-'), etching: result.etching, mint };
  }
  const { etching } = result;
  const terms = etching?.terms;
  return {
    edicts: (result.edicts ?? []).map(({ id, amount, output }) => `${formatRuneId(id)} ${amount} ${output}`),
    etching: etching && {
      name: etching.runeName,
      divisibility: etching.divisibility,
      premine: etching.premine,
      symbol: etching.symbol,
      terms: terms && {
        amount: terms.amount,
        cap: terms.cap,
        heightStart: terms.height?.start,
        heightEnd: terms.height?.end,
        offsetStart: terms.offset?.start,
        offsetEnd: terms.offset?.end,
      },
      turbo: etching.turbo,
    },
    mint,
    pointer: result.pointer,
  };
}

/** Canonical text: bigints as strings, absent fields dropped. */
const canonical = (value: Comparable) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

function libDecode(outputs: Uint8Array[]): Comparable | 'threw' {
  try {
    return fromLib(tryDecodeRunestone({ vout: outputs.map((s) => ({ scriptPubKey: { hex: Buffer.from(s).toString('hex') } })) }));
  } catch {
    return 'threw';
  }
}

/**
 * Where the lib and ord disagree:
 * - every etching comes back with `turbo: true` (the lib takes the turbo bit from the etching flag);
 * - a surrogate code point (U+D800) is accepted as a symbol, ord drops it.
 */
const KNOWN_DIFFERENCES = [
  '19-byte varint: u128::MAX name',
  'etching flag alone',
  'terms flag with etching',
  'divisibility 38',
  'divisibility 39 is dropped',
  'divisibility beyond u8 is dropped',
  'second divisibility is ignored',
  'spacers 0x07FFFFFF',
  'spacers 0x08000000 are dropped',
  'symbol in the BMP',
  'symbol outside the BMP',
  'symbol U+10FFFF',
  'symbol U+0000',
  'surrogate symbol is dropped',
  'symbol beyond U+10FFFF is dropped',
  'symbol beyond u32 is dropped',
  'rune u128::MAX',
  'premine u128::MAX',
  'cap u128::MAX × amount 1',
  'height start u64::MAX',
  'terms with offsets only',
  'fields before the body, edicts after',
];

describe('@magiceden-oss/runestone-lib against the decoder table', () => {
  const results = DECODER_CASES.map(({ name, outputs, expected }) => ({
    name,
    ours: canonical(fromOurs(expected)),
    lib: libDecode(outputs),
  }));

  it('our decoder produces the table', () => {
    for (const { outputs, expected } of DECODER_CASES) {
      expect(canonical(fromOurs(decipherRunestone(outputs.map((script) => ({ script })))))).toBe(canonical(fromOurs(expected)));
    }
  });

  it('the lib matches ord on all but the known differences', () => {
    const differing = results.filter(({ ours, lib }) => lib === 'threw' || canonical(lib) !== ours).map(({ name }) => name);
    expect(differing).toEqual(KNOWN_DIFFERENCES);
    expect(DECODER_CASES).toHaveLength(117);
    expect(results.length - differing.length).toBe(95);
  });

  it('the lib reports turbo for an etching without the turbo flag', () => {
    const etching = DECODER_CASES.find(({ name }) => name === 'etching flag alone')!;
    expect(libDecode(etching.outputs)).toMatchObject({ etching: { turbo: true } });
    expect(decipherRunestone(etching.outputs.map((script) => ({ script })))).toMatchObject({ etching: { turbo: false } });
  });

  it('the lib accepts a surrogate symbol', () => {
    const surrogate = DECODER_CASES.find(({ name }) => name === 'surrogate symbol is dropped')!;
    expect(libDecode(surrogate.outputs)).toMatchObject({ etching: { symbol: '\ud800' } });
  });

  it('with turbo and the surrogate set aside, every case matches', () => {
    const withoutTurbo = (text: string) => text.replace(/"turbo":(true|false)/, '"turbo":null');
    const differing = results.filter(({ ours, lib }) => lib === 'threw' || withoutTurbo(canonical(lib)) !== withoutTurbo(ours));
    expect(differing.map(({ name }) => name)).toEqual(['surrogate symbol is dropped']);
  });
});
