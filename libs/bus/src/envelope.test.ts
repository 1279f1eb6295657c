import { describe, expect, it } from '@jest/globals';
import { decodeEnvelope, encodeEnvelope, peekReceivedAt } from './envelope';

describe('envelope', () => {
  it('round-trips the raw body with path and receive time', () => {
    const value = encodeEnvelope(
      '/new_burn_block',
      new Date('2026-01-02T03:04:05.000Z'),
      Buffer.from('{"burn_block_height":7,"x":[1]}'),
    );
    expect(decodeEnvelope(value)).toEqual({
      path: '/new_burn_block',
      received_at: '2026-01-02T03:04:05.000Z',
      body: { burn_block_height: 7, x: [1] },
    });
  });

  it('decodes u64 and u128 amounts the node sends as bare numbers without rounding them', () => {
    const body = '{"transactions":[{"burnchain_op":{"transfer_stx":{"transfered_ustx":18446744073709551615,"vtxindex":3}}}]}';
    const env = decodeEnvelope<{ transactions: Array<{ burnchain_op: { transfer_stx: Record<string, unknown> } }> }>(
      encodeEnvelope('/new_block', new Date(), body),
    );
    const op = env.body.transactions[0]!.burnchain_op.transfer_stx;
    expect(op.transfered_ustx).toBe('18446744073709551615');
    expect(op.vtxindex).toBe(3);
  });

  it('refuses a value that is not an envelope', () => {
    expect(() => decodeEnvelope(Buffer.from('[1,2]'))).toThrow('not a bus envelope');
    expect(() => decodeEnvelope(Buffer.from('{"path":'))).toThrow(SyntaxError);
  });

  it('peeks the receive time without parsing the body', () => {
    const at = new Date('2026-11-24T17:00:00.123Z');
    expect(peekReceivedAt(encodeEnvelope('/new_block', at, '{"received_at":"1999-01-01T00:00:00.000Z"}'))).toBe(
      '2026-11-24T17:00:00.123Z',
    );
    const big = encodeEnvelope('/new_block', at, `{"pad":"${'x'.repeat(1_000_000)}"}`);
    expect(peekReceivedAt(big)).toBe('2026-11-24T17:00:00.123Z');
  });

  it('peeks nothing from a value without a receive time in the envelope form', () => {
    expect(peekReceivedAt(Buffer.from('{"path":"/x","body":{}}'))).toBeNull();
    expect(peekReceivedAt(Buffer.from('{"path":"/x","received_at":"yesterday","body":{}}'))).toBeNull();
    expect(peekReceivedAt(Buffer.from('{"path":"/x","received_at":"2026-11-24T17:00:00.123Z'))).toBeNull();
    expect(peekReceivedAt(Buffer.from(`{"path":"/${'p'.repeat(5000)}","received_at":"2026-11-24T17:00:00.123Z"}`))).toBeNull();
  });
});
