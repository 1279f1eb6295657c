import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { isRetriable } from './apply-error';

describe('isRetriable', () => {
  it('retries a lost connection, a shutdown and a serialization failure', () => {
    for (const code of ['08006', '08003', '57P01', '53300', '40001', '40P01', 'ECONNRESET'])
      expectMessage(code, () => expect(isRetriable({ code })).toBe(true));
    // node-postgres names a connection that ended mid-query by its message alone.
    expect(isRetriable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('does not retry a protocol violation: it comes from the statement, which would fail the same way forever', () => {
    // What PostgreSQL answers to a message of more than 65,535 bind parameters.
    expect(isRetriable({ code: '08P01', message: 'bind message has 4466 parameter formats but 0 parameters' })).toBe(false);
  });

  it('does not retry an error about the data', () => {
    for (const code of ['23505', '22P02', '42703']) expectMessage(code, () => expect(isRetriable({ code })).toBe(false));
  });
});
