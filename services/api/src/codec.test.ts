import { describe, expect, it } from '@jest/globals';
import { clarityValueView, isValidPrincipal } from './codec';

describe('clarityValueView', () => {
  it('decodes the reference repr', () => {
    expect(clarityValueView('0x0703')).toEqual({ hex: '0x0703', repr: '(ok true)' });
    expect(clarityValueView('0100000000000000000000000000000064')).toEqual({
      hex: '0x0100000000000000000000000000000064',
      repr: 'u100',
    });
  });

  it('keeps the hex and an empty repr when the value cannot be decoded', () => {
    expect(clarityValueView('0x07')).toEqual({ hex: '0x07', repr: '' });
    expect(clarityValueView(null)).toEqual({ hex: '', repr: '' });
  });
});

describe('isValidPrincipal', () => {
  it('checks the checksum and the contract name', () => {
    expect(isValidPrincipal('SP000000000000000000002Q6VF78.bns')).toBe(true);
    expect(isValidPrincipal('SP000000000000000000002Q6VF77')).toBe(false);
  });
});
