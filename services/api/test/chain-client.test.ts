/**
 * The official client, `@stacks/blockchain-api-client` 9.x (unmodified), against every chain endpoint of issue 24 this
 * api serves (blocks, transactions, microblocks, burn blocks, tenures, mempool statistics and fees, network block
 * times, fee rate, signer signatures, v3 block transactions, burnchain rewards), on fixtures replayed through the real
 * observer and indexer: every call answers without an error, its typed `data` is valid against our documented schema
 * for the route, and the values an explorer shows first agree with the chain and the burnchain rewards computed from
 * the fixture's raw events (`chain-fixture-oracle.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@stacks/blockchain-api-client';
import { expectMessage, testInfra } from '@bda/test-support';
import { schemaValidator, startApi, type ApiHarness } from './support/api-harness';
import { blockTxOrder, burnchainOracle, chainOracle, v1TxOrder, type ChainOracle } from './chain-fixture-oracle';

type Result<T> = { data?: T; error?: unknown; response: Response };

/** A client call's outcome: no error, a 200, and `data` valid against our schema of `template` (and `method`). */
function valid<T>(template: string, r: Result<T>, method: 'get' | 'post' = 'get'): T {
  expectMessage(`${template} → ${r.response.status} ${JSON.stringify(r.error)}`, () => expect(r.error).toBeUndefined());
  expect(r.response.status).toBe(200);
  schemaValidator.validateResponse(template, method, 200, r.data);
  return r.data!;
}

// The Nakamoto recording: signed blocks (three signer signatures each), tenures, PoX rewards.
describe('@stacks/blockchain-api-client against the chain endpoints after replaying fuzzed-transactions-1.tsv', () => {
  const FIXTURE = 'fuzzed-transactions-1.tsv';
  let api: ApiHarness;
  let oracle: ChainOracle;
  let client: ReturnType<typeof createClient>;

  beforeAll(async () => {
    oracle = chainOracle(FIXTURE);
    api = await startApi(testInfra().databaseUrl, { fixture: FIXTURE, listen: true });
    client = createClient({ baseUrl: api.baseUrl });
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('reads blocks (v1 and v2), burn blocks and tenures as the raw chain has them', async () => {
    const tip = oracle.tip;
    const list = valid('/extended/v1/block', await client.GET('/extended/v1/block/', { params: { query: { limit: 5 } } }));
    // (Not `total` against the oracle here: this recording's block 1 names a parent it does not hold, which the oracle's
    // parent walk stops at while the indexer keeps block 0 canonical too.)
    expect(list.total).toBeGreaterThanOrEqual(oracle.canonical.length);
    expect(list.results.map((b) => b.hash)).toEqual(
      [...oracle.canonical]
        .reverse()
        .slice(0, 5)
        .map((b) => b.block_hash),
    );
    const byHeight = valid(
      '/extended/v1/block/by_height/{height}',
      await client.GET('/extended/v1/block/by_height/{height}', { params: { path: { height: tip.block_height } } }),
    );
    expect(byHeight.hash).toBe(tip.block_hash);
    expect(byHeight.txs).toEqual(v1TxOrder(tip));
    const byHash = valid(
      '/extended/v1/block/{hash}',
      await client.GET('/extended/v1/block/{hash}', { params: { path: { hash: tip.block_hash } } }),
    );
    expect(byHash).toEqual(byHeight);
    valid(
      '/extended/v1/block/by_burn_block_height/{burn_block_height}',
      await client.GET('/extended/v1/block/by_burn_block_height/{burn_block_height}', {
        params: { path: { burn_block_height: tip.burn_block_height } },
      }),
    );
    const byBurnHash = valid(
      '/extended/v1/block/by_burn_block_hash/{burn_block_hash}',
      await client.GET('/extended/v1/block/by_burn_block_hash/{burn_block_hash}', {
        params: { path: { burn_block_hash: tip.burn_block_hash } },
      }),
    );
    expect(byBurnHash.hash).toBe(tip.block_hash);

    const v2 = valid('/extended/v2/blocks', await client.GET('/extended/v2/blocks/', { params: { query: { limit: 3 } } }));
    expect(v2.results.map((b) => b.index_block_hash)).toEqual(
      [...oracle.canonical]
        .reverse()
        .slice(0, 3)
        .map((b) => b.index_block_hash),
    );
    const one = valid(
      '/extended/v2/blocks/{height_or_hash}',
      await client.GET('/extended/v2/blocks/{height_or_hash}', { params: { path: { height_or_hash: 'latest' } } }),
    );
    expect(one.hash).toBe(tip.block_hash);
    valid('/extended/v2/blocks/average-times', await client.GET('/extended/v2/blocks/average-times'));
    const timed = oracle.canonical[Math.floor(oracle.canonical.length / 2)]!;
    const atTime = timed.block_time && timed.block_time > 0 ? timed.block_time : timed.burn_block_time;
    valid(
      '/extended/v2/blocks/by-block-time/{timestamp}',
      await client.GET('/extended/v2/blocks/by-block-time/{timestamp}', { params: { path: { timestamp: atTime } } }),
    );
    const v2Txs = valid(
      '/extended/v2/blocks/{height_or_hash}/transactions',
      await client.GET('/extended/v2/blocks/{height_or_hash}/transactions', {
        params: { path: { height_or_hash: tip.block_height }, query: { limit: 50 } },
      }),
    );
    expect(v2Txs.results.map((t) => t.tx_id)).toEqual(blockTxOrder(tip));

    const burns = valid(
      '/extended/v2/burn-blocks',
      await client.GET('/extended/v2/burn-blocks/', { params: { query: { limit: 4 } } }),
    );
    expect(burns.total).toBeGreaterThanOrEqual(oracle.burnBlocks.length);
    const newestBurn = oracle.burnBlocks[oracle.burnBlocks.length - 1]!;
    expect(burns.results[0]!.burn_block_hash).toBe(newestBurn.burn_block_hash);
    const burn = valid(
      '/extended/v2/burn-blocks/{height_or_hash}',
      await client.GET('/extended/v2/burn-blocks/{height_or_hash}', {
        params: { path: { height_or_hash: newestBurn.burn_block_height } },
      }),
    );
    expect(burn.stacks_blocks).toEqual([...newestBurn.blocks].reverse().map((b) => b.block_hash));
    const burnBlocks = valid(
      '/extended/v2/burn-blocks/{height_or_hash}/blocks',
      await client.GET('/extended/v2/burn-blocks/{height_or_hash}/blocks', {
        params: { path: { height_or_hash: newestBurn.burn_block_hash } },
      }),
    );
    expect(burnBlocks.total).toBe(newestBurn.blocks.length);
    const tenureHeight = one.tenure_height;
    const tenure = valid(
      '/extended/v2/block-tenures/{tenure_height}/blocks',
      await client.GET('/extended/v2/block-tenures/{tenure_height}/blocks', {
        params: { path: { tenure_height: tenureHeight } },
      }),
    );
    expect(tenure.results.map((b) => b.hash)).toContain(tip.block_hash);
  });

  it("reads transactions, a block's summaries (v3) and signer signatures, mempool statistics and fees", async () => {
    const tip = oracle.tip;
    const withTxs = [...oracle.canonical].reverse().find((b) => b.txs.some((t) => t.raw_tx !== '0x00'))!;
    const txId = withTxs.txs.find((t) => t.raw_tx !== '0x00')!.tx_id;
    valid('/extended/v1/tx', await client.GET('/extended/v1/tx/', { params: { query: { limit: 5, type: ['coinbase'] } } }));
    const multiple = valid(
      '/extended/v1/tx/multiple',
      await client.GET('/extended/v1/tx/multiple', { params: { query: { tx_id: [txId] } } }),
    );
    expect(Object.keys(multiple)).toEqual([txId]);
    valid('/extended/v1/tx/{tx_id}', await client.GET('/extended/v1/tx/{tx_id}', { params: { path: { tx_id: txId } } }));
    const raw = valid(
      '/extended/v1/tx/{tx_id}/raw',
      await client.GET('/extended/v1/tx/{tx_id}/raw', { params: { path: { tx_id: txId } } }),
    );
    expect(raw.raw_tx).toBe(withTxs.txs.find((t) => t.tx_id === txId)!.raw_tx);
    valid('/extended/v1/tx/events', await client.GET('/extended/v1/tx/events', { params: { query: { tx_id: txId } } }));
    const inBlock = valid(
      '/extended/v1/tx/block/{block_hash}',
      await client.GET('/extended/v1/tx/block/{block_hash}', { params: { path: { block_hash: withTxs.block_hash } } }),
    );
    expect(inBlock.total).toBe(withTxs.txs.length);
    valid(
      '/extended/v1/tx/block_height/{height}',
      await client.GET('/extended/v1/tx/block_height/{height}', { params: { path: { height: withTxs.block_height } } }),
    );
    valid('/extended/v1/tx/mempool', await client.GET('/extended/v1/tx/mempool'));
    valid('/extended/v1/tx/mempool/stats', await client.GET('/extended/v1/tx/mempool/stats'));
    valid('/extended/v2/mempool/fees', await client.GET('/extended/v2/mempool/fees'));

    const summaries = valid(
      '/extended/v3/blocks/{height_or_hash}/transactions',
      await client.GET('/extended/v3/blocks/{height_or_hash}/transactions', {
        params: { path: { height_or_hash: withTxs.index_block_hash }, query: { limit: 50 } },
      }),
    );
    expect(summaries.total).toBe(withTxs.txs.length);
    expect(summaries.results.map((t) => t.tx_id)).toEqual([...blockTxOrder(withTxs)].reverse());
    const signed = oracle.canonical.filter((b) => b.signer_signature.length > 1);
    expect(signed.length).toBeGreaterThan(1);
    for (const b of signed) {
      const want = b.signer_signature.map((s) => (s.startsWith('0x') ? s : `0x${s}`));
      const all = valid(
        '/extended/v2/blocks/{height_or_hash}/signer-signatures',
        await client.GET('/extended/v2/blocks/{height_or_hash}/signer-signatures', {
          params: { path: { height_or_hash: b.block_height } },
        }),
      );
      expectMessage(`height ${b.block_height}`, () =>
        expect(all).toEqual({ limit: 500, offset: 0, total: want.length, results: want }),
      );
      const page = valid(
        '/extended/v2/blocks/{height_or_hash}/signer-signatures',
        await client.GET('/extended/v2/blocks/{height_or_hash}/signer-signatures', {
          params: { path: { height_or_hash: b.index_block_hash }, query: { limit: 1, offset: 1 } },
        }),
      );
      expect(page.results).toEqual(want.slice(1, 2));
    }
    expect(tip.block_height).toBeGreaterThanOrEqual(signed[0]!.block_height);
  });

  it('reads network block times and the fee rate', async () => {
    valid('/extended/v1/info/network_block_times', await client.GET('/extended/v1/info/network_block_times'));
    valid(
      '/extended/v1/info/network_block_time/{network}',
      await client.GET('/extended/v1/info/network_block_time/{network}', { params: { path: { network: 'testnet' } } }),
    );
    const posted = await client.POST('/extended/v1/fee_rate/', { body: { transaction: '0x00' } });
    const fee = valid('/extended/v1/fee_rate', posted, 'post');
    // The reference's fixed rate, and its deprecation header.
    expect(fee.fee_rate).toBe(400);
    expect(posted.response.headers.get('warning')).toBe('299 - "Deprecated: Endpoint is deprecated"');
  });

  it('reads burnchain rewards and reward slot holders as the raw burn blocks list them', async () => {
    const burnchain = burnchainOracle(FIXTURE);
    const address = burnchain.rewards[0]!.reward_recipient;
    const rewards = valid(
      '/extended/v1/burnchain/rewards',
      await client.GET('/extended/v1/burnchain/rewards', { params: { query: { limit: 250 } } }),
    );
    expect(rewards.results.map((r) => [r.burn_block_height, r.reward_index, r.reward_recipient, r.reward_amount])).toEqual(
      burnchain.rewards.map((r) => [r.burn_block_height, r.reward_index, r.reward_recipient, r.reward_amount]),
    );
    const mine = valid(
      '/extended/v1/burnchain/rewards/{address}',
      await client.GET('/extended/v1/burnchain/rewards/{address}', { params: { path: { address } } }),
    );
    expect(mine.results.length).toBe(burnchain.rewards.filter((r) => r.reward_recipient === address).length);
    const total = valid(
      '/extended/v1/burnchain/rewards/{address}/total',
      await client.GET('/extended/v1/burnchain/rewards/{address}/total', { params: { path: { address } } }),
    );
    expect(total.reward_amount).toBe(String(burnchain.totals.get(address)));
    const holders = valid(
      '/extended/v1/burnchain/reward_slot_holders',
      await client.GET('/extended/v1/burnchain/reward_slot_holders'),
    );
    expect(holders.total).toBe(burnchain.slotHolders.length);
    const held = valid(
      '/extended/v1/burnchain/reward_slot_holders/{address}',
      await client.GET('/extended/v1/burnchain/reward_slot_holders/{address}', { params: { path: { address } } }),
    );
    expect(held.total).toBe(burnchain.slotHolders.filter((s) => s.address === address).length);
  });
});

describe('@stacks/blockchain-api-client against the microblock endpoints after replaying mainnet-out-of-order-microblock.tsv', () => {
  let api: ApiHarness;
  let client: ReturnType<typeof createClient>;

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl, { fixture: 'mainnet-out-of-order-microblock.tsv', listen: true });
    client = createClient({ baseUrl: api.baseUrl });
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('lists microblocks and reads each one', async () => {
    const list = valid('/extended/v1/microblock', await client.GET('/extended/v1/microblock/'));
    expect(list.total).toBeGreaterThan(0);
    for (const m of list.results) {
      const one = valid(
        '/extended/v1/microblock/{hash}',
        await client.GET('/extended/v1/microblock/{hash}', { params: { path: { hash: m.microblock_hash } } }),
      );
      expect(one).toEqual(m);
    }
  });

  it('lists the transactions streamed on the tip', async () => {
    const list = valid('/extended/v1/microblock', await client.GET('/extended/v1/microblock/'));
    const unconfirmed = list.results.filter((m) => m.block_hash === null);
    expect(unconfirmed.length).toBeGreaterThan(0);
    const txs = valid('/extended/v1/microblock/unanchored/txs', await client.GET('/extended/v1/microblock/unanchored/txs'));
    // The transactions of the undecided microblocks, newest first (each microblock lists its own highest position first).
    const byNewest = [...unconfirmed].sort((x, y) => y.microblock_sequence - x.microblock_sequence);
    expect(txs.results.map((t) => t.tx_id)).toEqual(byNewest.flatMap((m) => m.txs));
    expect(txs.total).toBe(txs.results.length);
    expect(txs.results.every((t) => t.is_unanchored && t.microblock_canonical)).toBe(true);
  });
});
