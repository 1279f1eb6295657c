import { Cl, type ClarityValue, cvToJSON, cvToString, hexToCV, serializeCV } from '@stacks/transactions';
import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { decodeClarityValue, decodeClarityValueList, parseClarityValue } from './clarity-value';
import { DecodeError } from './decode-error';
import { fixtureBlockEvents, fixtureTransactions } from './read-node-events.test-helper';

const hexOf = (cv: ClarityValue) => '0x' + serializeCV(cv);

function fixtureValues(): { where: string; hex: string }[] {
  const out: { where: string; hex: string }[] = [];
  for (const { file, tx } of fixtureTransactions()) {
    if (tx.raw_result) out.push({ where: `${file} ${tx.txid} raw_result`, hex: tx.raw_result });
  }
  for (const { file, event } of fixtureBlockEvents()) {
    const body = event[event.type];
    if (typeof body?.raw_value === 'string') out.push({ where: `${file} ${event.txid} ${event.type}`, hex: body.raw_value });
  }
  return out;
}

describe('decodeClarityValue on the fixtures', () => {
  const values = fixtureValues();

  it('decodes every raw_result and event raw_value', () => {
    expect(values.length).toBeGreaterThan(300);
    const kinds = new Set<string>();
    for (const { where, hex } of values) {
      const d = decodeClarityValue(hex);
      expectMessage(where, () => expect(d.hex).toBe(hex.toLowerCase()));
      expect(d.repr.length).toBeGreaterThan(0);
      kinds.add(d.typeSignature.split(' ')[0]!.replace('(', ''));
    }
    // Results and print events exercise responses, tuples, principals, strings, buffers, optionals and lists.
    for (const k of ['response', 'tuple', 'principal', 'string-ascii', 'optional', 'uint']) expect(kinds).toContain(k);
  });

  it('agrees with cvToString of @stacks/transactions (modulo the quote the reference API puts on principals)', () => {
    for (const { where, hex } of values) {
      const mine = decodeClarityValue(hex).repr.replace(/'(S[0-9A-Z]+)/g, '$1');
      expectMessage(where, () => expect(mine).toBe(cvToString(hexToCV(hex))));
    }
  });

  it('prints fixture values exactly', () => {
    const find = (prefix: string) => values.find((v) => v.hex.startsWith(prefix))!.hex;
    expect(decodeClarityValue(find('0x0c00000004056576656e740d0000001d617070726f766564'))).toMatchObject({
      repr: '(tuple (event "approved-aggregate-public-key") (key 0x02dbfbcd3bdfa62e695dc7a3bf8a0ab37f796398712907e14a6c1298162b657e3d) (reward-cycle u12) (round u1))',
      typeSignature: '(tuple (event (string-ascii 29)) (key (buff 33)) (reward-cycle uint) (round uint))',
    });
    expect(decodeClarityValue('0x0516661506d48705f932af21abcff23046b216886e84')).toEqual({
      hex: '0x0516661506d48705f932af21abcff23046b216886e84',
      repr: "'SP1K1A1PMGW2ZJCNF46NWZWHG8TS1D23EGH1KNK60",
      typeSignature: 'principal',
    });
    expect(decodeClarityValue('0x0a0200000006313031323634')).toMatchObject({
      repr: '(some 0x313031323634)',
      typeSignature: '(optional (buff 6))',
    });
  });
});

describe('decodeClarityValue: repr and type signature', () => {
  const cases: [string, ClarityValue | string, string, string][] = [
    ['ok true', Cl.ok(Cl.bool(true)), '(ok true)', '(response bool UnknownType)'],
    ['err uint', Cl.error(Cl.uint(7)), '(err u7)', '(response UnknownType uint)'],
    ['int min', Cl.int(-(2n ** 127n)), '-170141183460469231731687303715884105728', 'int'],
    ['uint max', Cl.uint(2n ** 128n - 1n), 'u340282366920938463463374607431768211455', 'uint'],
    ['buff', Cl.buffer(Uint8Array.of(0xde, 0xad, 0x00)), '0xdead00', '(buff 3)'],
    ['empty buff', Cl.buffer(new Uint8Array()), '0x', '(buff 0)'],
    ['string-ascii', Cl.stringAscii('hello world'), '"hello world"', '(string-ascii 11)'],
    ['string-ascii escapes', Cl.stringAscii('a"b\\c\n\t\'d'), '"a\\"b\\\\c\\n\\t\\\'d"', '(string-ascii 9)'],
    ['string-ascii control byte', '0x0d000000027f41', '"\\x7fA"', '(string-ascii 2)'],
    ['string-utf8', Cl.stringUtf8('café 😀'), 'u"caf\\u{c3a9} \\u{f09f9880}"', '(string-utf8 24)'],
    [
      'standard principal',
      Cl.principal('SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9'),
      "'SP3D5EHK8SMJ3MMJWYCAKWJ2H4F1JQX85E33ZJDB9",
      'principal',
    ],
    [
      'contract principal',
      Cl.principal('SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.miamicoin-core-v1'),
      "'SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.miamicoin-core-v1",
      'principal',
    ],
    ['list', Cl.list([Cl.uint(1), Cl.uint(2), Cl.uint(3)]), '(list u1 u2 u3)', '(list 3 uint)'],
    ['empty list', Cl.list([]), '(list)', '(list 0 UnknownType)'],
    [
      'list takes the first element type',
      Cl.list([Cl.none(), Cl.some(Cl.int(1))]),
      '(list none (some 1))',
      '(list 2 (optional UnknownType))',
    ],
    ['none', Cl.none(), 'none', '(optional UnknownType)'],
    ['some', Cl.some(Cl.int(-5)), '(some -5)', '(optional int)'],
    [
      'tuple',
      Cl.tuple({ b: Cl.bool(false), a: Cl.list([Cl.stringAscii('x')]) }),
      '(tuple (a (list "x")) (b false))',
      '(tuple (a (list 1 (string-ascii 1))) (b bool))',
    ],
    // Keys out of order on the wire are printed sorted, as Clarity orders them.
    ['unsorted tuple keys', '0x0c00000002016203016104', '(tuple (a false) (b true))', '(tuple (a bool) (b bool))'],
  ];
  for (const [name, value, repr, typeSignature] of cases) {
    it(name, () => {
      const hex = typeof value === 'string' ? value : hexOf(value);
      expect(decodeClarityValue(hex)).toEqual({ hex, repr, typeSignature });
    });
  }

  it('accepts hex without 0x and upper case, normalizing the returned hex', () => {
    expect(decodeClarityValue('0703')).toEqual({
      hex: '0x0703',
      repr: '(ok true)',
      typeSignature: '(response bool UnknownType)',
    });
    expect(decodeClarityValue('0A01' + '00'.repeat(15) + '2A')).toEqual({
      hex: '0x0a01' + '00'.repeat(15) + '2a',
      repr: '(some u42)',
      typeSignature: '(optional uint)',
    });
  });

  it('adds cvToJSON output on request', () => {
    const hex = hexOf(Cl.ok(Cl.tuple({ a: Cl.uint(1) })));
    expect(decodeClarityValue(hex).json).toBeUndefined();
    expect(decodeClarityValue(hex, { json: true }).json).toEqual(cvToJSON(hexToCV(hex)));
  });

  it('decodes an argument list (u32 count + values)', () => {
    const list = '0x00000002' + serializeCV(Cl.uint(5)) + serializeCV(Cl.stringAscii('hi'));
    expect(decodeClarityValueList(list).map((v) => v.repr)).toEqual(['u5', '"hi"']);
    expect(() => decodeClarityValueList('0x00000003' + serializeCV(Cl.uint(5)))).toThrow(DecodeError);
  });

  it('exposes the parsed tree', () => {
    expect(parseClarityValue(hexOf(Cl.some(Cl.uint(9))))).toEqual({ type: 'optional', value: { type: 'uint', value: 9n } });
  });
});

describe('decodeClarityValue on malformed input', () => {
  const hash = '00'.repeat(20);
  const bad: [string, string, RegExp][] = [
    ['empty', '0x', /empty/],
    ['not hex', '0xzz', /hex/],
    ['odd length', '0x070', /hex/],
    ['truncated response', '0x07', /unexpected end/],
    ['truncated uint', '0x0100000000', /unexpected end/],
    ['truncated string', '0x0d0000000561', /unexpected end/],
    ['trailing bytes', '0x0703ff', /trailing/],
    ['unknown prefix', '0x0f', /unknown Clarity type prefix 0x0f/],
    ['too deep', '0x' + '0a'.repeat(100) + '03', /nested deeper/],
    ['impossible list length', '0x0bffffffff03', /list length/],
    ['bad principal version', '0x05ff' + hash, /not a valid c32 version/],
    ['bad contract name', '0x0616' + hash + '03' + Buffer.from('1ab').toString('hex'), /invalid contract name/],
    ['duplicate tuple key', '0x0c00000002016103016104', /duplicate tuple key/],
    ['bad tuple key', '0x0c0000000101' + '20' + '03', /invalid tuple key/],
  ];
  for (const [name, hex, message] of bad) {
    it(name, () => {
      expect(() => decodeClarityValue(hex)).toThrow(DecodeError);
      expect(() => decodeClarityValue(hex)).toThrow(message);
    });
  }

  it('only ever throws DecodeError on garbage', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 3000; i++) {
      const len = 1 + Math.floor(rand() * 60);
      const bytes = Buffer.from(Array.from({ length: len }, () => Math.floor(rand() * (i % 3 === 0 ? 16 : 256))));
      try {
        decodeClarityValue(bytes.toString('hex'));
      } catch (err) {
        expect(err).toBeInstanceOf(DecodeError);
      }
    }
  });
});
