import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
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

  it('makes a connection that ended mid-query a 503, also when the failed ROLLBACK after it is what knex reports', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'ROLLBACK - Connection terminated unexpectedly',
      'ROLLBACK - Client has encountered a connection error and is not queryable',
    ]) {
      expectMessage(message, () => expect(translateDbError(new Error(message))).toBeInstanceOf(ServiceUnavailableError));
    }
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
