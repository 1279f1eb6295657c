import { describe, expect, it } from 'vitest';
import { GatewayTimeoutError, ServiceUnavailableError } from '@bda/common';
import { translateDbError } from './db-errors';

describe('translateDbError', () => {
  it('makes an unreachable database a 503', () => {
    expect(translateDbError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(translateDbError(Object.assign(new Error('pool'), { name: 'KnexTimeoutError' }))).toBeInstanceOf(
      ServiceUnavailableError,
    );
  });

  it('makes a statement timeout a 504', () => {
    expect(
      translateDbError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBeInstanceOf(GatewayTimeoutError);
  });

  it('leaves other errors alone', () => {
    const err = new Error('bug');
    expect(translateDbError(err)).toBe(err);
    expect(translateDbError(null)).toBe(null);
  });
});
