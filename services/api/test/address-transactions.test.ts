import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, testInfra } from '@bda/test-support';
import pg from 'pg';
import type { DbBlock, DbTx } from '@bda/db';
import { addressTxRow, BlockRowBuilder, testAddress, TxRowBuilder } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';
import { insertAddressTxs, insertBlocks, insertTxs, setChainTip } from './support/seed';
import { ADDRESS_HISTORY } from '../src/chain/datastore/address-txs';

let api: ApiHarness;
const erin = testAddress('erin');
const frank = testAddress('frank');
const contract = `${testAddress('deployer')}.vault`;
let blocks: DbBlock[];
/** erin's canonical transactions, newest first. */
let erinTxs: DbTx[];

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
  blocks = [];
  for (let h = 1; h <= 30; h++) blocks.push(new BlockRowBuilder().height(h).build());
  const orphan = new BlockRowBuilder().height(30).forkTag('orphan').canonical(false).build();
  await insertBlocks(api.db, [...blocks, orphan]);
  await setChainTip(api.db, blocks[29]!, 30);

  // Two transactions of erin per block (tx_index 0 and 1), 60 in all; every other one also calls the contract.
  const txs: DbTx[] = [];
  for (const b of blocks) {
    for (const i of [0, 1]) {
      const t = new TxRowBuilder(`erin-${b.block_height}-${i}`).inBlock(b).index(i).sender(erin);
      txs.push(i === 1 ? t.contractCall(contract, 'deposit', []).build() : t.tokenTransfer(frank, '7').build());
    }
  }
  const orphanTx = new TxRowBuilder('erin-orphan').inBlock(orphan).sender(erin).build();
  await insertTxs(api.db, [...txs, orphanTx]);
  // The read model only ever holds canonical rows (the indexer removes them on a reorg).
  await insertAddressTxs(api.db, [
    ...txs.map((t) => addressTxRow(erin, t)),
    ...txs.filter((t) => t.tx_index === 0).map((t) => addressTxRow(frank, t)),
    ...txs.filter((t) => t.tx_index === 1).map((t) => addressTxRow(contract, t)),
  ]);
  erinTxs = [...txs].sort((a, b) => b.block_height - a.block_height || b.tx_index - a.tx_index);
});

afterAll(async () => {
  await api?.close();
});

const ids = (body: { results: Array<{ tx_id: string }> }) => body.results.map((t) => t.tx_id);

describe('GET /extended/v1/address/{principal}/transactions', () => {
  it('lists the newest 20 canonical transactions with the maintained total', async () => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, total: 60 });
    expect(ids(res.body)).toEqual(erinTxs.slice(0, 20).map((t) => t.tx_id));
    expect(res.body.results[0]).toMatchObject({
      block_height: 30,
      tx_index: 1,
      tx_type: 'contract_call',
      canonical: true,
      events: [],
    });
  });

  it('pages with limit and offset, up to 50 per page', async () => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions?limit=50&offset=15`);
    expect(res.body).toMatchObject({ limit: 50, offset: 15, total: 60 });
    expect(ids(res.body)).toEqual(erinTxs.slice(15, 60).map((t) => t.tx_id));
    const past = await api.get(`/extended/v1/address/${erin}/transactions?offset=60`);
    expect(past.body).toEqual({ limit: 20, offset: 60, total: 60, results: [] });
  });

  it('gives the default page for limit=0, as the reference API does', async () => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions?limit=0&offset=5`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 5, total: 60 });
    expect(ids(res.body)).toEqual(erinTxs.slice(5, 25).map((t) => t.tx_id));
  });

  it('never shows a transaction mined only in a non-canonical block', async () => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions?limit=50`);
    expect(res.body.results.every((t: { canonical: boolean }) => t.canonical)).toBe(true);
    expect(res.body.results.map((t: { block_hash: string }) => t.block_hash)).not.toContain(
      new BlockRowBuilder().height(30).forkTag('orphan').build().block_hash,
    );
  });

  it('leaves out a history row whose transaction stopped being canonical', async () => {
    const t = erinTxs[0]!;
    await api.db('txs').where({ tx_id: t.tx_id, index_block_hash: t.index_block_hash }).update({ canonical: false });
    try {
      const res = await api.get(`/extended/v1/address/${erin}/transactions?limit=3`);
      expect(ids(res.body)).toEqual([erinTxs[1]!.tx_id, erinTxs[2]!.tx_id]);
    } finally {
      await api.db('txs').where({ tx_id: t.tx_id, index_block_hash: t.index_block_hash }).update({ canonical: true });
    }
  });

  it('serves a contract principal and a recipient', async () => {
    const c = await api.get(`/extended/v1/address/${contract}/transactions?limit=2`);
    expect(c.body.total).toBe(30);
    expect(c.body.results.map((t: { contract_call: { contract_id: string } }) => t.contract_call.contract_id)).toEqual([
      contract,
      contract,
    ]);
    const r = await api.get(`/extended/v1/address/${frank}/transactions?limit=1`);
    expect(r.body.total).toBe(30);
    expect(r.body.results[0].token_transfer.recipient_address).toBe(frank);
  });

  it('answers an empty page for a valid principal without history', async () => {
    const res = await api.get(`/extended/v1/address/${testAddress('nobody')}/transactions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ limit: 20, offset: 0, total: 0, results: [] });
  });

  it.each([
    ['nope'],
    [erin.toLowerCase()],
    [erin.slice(0, -1) + (erin.endsWith('A') ? 'B' : 'A')],
    [`${erin}.`],
    [`${erin}.1bad`],
    [`${erin}.${'a'.repeat(129)}`],
    ['SP000000000000000000002Q6VF79'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
  ])('responds with 400 naming principal for %s', async (principal) => {
    const res = await api.get(`/extended/v1/address/${principal}/transactions`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^principal: /);
  });

  it.each([
    ['limit=51', 'limit'],
    ['limit=-1', 'limit'],
    ['unanchored=yes', 'unanchored'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=abc', 'offset'],
  ])('responds with 400 naming the parameter for %s', async (query, name) => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`query parameter ${name}`);
  });

  describe('height and until_block, as the reference API narrows a history', () => {
    const at = (h: number) => erinTxs.filter((t) => t.block_height === h).map((t) => t.tx_id);

    it('with height, lists only the transactions of that block, with their total', async () => {
      const res = await api.get(`/extended/v1/address/${erin}/transactions?height=12`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 2, offset: 0 });
      expect(ids(res.body)).toEqual(at(12));
      const none = await api.get(`/extended/v1/address/${erin}/transactions?height=31`);
      expect(none.body).toMatchObject({ total: 0, results: [] });
    });

    it('with until_block as a height, lists the history up to and including it', async () => {
      const res = await api.get(`/extended/v1/address/${erin}/transactions?until_block=10&limit=3`);
      expect(res.body.total).toBe(20);
      expect(ids(res.body)).toEqual([...at(10), at(9)[0]]);
      const page = await api.get(`/extended/v1/address/${erin}/transactions?until_block=10&limit=3&offset=18`);
      expect(ids(page.body)).toEqual(at(1));
      const beyond = await api.get(`/extended/v1/address/${erin}/transactions?until_block=500`);
      expect(beyond.body.total).toBe(60);
    });

    it('with until_block as a block hash or index block hash, in any case and with or without 0x', async () => {
      const b = blocks[4]!;
      for (const ref of [b.block_hash, b.index_block_hash.slice(2).toUpperCase()]) {
        const res = await api.get(`/extended/v1/address/${erin}/transactions?until_block=${ref}`);
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(10);
        expect(ids(res.body).slice(0, 2)).toEqual(at(5));
      }
    });

    it('responds with 404 naming until_block when no canonical block has that hash', async () => {
      const res = await api.get(`/extended/v1/address/${erin}/transactions?until_block=0x${'d'.repeat(64)}`);
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/^until_block: no canonical block/);
    });

    it('accepts unanchored=true or false, and serves confirmed transactions either way', async () => {
      for (const v of ['true', 'false']) {
        const res = await api.get(`/extended/v1/address/${erin}/transactions?unanchored=${v}`);
        expect(res.body.total).toBe(60);
      }
    });

    it.each([
      ['height=1&until_block=2', 'height'],
      ['height=-1', 'height'],
      ['height=x', 'height'],
      ['until_block=xyz', 'until_block'],
      ['until_block=2147483648', 'until_block'],
      ['unanchored=yes', 'unanchored'],
    ])('responds with 400 naming the parameter for %s', async (query, name) => {
      const res = await api.get(`/extended/v1/address/${erin}/transactions?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(name);
    });
  });

  it('leaves function_args out of contract calls with exclude_function_args=true', async () => {
    const res = await api.get(`/extended/v1/address/${erin}/transactions?limit=2&exclude_function_args=true`);
    const call = res.body.results.find((t: { tx_type: string }) => t.tx_type === 'contract_call');
    expect(call.contract_call).toMatchObject({ contract_id: contract, function_name: 'deposit' });
    expect(call.contract_call).not.toHaveProperty('function_args');
    const full = await api.get(`/extended/v1/address/${erin}/transactions?limit=2`);
    expect(full.body.results.find((t: { tx_type: string }) => t.tx_type === 'contract_call').contract_call).toHaveProperty(
      'function_args',
    );
  });

  it('accepts testnet addresses', async () => {
    const res = await api.get(`/extended/v1/address/${testAddress('t', 26)}/transactions`);
    expect(res.status).toBe(200);
  });

  describe('a deep page of a long history', () => {
    interface PlanNode {
      'Node Type': string;
      'Relation Name'?: string;
      'Index Name'?: string;
      'Actual Rows': number;
      'Actual Loops': number;
      'Shared Hit Blocks': number;
      'Shared Read Blocks': number;
      Plans?: PlanNode[];
    }
    const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

    it('reads the page’s rows only, a seq range, at any offset: no walk over the skipped entries, no count', async () => {
      // 20,000 history rows of one address, numbered as the indexer numbers them (migration 087), vacuumed.
      const heavy = testAddress('heavy');
      await api.db.raw(
        `INSERT INTO address_txs (address, block_height, microblock_sequence, tx_index, tx_id, index_block_hash, seq)
         SELECT ?, g, 2147483647, 0, '0x' || md5(g::text) || md5('t' || g), '0x' || md5('b' || g) || md5('i' || g), g
         FROM generate_series(1, 20000) g`,
        [heavy],
      );
      await api.db.raw('INSERT INTO address_tx_counts (address, tx_count) VALUES (?, 20000)', [heavy]);
      // Their transactions, copies of one of erin's with the ids the history rows name: a table of a real size, for
      // which the plan looks each page row up by key.
      const { rows: columns } = (await api.db.raw(
        "SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'txs' ORDER BY ordinal_position",
      )) as { rows: Array<{ c: string }> };
      const copied: Record<string, string> = {
        tx_id: "'0x' || md5(g::text) || md5('t' || g)",
        index_block_hash: "'0x' || md5('b' || g) || md5('i' || g)",
        block_height: 'g',
      };
      await api.db.raw(
        `INSERT INTO txs (${columns.map(({ c }) => c).join(', ')})
         SELECT ${columns.map(({ c }) => copied[c] ?? `t.${c}`).join(', ')}
         FROM txs t, generate_series(1, 20000) g WHERE t.tx_id = ?`,
        [erinTxs[0]!.tx_id],
      );
      // And their kept list texts (tx_list_json, ADR 0035): erin's, with each copy's height.
      await api.db.raw(
        `INSERT INTO tx_list_json (tx_id, index_block_hash, json)
         SELECT '0x' || md5(g::text) || md5('t' || g), '0x' || md5('b' || g) || md5('i' || g),
                replace(j.json, '"block_height":' || t.block_height || ',', '"block_height":' || g || ',')
         FROM txs t JOIN tx_list_json j USING (tx_id, index_block_hash), generate_series(1, 20000) g
         WHERE t.tx_id = ? AND t.canonical`,
        [erinTxs[0]!.tx_id],
      );
      await api.db.raw('VACUUM (ANALYZE) address_txs, txs, tx_list_json');
      const deep = await api.get(`/extended/v1/address/${heavy}/transactions?limit=5&offset=15000`);
      expect(deep.body.total).toBe(20000);
      expect(deep.body.results.map((t: { block_height: number }) => t.block_height)).toEqual([5000, 4999, 4998, 4997, 4996]);
      const at = await api.get(`/extended/v1/address/${heavy}/transactions?height=7000`);
      expect(at.body).toMatchObject({ total: 1, results: [{ block_height: 7000 }] });
      const until = await api.get(`/extended/v1/address/${heavy}/transactions?until_block=7000&limit=2&offset=6998`);
      expect(until.body.total).toBe(7000);
      expect(until.body.results.map((t: { block_height: number }) => t.block_height)).toEqual([2, 1]);
      // As the api runs it: a named prepared statement, with its generic plan (see `datastore/read-statement.ts`).
      const client = new pg.Client({ connectionString: api.databaseUrl, options: '-c plan_cache_mode=force_generic_plan' });
      await client.connect();
      try {
        const { name, text } = ADDRESS_HISTORY.all;
        const buffers: number[] = [];
        for (const offset of [0, 15_000]) {
          const { rows } = await client.query<{ results: string }>({ name, text, values: [heavy, 5, offset] });
          expect((JSON.parse(`[${rows[0]!.results}]`) as Array<{ block_height: number }>).map((t) => t.block_height)).toEqual(
            [0, 1, 2, 3, 4].map((i) => 20_000 - offset - i),
          );
          const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE ${name}(${client.escapeLiteral(heavy)}, 5, ${offset})`,
          );
          const top = explained.rows[0]!['QUERY PLAN'][0]!.Plan;
          const plan = nodes(top);
          const reads = (table: string) =>
            plan.filter((n) => n['Relation Name'] === table).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
          // The newest row's seq (the total) and the page's five rows, by index; their five transactions (whether
          // canonical) and their five kept texts by key.
          expectMessage(JSON.stringify(plan.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows']])), () =>
            expect(reads('address_txs')).toBeLessThanOrEqual(1 + 5),
          );
          expect(reads('txs')).toBe(5);
          expect(reads('tx_list_json')).toBe(5);
          // Each text by the hash of its tx_id (migration 109: a bucket page and the row, not three B-tree levels).
          const probes = plan.filter((n) => n['Relation Name'] === 'tx_list_json');
          expectMessage(JSON.stringify(probes.map((n) => [n['Node Type'], n['Index Name']])), () =>
            expect(probes.every((n) => n['Index Name'] === 'tx_list_json_tx_id_hash')).toBe(true),
          );
          expectMessage(
            JSON.stringify(plan.map((n) => [n['Node Type'], n['Relation Name'], n['Index Name'], n['Actual Rows']])),
            () =>
              expect(
                plan.filter((n) => n['Relation Name'] === 'address_txs').every((n) => n['Node Type'].startsWith('Index')),
              ).toBe(true),
          );
          buffers.push(top['Shared Hit Blocks'] + top['Shared Read Blocks']);
        }
        // The deep page costs what the first page costs (a walk of 15,000 entries read about 45 more index pages).
        expect(buffers[1]!).toBeLessThanOrEqual(buffers[0]! + 4);
      } finally {
        await client.end();
      }
    });
  });
});
