import { describe, expect, it } from '@jest/globals';
import { abiTypeString, namedFromAbi } from './contract-abi';

describe('abiTypeString', () => {
  it.each([
    ['uint128', 'uint'],
    ['int128', 'int'],
    ['bool', 'bool'],
    ['principal', 'principal'],
    [{ buffer: { length: 32 } }, '(buff 32)'],
    [{ 'string-ascii': { length: 10 } }, '(string-ascii 10)'],
    [{ 'string-utf8': { length: 5 } }, '(string-utf8 5)'],
    [{ optional: 'principal' }, '(optional principal)'],
    [{ response: { ok: 'bool', error: 'uint128' } }, '(response bool uint)'],
    [{ list: { type: { buffer: { length: 1 } }, length: 4 } }, '(list 4 (buff 1))'],
    [
      {
        tuple: [
          { name: 'a', type: 'uint128' },
          { name: 'b', type: { optional: 'int128' } },
        ],
      },
      '(tuple (a uint) (b (optional int)))',
    ],
  ])('writes %j as %s', (type, text) => {
    expect(abiTypeString(type)).toBe(text);
  });

  it('gives an empty string for what it does not know', () => {
    expect(abiTypeString(null)).toBe('');
    expect(abiTypeString({ mystery: 1 })).toBe('');
  });
});

describe('namedFromAbi', () => {
  const args = [{ hex: '0x01', repr: 'u1', name: '', type: 'uint' }];
  const abi = {
    functions: [
      { name: 'f', args: [{ name: 'n', type: 'uint128' }] },
      { name: 'ping', args: [] },
    ],
  };

  it('names the arguments of the matching function', () => {
    expect(namedFromAbi(args, 'f', abi)).toEqual([{ hex: '0x01', repr: 'u1', name: 'n', type: 'uint' }]);
  });

  it('describes a call without arguments when the ABI has the function', () => {
    expect(namedFromAbi([], 'ping', abi)).toEqual([]);
  });

  it('is null without an ABI, a matching function or the same number of arguments', () => {
    expect(namedFromAbi(args, 'f', undefined)).toBeNull();
    expect(namedFromAbi([], 'ping', null)).toBeNull();
    expect(namedFromAbi(args, 'g', abi)).toBeNull();
    expect(namedFromAbi([...args, ...args], 'f', abi)).toBeNull();
  });
});
