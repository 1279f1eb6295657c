/**
 * The data epoch of the api's answers (ADR 0048) as the api process serves them, over the mocknet recording replayed
 * through the real observer and indexer: a request with `x-bda-want-data-epoch: 1` on the plain GET path gets
 * `data_epoch.epoch` in `x-bda-data-epoch`, read before its route's statement; other requests and other paths never
 * get the header.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb } from '@bda/db';
import { testInfra } from '@bda/test-support';
import { testAddress } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';

const WANT = { 'x-bda-want-data-epoch': '1' };

/** A namespace row of its own for the test; its id is the only thing `/v1/namespaces` shows of it. */
const namespaceRow = (namespaceId: string) => ({
  namespace_id: namespaceId,
  address: testAddress('epoch'),
  revealed_at: 1,
  launched_at: 2,
  lifetime: 1000,
  buckets: '1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1',
  base: 10,
  coeff: 1,
  nonalpha_discount: 1,
  no_vowel_discount: 1,
  can_update_price_function: true,
  status: 'ready',
  tx_id: '0xe0',
  block_height: 2,
  tx_index: 0,
  event_index: 0,
  index_block_hash: '0xe0',
});

describe('x-bda-data-epoch over the mocknet replay', () => {
  let api: ApiHarness;
  /** The test's own writer (not the api's pool). */
  let writer: Knex;
  const epochRow = async () => (await writer('data_epoch').first<{ epoch: string }>('epoch'))!.epoch;

  /**
   * Asks for `path` with its epoch until the label is the row's: the api labels with the last epoch it read, and each
   * labelled request starts a newer read (`LatestDataEpoch`). No label on the way may be newer than the row.
   */
  const labelled = async (path: string, headers: Record<string, string> = {}) => {
    const row = await epochRow();
    for (let i = 0; i < 100; i++) {
      const a = await api.get(path, { headers: { ...WANT, ...headers } });
      const label = a.headers.get('x-bda-data-epoch');
      if (label === row) return a;
      if (label !== null) expect(Number(label)).toBeLessThan(Number(row));
    }
    throw new Error(`${path} never labelled with the row's epoch ${row}`);
  };

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl, { fixture: 'mocknet.tsv' });
    writer = createDb({ connectionString: api.databaseUrl, maxConnections: 2, applicationName: 'epoch-writer' });
  });

  afterAll(async () => {
    await writer?.destroy();
    await api?.close();
  });

  it('labels with the row’s epoch when asked, the new one after an update, never a newer one, nothing unasked', async () => {
    // The replay's indexer ran without REDIS_URL: it never raised the epoch.
    expect(await epochRow()).toBe('0');
    const paths = ['/extended/v1/block?limit=3', '/extended/v1/tx/mempool', '/v1/namespaces', '/extended'];
    for (const path of paths) {
      const asked = await labelled(path);
      expect([path, asked.status]).toEqual([path, 200]);
      const plain = await api.get(path);
      expect([path, plain.status, plain.headers.get('x-bda-data-epoch')]).toEqual([path, 200, null]);
      expect(plain.text).toBe(asked.text);
    }
    await writer.raw('UPDATE data_epoch SET epoch = 73');
    expect((await labelled('/extended/v1/block?limit=3')).headers.get('x-bda-data-epoch')).toBe('73');
    await writer.raw('UPDATE data_epoch SET epoch = epoch + 1');
    expect((await labelled('/extended/v1/block?limit=3')).headers.get('x-bda-data-epoch')).toBe('74');
  });

  it('sends it with 304s and error answers of the plain path', async () => {
    await writer.raw('UPDATE data_epoch SET epoch = 90');
    const first = await labelled('/extended/v1/block?limit=3');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\//);
    const notModified = await api.get('/extended/v1/block?limit=3', { headers: { ...WANT, 'if-none-match': etag } });
    expect([notModified.status, notModified.headers.get('x-bda-data-epoch')]).toEqual([304, '90']);
    const missing = await api.get(`/extended/v1/block/by_height/100000`, { headers: WANT });
    expect([missing.status, missing.headers.get('x-bda-data-epoch')]).toEqual([404, '90']);
    const invalid = await api.get('/extended/v1/block?limit=nope', { headers: WANT });
    expect([invalid.status, invalid.headers.get('x-bda-data-epoch')]).toEqual([400, '90']);
  });

  it('never sends it on other paths, nor for an answer that depends on the clock', async () => {
    await writer.raw('UPDATE data_epoch SET epoch = 91');
    const clock = await api.get('/extended/v2/blocks/average-times', { headers: WANT });
    expect([clock.status, clock.headers.get('x-bda-data-epoch')]).toEqual([200, null]);
    // Express's side: an unknown path, a method the plain path does not take, Rosetta.
    const unknown = await api.get('/extended/v1/no-such-thing', { headers: WANT });
    expect([unknown.status, unknown.headers.get('x-bda-data-epoch')]).toEqual([404, null]);
    const post = await api.get('/extended/v1/block', { method: 'POST', headers: WANT });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(post.headers.get('x-bda-data-epoch')).toBeNull();
    const rosetta = await api.get('/rosetta/v1/network/list', {
      method: 'POST',
      headers: { ...WANT, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rosetta.headers.get('x-bda-data-epoch')).toBeNull();
  });

  it('labels with an epoch read before the route’s statement: an answer is never older than its epoch', async () => {
    // Each write renames the test's namespace to `epoch<n>` and raises the epoch to n in the same transaction (as
    // the indexer ends its transactions). An answer whose statement ran before its label was read could show an older
    // name than its epoch; read first, the name is the epoch's or newer (writes commit in between all the time).
    await writer('bns_namespaces').where('namespace_id', 'like', 'epoch%').delete();
    await writer.transaction(async (trx) => {
      await trx.raw('UPDATE data_epoch SET epoch = 100');
      await trx('bns_namespaces').insert(namespaceRow('epoch100'));
    });
    let stop = false;
    let writes = 0;
    const writing = (async () => {
      while (!stop) {
        await writer.transaction(async (trx) => {
          const {
            rows: [row],
          } = await trx.raw<{ rows: Array<{ epoch: string }> }>('SELECT epoch + 1 AS epoch FROM data_epoch');
          await trx('bns_namespaces')
            .where('namespace_id', 'like', 'epoch%')
            .update({ namespace_id: `epoch${row!.epoch}` });
          await trx.raw('UPDATE data_epoch SET epoch = epoch + 1');
        });
        writes++;
      }
    })();
    const seen: Array<[number, number]> = [];
    try {
      for (let i = 0; i < 300; i++) {
        const answers = await Promise.all(
          [0, 1, 2].map(() => api.get<{ namespaces: string[] }>('/v1/namespaces', { headers: WANT })),
        );
        for (const a of answers) {
          const ours = a.body.namespaces.filter((n) => n.startsWith('epoch'));
          expect(ours).toHaveLength(1);
          seen.push([Number(a.headers.get('x-bda-data-epoch')), Number(ours[0]!.slice('epoch'.length))]);
        }
      }
    } finally {
      stop = true;
      await writing;
    }
    expect(writes).toBeGreaterThan(10);
    expect(seen).toHaveLength(900);
    expect(seen.filter(([epoch, content]) => content < epoch)).toEqual([]);
    // Most answers carry a label (an unlabelled one, epoch 0 here, proves nothing).
    expect(seen.filter(([epoch]) => epoch >= 100).length).toBeGreaterThan(450);
  });
});
