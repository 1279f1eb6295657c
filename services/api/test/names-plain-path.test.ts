/**
 * The naming lookups as the api process serves them: `/v1/names/{name}` and `/v1/addresses/{blockchain}/{address}` on
 * plain node:http ahead of express (`plain-routes.ts`), their statements on the names pool. Answers are the ones
 * written by hand below, and the same, byte for byte, as the express mounting of the same handlers.
 */
import express, { type Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { createLogger, errorMiddleware, notFoundHandler } from '@bda/common';
import { rebuildBnsCurrent } from '@bda/indexer';
import { testAddress } from '../src/testing/builders';
import { knexNamesDb, nameLookupRoutes, namesRouter } from '../src/names';
import { DEFAULT_PAGE_LIMITS } from '../src/env';
import { methodNotAllowed, namedDecodeErrors } from '../src/method-not-allowed';
import { bundleOpenApi, loadSchemaSources } from '../src/openapi';
import { pathTemplates } from '../src/path-templates';
import { startApi, type ApiHarness } from './support/api-harness';

const alice = testAddress('alice');
const bob = testAddress('bob');
const HASH_1 = 'a1'.repeat(20);
const HASH_SUB = 'b2'.repeat(20);
/** `/v1/names/one.btc` as the story below implies it: transferred to alice at 200 with a new zonefile, lease 1,000. */
const NAME_ONE = {
  address: alice,
  blockchain: 'stacks',
  expire_block: 1100,
  grace_period: 6100,
  last_txid: '0x20',
  status: 'name-transfer',
  zonefile_hash: HASH_1,
  zonefile: '$ORIGIN one.btc\n',
};

describe('naming lookups on the plain path', () => {
  let api: ApiHarness;
  let viaExpress: Express;

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl);
    await api.db.raw(
      `INSERT INTO chain_tip (id, block_height, block_hash, index_block_hash, burn_block_height, block_count)
       VALUES (true, 500, '0xaa', '0xbb', 600, 500)`,
    );
    await api.db('bns_namespaces').insert({
      namespace_id: 'btc',
      address: alice,
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
      tx_id: '0x01',
      block_height: 2,
      tx_index: 0,
      event_index: 0,
      index_block_hash: '0xb2',
    });
    const name = { name: 'one', namespace_id: 'btc', fqn: 'one.btc', imported_at: null, revoked: false, tx_index: 0 };
    await api.db('bns_names').insert([
      // Registered by bob, then transferred to alice (with a new zonefile): the newer row is the answer.
      {
        ...name,
        address: bob,
        zonefile_hash: '',
        sets_zonefile: false,
        registered_at: 100,
        status: 'name-register',
        tx_id: '0x10',
        block_height: 100,
        event_index: 1,
        index_block_hash: '0xb100',
      },
      {
        ...name,
        address: alice,
        zonefile_hash: HASH_1,
        sets_zonefile: true,
        registered_at: 100,
        status: 'name-transfer',
        tx_id: '0x20',
        block_height: 200,
        event_index: 1,
        index_block_hash: '0xb200',
      },
    ]);
    await api.db('bns_zonefiles').insert({ zonefile_hash: HASH_1, zonefile: '$ORIGIN one.btc\n' });
    await api.db('bns_subdomains').insert({
      fqn: 'sub.one.btc',
      name: 'one.btc',
      namespace_id: 'btc',
      owner: bob,
      seqn: 0,
      zonefile_hash: HASH_SUB,
      zonefile: '$ORIGIN sub',
      parent_zonefile_hash: HASH_1,
      parent_zonefile_index: 0,
      resolver: null,
      tx_id: '0x20',
      block_height: 200,
      tx_index: 0,
      index_block_hash: '0xb200',
    });
    // The current-state tables from that history, as the indexer computes them (the lookups read those).
    await rebuildBnsCurrent(api.db);
    // The same handlers mounted on express, as `buildApp` mounts them, for comparison.
    const app = express();
    app.set('query parser', 'simple');
    app.use(namesRouter(api.db, nameLookupRoutes(knexNamesDb(api.db))));
    const templates = pathTemplates(bundleOpenApi(loadSchemaSources(), DEFAULT_PAGE_LIMITS));
    app.use(methodNotAllowed(templates));
    app.use(notFoundHandler());
    app.use(namedDecodeErrors(templates));
    app.use(errorMiddleware(createLogger('t', 'silent')));
    viaExpress = app;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers a name, a subdomain and an address as written by hand', async () => {
    const name = await api.get('/v1/names/one.btc');
    expect(name.status).toBe(200);
    expect(name.text).toBe(JSON.stringify(NAME_ONE));
    const sub = await api.get('/v1/names/sub.one.btc');
    expect(sub.status).toBe(200);
    expect(sub.text).toBe(
      JSON.stringify({
        address: bob,
        blockchain: 'stacks',
        last_txid: '0x20',
        status: 'registered_subdomain',
        zonefile: '$ORIGIN sub',
        zonefile_hash: HASH_SUB,
      }),
    );
    expect((await api.get(`/v1/addresses/stacks/${alice}`)).text).toBe(JSON.stringify({ names: ['one.btc'] }));
    // bob's name row is not the current one: only his subdomain is his.
    expect((await api.get(`/v1/addresses/stacks/${bob}`)).text).toBe(JSON.stringify({ names: ['sub.one.btc'] }));
    expect(api.validatedCount()).toBeGreaterThanOrEqual(4);
  });

  it('answers an address from its kept row while the tip is in its range, and from the current tables outside it', async () => {
    // Migration 094 (ADR 0034): the kept text is served as it is; here it is made to differ from the current tables,
    // so the answer shows which one was read.
    const tip = Number((await api.db('chain_tip').first('block_height'))?.block_height ?? 0);
    const path = `/v1/addresses/stacks/${alice}`;
    try {
      await api
        .db('bns_address_names')
        .where({ address: alice })
        .update({ names: '["kept.btc"]', valid_from: tip, valid_until: tip });
      expect((await api.get(path)).body).toEqual({ names: ['kept.btc'] });
      await api
        .db('bns_address_names')
        .where({ address: alice })
        .update({ valid_from: tip + 1, valid_until: tip + 5 });
      expect((await api.get(path)).body).toEqual({ names: ['one.btc'] });
      await api
        .db('bns_address_names')
        .where({ address: alice })
        .update({ valid_from: 0, valid_until: tip - 1 });
      expect((await api.get(path)).body).toEqual({ names: ['one.btc'] });
    } finally {
      await rebuildBnsCurrent(api.db);
    }
    expect((await api.get(path)).body).toEqual({ names: ['one.btc'] });
  });

  it('gives each of many lookups arriving together its own answer, duplicates and unknown keys included', async () => {
    // Lookups of one turn share a statement (`KeyedBatchLoader`): each must still get exactly its own row.
    const expected: Array<[string, number, unknown]> = [
      ['/v1/names/one.btc', 200, NAME_ONE],
      ['/v1/names/two.btc', 404, { error: 'cannot find name two.btc', message: 'cannot find name two.btc' }],
      ['/v1/names/sub.one.btc', 200, expect.objectContaining({ address: bob, zonefile_hash: HASH_SUB })],
      ['/v1/names/nope.one.btc', 404, expect.objectContaining({ error: 'cannot find subdomain nope.one.btc' })],
      [`/v1/addresses/stacks/${alice}`, 200, { names: ['one.btc'] }],
      [`/v1/addresses/stacks/${bob}`, 200, { names: ['sub.one.btc'] }],
      [`/v1/addresses/stacks/${testAddress('carol')}`, 200, { names: [] }],
    ];
    const paths = [...expected, ...expected, ...expected].reverse();
    const answers = await Promise.all(paths.map(([path]) => request(api.server).get(path)));
    answers.forEach((answer, i) => {
      const [path, status, body] = paths[i]!;
      expect({ path, status: answer.status, body: answer.body as unknown }).toEqual({ path, status, body });
    });
  });

  it('answers like the express mounting of the same routes, errors and odd spellings included', async () => {
    for (const path of [
      '/v1/names/one.btc',
      '/v1/names/one.btc/',
      '/V1/NAMES/one.btc?page=3',
      '/v1/names/%6Fne.btc',
      '/v1/names/sub.one.btc',
      '/v1/names/two.btc',
      '/v1/names/nope.one.btc',
      '/v1/names/One.btc',
      '/v1/names/one',
      '/v1/names/a.b.c.d',
      '/v1/names/%zz',
      `/v1/addresses/stacks/${alice}`,
      `/v1/addresses/stacks/${bob}/`,
      `/v1/addresses/stacks/${testAddress('carol')}`,
      '/v1/addresses/bitcoin/1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
      '/v1/addresses/stacks/SPnotanaddress',
      '/v1/names/one.btc/zonefile',
    ]) {
      const plain = await request(api.server).get(path);
      const reference = await request(viaExpress).get(path);
      expect({ path, status: plain.status }).toEqual({ path, status: reference.status });
      expect({ path, type: plain.headers['content-type'] }).toEqual({ path, type: reference.headers['content-type'] });
      expect({ path, text: plain.text }).toEqual({ path, text: reference.text });
    }
    expect((await request(api.server).get('/v1/names/two.btc')).body).toEqual({
      error: 'cannot find name two.btc',
      message: 'cannot find name two.btc',
    });
    expect((await request(api.server).get('/v1/addresses/bitcoin/x')).status).toBe(400);
  });

  it('answers HEAD without a body and leaves other methods to express', async () => {
    const head = await request(api.server).head('/v1/names/one.btc');
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    const post = await request(api.server).post('/v1/names/one.btc');
    expect(post.status).toBe(405);
  });
});
