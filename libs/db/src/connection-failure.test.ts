import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { isConnectionFailure } from './connection-failure';

describe('isConnectionFailure', () => {
  it('recognises connection exceptions, shutdowns and network errors by code', () => {
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE']) {
      expectMessage(code, () => expect(isConnectionFailure({ code })).toBe(true));
    }
  });

  it('recognises a connection that ended mid-query, which node-postgres reports without a code', () => {
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(new Error('ROLLBACK - Client has encountered a connection error and is not queryable'))).toBe(
      true,
    );
    expect(isConnectionFailure({ name: 'KnexTimeoutError', message: 'Knex: Timeout acquiring a connection' })).toBe(true);
  });

  it('does not take a refused statement for a connection failure', () => {
    for (const code of ['08P01', '23505', '22P02', '42703', '57014', '40001']) {
      expectMessage(code, () => expect(isConnectionFailure({ code, message: 'some statement error' })).toBe(false));
    }
    expect(isConnectionFailure(new Error('relation "x" does not exist'))).toBe(false);
    expect(isConnectionFailure(null)).toBe(false);
    expect(isConnectionFailure('Connection terminated')).toBe(false);
  });
});
