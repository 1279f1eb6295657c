import { describe, expect, it } from '@jest/globals';
import { InputError } from '@bda/common';
import {
  parseCursorPage,
  parseHeightOrHash,
  parsePage,
  parsePrincipal,
  parseTxId,
  queryBoolean,
  queryInt,
  queryString,
} from './params';

const limits = { default: 20, max: 50 };

describe('parsePage', () => {
  it('applies the defaults when limit and offset are absent', () => {
    expect(parsePage({}, limits)).toEqual({ limit: 20, offset: 0 });
  });

  it('accepts integers in range, including the bounds', () => {
    expect(parsePage({ limit: '1', offset: '0' }, limits)).toEqual({ limit: 1, offset: 0 });
    expect(parsePage({ limit: '50', offset: '2147483647' }, limits)).toEqual({ limit: 50, offset: 2147483647 });
    expect(parsePage({ limit: '007' }, limits)).toEqual({ limit: 7, offset: 0 });
  });

  it.each(['abc', '1.5', '-1', '0', '51', '999', '', ' 5', '5 ', '+5', '1e1', '0x10', '５'])(
    'rejects limit=%j naming the parameter',
    (value) => {
      expect(() => parsePage({ limit: value }, limits)).toThrow(InputError);
      expect(() => parsePage({ limit: value }, limits)).toThrow(/^query parameter limit: must be an integer from 1 to 50/);
    },
  );

  it.each(['-1', 'x', '1.0', '2147483648', '99999999999999999999'])('rejects offset=%j naming the parameter', (value) => {
    expect(() => parsePage({ offset: value }, limits)).toThrow(/^query parameter offset: /);
  });

  it('takes limit=0 for the default page on the chain endpoints, as the reference API does, and nowhere else', () => {
    const chain = { zeroMeansDefault: true };
    expect(parsePage({ limit: '0' }, limits, chain)).toEqual({ limit: 20, offset: 0 });
    expect(parsePage({ limit: '00', offset: '3' }, limits, chain)).toEqual({ limit: 20, offset: 3 });
    expect(parsePage({ limit: '50' }, limits, chain)).toEqual({ limit: 50, offset: 0 });
    for (const value of ['-1', '51', 'x'])
      expect(() => parsePage({ limit: value }, limits, chain)).toThrow(/^query parameter limit: must be an integer from 0 to 50/);
    expect(() => parsePage({ limit: '0' }, limits)).toThrow(/^query parameter limit: must be an integer from 1 to 50/);
  });

  it('rejects a repeated parameter', () => {
    expect(() => parsePage({ limit: ['1', '2'] }, limits)).toThrow('query parameter limit: given more than once');
  });

  it('uses the names it is given', () => {
    expect(parsePage({ event_limit: '3', event_offset: '4' }, limits, { limit: 'event_limit', offset: 'event_offset' })).toEqual({
      limit: 3,
      offset: 4,
    });
    expect(() => parsePage({ event_limit: '0' }, limits, { limit: 'event_limit', offset: 'event_offset' })).toThrow(
      /^query parameter event_limit: /,
    );
  });
});

describe('queryString and queryInt', () => {
  it('rejects structured values', () => {
    expect(() => queryString({ a: { b: '1' } }, 'a')).toThrow('query parameter a: must be a single value');
  });

  it('returns the default when absent', () => {
    expect(queryInt({}, 'n', { default: 5, min: 0, max: 9 })).toBe(5);
  });
});

describe('parseHeightOrHash', () => {
  const hash = 'ab'.repeat(32);

  it('reads digits as a height', () => {
    expect(parseHeightOrHash('0')).toEqual({ kind: 'height', height: 0 });
    expect(parseHeightOrHash('171000')).toEqual({ kind: 'height', height: 171000 });
  });

  it('reads 64 hex digits as a hash, with or without 0x, any case', () => {
    for (const raw of [hash, `0x${hash}`, hash.toUpperCase(), `0X${hash.toUpperCase()}`]) {
      expect(parseHeightOrHash(raw)).toEqual({ kind: 'hash', hash: `0x${hash}` });
    }
  });

  it('reads a 64-digit decimal string as a hash', () => {
    expect(parseHeightOrHash('1'.repeat(64))).toEqual({ kind: 'hash', hash: `0x${'1'.repeat(64)}` });
  });

  it.each(['abc', '-1', '1.5', '0x12', 'g'.repeat(64), 'a'.repeat(63), '2147483648', '', 'latest'])(
    'rejects %j naming the parameter',
    (raw) => {
      expect(() => parseHeightOrHash(raw)).toThrow(/^height_or_hash: /);
    },
  );

  it('reads latest as the chain tip only where it is allowed, exactly spelt', () => {
    expect(parseHeightOrHash('latest', 'height_or_hash', { allowLatest: true })).toEqual({ kind: 'latest' });
    for (const raw of ['Latest', 'LATEST', 'latest ', 'newest'])
      expect(() => parseHeightOrHash(raw, 'height_or_hash', { allowLatest: true })).toThrow(
        /^height_or_hash: must be `latest`, a block height/,
      );
  });
});

describe('parseTxId', () => {
  it('normalizes to 0x and lower case', () => {
    expect(parseTxId('AB'.repeat(32))).toBe(`0x${'ab'.repeat(32)}`);
  });

  it('rejects anything but 32 bytes of hex', () => {
    expect(() => parseTxId('0x1234')).toThrow(/^tx_id: must be a transaction id/);
  });
});

describe('parsePrincipal', () => {
  const address = 'SP000000000000000000002Q6VF78';

  it('accepts standard and contract principals', () => {
    expect(parsePrincipal(address)).toBe(address);
    expect(parsePrincipal(`${address}.pox-4`)).toBe(`${address}.pox-4`);
  });

  it.each(['', 'SP000000000000000000002Q6VF79', address.toLowerCase(), `${address}.`, `${address}.4pox`, 'x'.repeat(300)])(
    'rejects %j naming the parameter',
    (raw) => {
      expect(() => parsePrincipal(raw)).toThrow(/^principal: must be a Stacks address/);
    },
  );

  it('names the parameter it is given', () => {
    expect(() => parsePrincipal('x', 'query parameter sender_address')).toThrow(/^query parameter sender_address: /);
  });
});

describe('parseCursorPage', () => {
  const limits = { default: 20, max: 30 };
  const hash = 'AB'.repeat(32);

  it('counts from the tip when there is no cursor, up to ten of the largest pages above it', () => {
    expect(parseCursorPage({}, limits, 'an index block hash')).toEqual({ limit: 20, offset: 0 });
    expect(parseCursorPage({ offset: '400', limit: '5' }, limits, 'x')).toEqual({ limit: 5, offset: 400 });
    expect(parseCursorPage({ offset: '2147483647' }, limits, 'x')).toEqual({ limit: 20, offset: 2147483647 });
    expect(parseCursorPage({ offset: '-300' }, limits, 'x')).toEqual({ limit: 20, offset: -300 });
    for (const offset of ['-301', '2147483648', '-x'])
      expect(() => parseCursorPage({ offset }, limits, 'x')).toThrow(
        /offset: without a cursor, must be an integer from -300 to 2147483647/,
      );
  });

  it('takes limit=0 for the default page size', () => {
    expect(parseCursorPage({ limit: '0' }, limits, 'x')).toEqual({ limit: 20, offset: 0 });
    expect(() => parseCursorPage({ limit: '31' }, limits, 'x')).toThrow(/limit: must be an integer from 0 to 30/);
  });

  it('normalizes the cursor and accepts offsets either way within ten of the largest pages', () => {
    expect(parseCursorPage({ cursor: `0x${hash}` }, limits, 'x')).toEqual({
      limit: 20,
      offset: 0,
      cursor: `0x${hash.toLowerCase()}`,
    });
    expect(parseCursorPage({ cursor: hash, offset: '-300' }, limits, 'x').offset).toBe(-300);
    expect(parseCursorPage({ cursor: hash, offset: '300' }, limits, 'x').offset).toBe(300);
    expect(Object.is(parseCursorPage({ cursor: hash, offset: '-0' }, limits, 'x').offset, 0)).toBe(true);
  });

  it('rejects a malformed cursor, and offsets beyond the bound or not integers, naming the parameter', () => {
    expect(() => parseCursorPage({ cursor: 'abc' }, limits, 'an index block hash')).toThrow(
      /query parameter cursor: must be an index block hash/,
    );
    for (const offset of ['-301', '301', '--1', '-', '1.5', '-1e2', ' 1'])
      expect(() => parseCursorPage({ cursor: hash, offset }, limits, 'x')).toThrow(
        /offset: with a cursor, must be an integer from -300 to 300/,
      );
    expect(() => parseCursorPage({ cursor: [hash, hash] }, limits, 'x')).toThrow(/cursor: given more than once/);
  });
});

describe('queryBoolean', () => {
  it('reads true and false, defaults when absent, and names the parameter otherwise', () => {
    expect(queryBoolean({ f: 'true' }, 'f')).toBe(true);
    expect(queryBoolean({ f: 'false' }, 'f', true)).toBe(false);
    expect(queryBoolean({}, 'f')).toBe(false);
    expect(queryBoolean({}, 'f', true)).toBe(true);
    for (const v of ['1', 'TRUE', 'yes', ''])
      expect(() => queryBoolean({ f: v }, 'f')).toThrow(/query parameter f: must be one of true, false/);
  });
});

describe('error messages', () => {
  it('repeat a short bad value whole', () => {
    expect(() => parseTxId('0xnothex')).toThrow('got "0xnothex"');
  });

  it('repeat at most 100 characters of a long bad value, with its length', () => {
    const long = `0x${'z'.repeat(14_000)}`;
    let message = '';
    try {
      parseTxId(long);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`got ${JSON.stringify(long.slice(0, 100))}… (14002 characters)`);
    expect(message.length).toBeLessThan(300);
  });
});
