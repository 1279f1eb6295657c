import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DbMempoolTx } from '@bda/db';
import { hash32, MempoolTxRowBuilder, testAddress } from './support/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertMempoolTxs } from './support/seed';

let api: ApiHarness;
const carol = testAddress('carol');
const dave = testAddress('dave');
let pending: DbMempoolTx[];

beforeAll(async () => {
  api = await startApi(inject('databaseUrl'));
  pending = [];
  // 25 pending: 0..19 from carol, 20..24 from dave; receipt times one minute apart, newest last.
  for (let i = 0; i < 25; i++) {
    const minute = String(i).padStart(2, '0');
    pending.push(
      new MempoolTxRowBuilder(`p${i}`)
        .sender(i < 20 ? carol : dave)
        .receivedAt(`2024-05-01T12:${minute}:00.000Z`)
        .build(),
    );
  }
  // Two received in the same second: ordered by tx id.
  const tieA = new MempoolTxRowBuilder('tie-a').receivedAt('2024-05-01T13:00:00.000Z').build();
  const tieB = new MempoolTxRowBuilder('tie-b').receivedAt('2024-05-01T13:00:00.000Z').build();
  pending.push(tieA, tieB);
  await insertMempoolTxs(api.db, [
    ...pending,
    new MempoolTxRowBuilder('mined').sender(carol).status('mined').receivedAt('2024-05-01T14:00:00.000Z').build(),
    new MempoolTxRowBuilder('dropped')
      .sender(carol)
      .status('dropped_too_expensive')
      .receivedAt('2024-05-01T14:00:00.000Z')
      .build(),
  ]);
});

afterAll(async () => {
  await api?.close();
});

const ids = (body: { results: Array<{ tx_id: string }> }) => body.results.map((t) => t.tx_id);

describe('GET /extended/v1/tx/mempool', () => {
  it('lists pending transactions newest first, ties by tx id, without mined or dropped ones', async () => {
    const res = await api.get('/extended/v1/tx/mempool');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 27 });
    const [a, b] = [hash32('tx', 'tie-a'), hash32('tx', 'tie-b')].sort();
    const expected = [a, b, ...Array.from({ length: 18 }, (_, i) => hash32('tx', `p${24 - i}`))];
    expect(ids(res.body)).toEqual(expected);
    expect(ids(res.body)).not.toContain(hash32('tx', 'mined'));
    expect(ids(res.body)).not.toContain(hash32('tx', 'dropped'));
    expect(res.body.results.every((t: { tx_status: string }) => t.tx_status === 'pending')).toBe(true);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('pages with limit and offset', async () => {
    const res = await api.get('/extended/v1/tx/mempool?limit=5&offset=25');
    expect(res.body).toMatchObject({ limit: 5, offset: 25, total: 27 });
    expect(ids(res.body)).toEqual([hash32('tx', 'p1'), hash32('tx', 'p0')]);
    const past = await api.get('/extended/v1/tx/mempool?offset=100');
    expect(past.body).toEqual({ limit: 20, offset: 100, total: 27, results: [] });
    expect((await api.get('/extended/v1/tx/mempool?limit=50')).body.results).toHaveLength(27);
  });

  it('filters by sender_address, with a matching total', async () => {
    const res = await api.get(`/extended/v1/tx/mempool?sender_address=${dave}`);
    expect(res.body.total).toBe(5);
    expect(ids(res.body)).toEqual([24, 23, 22, 21, 20].map((i) => hash32('tx', `p${i}`)));
    const none = await api.get(`/extended/v1/tx/mempool?sender_address=${testAddress('nobody')}`);
    expect(none.body).toMatchObject({ total: 0, results: [] });
  });

  it.each([
    ['limit=51', 'limit'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=1&limit=1', 'limit'],
    ['sender_address=nope', 'sender_address'],
    [`sender_address=${dave.toLowerCase()}`, 'sender_address'],
    [`sender_address=${dave}&sender_address=${dave}`, 'sender_address'],
  ])('responds with 400 naming the parameter for %s', async (query, name) => {
    const res = await api.get(`/extended/v1/tx/mempool?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(name);
  });
});
