import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import type { DbBlock } from '@bda/db';
import { BlockRowBuilder, EventRowBuilder, MempoolTxRowBuilder, TxRowBuilder, testAddress } from '../src/testing/builders';
import { startRosettaApi, type RosettaApi } from './support/rosetta-api';
import { rosettaPost } from './support/rosetta-schemas';
import { insertBlocks, insertEvents, insertMempoolTxs, insertTxs, setChainTip } from './support/seed';

const NETWORK = { blockchain: 'stacks', network: 'mainnet' };
const A = testAddress('stacker');
const B = testAddress('other');

/**
 * No recorded fixture reaches an unlock height, so this chain is written row by row: A gets 10,000 µSTX at height 1,
 * locks 4,000 at height 2 until burn height 800,004 (height 4's), and B locks 1,000 at height 3 under `pox-2`, which the
 * node says is retired at burn height 800,005 (height 5's).
 */
describe('Rosetta STX locks and unlocks', () => {
  let api: RosettaApi;
  let blocks: DbBlock[];
  const post = (path: string, body: unknown) => rosettaPost(api.baseUrl, path, body);
  const balance = async (address: string, index: number, sub?: string) => {
    const res = await post('/account/balance', {
      network_identifier: NETWORK,
      account_identifier: sub ? { address, sub_account: { address: sub } } : { address },
      block_identifier: { index },
    });
    expect(res.status).toBe(200);
    return res.body.balances[0].value as string;
  };

  beforeAll(async () => {
    api = await startRosettaApi(testInfra().databaseUrl, {
      offline: false,
      network: 'mainnet',
      nodeRpcUrls: [],
      nodeTimeoutMs: 1_000,
    });
    blocks = [1, 2, 3, 4, 5].map((h) =>
      new BlockRowBuilder()
        .height(h)
        .with(h === 5 ? { pox_v2_unlock_height: 800_005 } : {})
        .build(),
    );
    await insertBlocks(api.db, blocks);
    await setChainTip(api.db, blocks[4]!, 5);
    const mint = new TxRowBuilder().inBlock(blocks[0]!).sender(B).with({ fee_rate: '0' }).build();
    const lockA = new TxRowBuilder()
      .inBlock(blocks[1]!)
      .sender(A)
      .contractCall('SP000000000000000000002Q6VF78.pox-4', 'stack-stx', [])
      .with({ fee_rate: '0' })
      .build();
    const lockB = new TxRowBuilder()
      .inBlock(blocks[2]!)
      .sender(B)
      .contractCall('SP000000000000000000002Q6VF78.pox-2', 'stack-stx', [])
      .with({ fee_rate: '0' })
      .build();
    await insertTxs(api.db, [mint, lockA, lockB]);
    await insertEvents(
      api.db,
      [
        new EventRowBuilder().forTx(mint).index(0).stxMint(A, '10000').build(),
        new EventRowBuilder().forTx(mint).index(1).stxMint(B, '3000').build(),
        new EventRowBuilder().forTx(lockA).index(0).stxLock(A, '4000', 800_004).build(),
        new EventRowBuilder().forTx(lockB).index(0).stxLock(B, '1000', 900_000).build(),
      ].map((e) => (e.tx_id === lockB.tx_id ? { ...e, contract_identifier: 'SP000000000000000000002Q6VF78.pox-2' } : e)),
    );
    // The running totals the indexer writes for these rows (stx_balance_changes, ADR 0024): only the two mints
    // change them (locks move nothing, and every fee here is 0).
    await api.db('stx_balance_changes').insert(
      [
        [A, '10000'],
        [B, '3000'],
      ].map(([principal, received]) => ({
        principal,
        block_height: 1,
        index_block_hash: blocks[0]!.index_block_hash,
        balance: received,
        total_sent: '0',
        total_received: received,
        total_fees_sent: '0',
        total_miner_rewards_received: '0',
      })),
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  it('reports spendable and stacked balances that follow the lock until its unlock height', async () => {
    expect([await balance(A, 1), await balance(A, 1, 'stacked')]).toEqual(['10000', '0']);
    expect([await balance(A, 2), await balance(A, 2, 'stacked')]).toEqual(['6000', '4000']);
    expect([await balance(A, 3), await balance(A, 3, 'stacked')]).toEqual(['6000', '4000']);
    expect([await balance(A, 4), await balance(A, 4, 'stacked')]).toEqual(['10000', '0']);
    // B's pox-2 lock ends when the node retires pox-2, long before its own unlock height.
    expect([await balance(B, 4), await balance(B, 4, 'stacked')]).toEqual(['2000', '1000']);
    expect([await balance(B, 5), await balance(B, 5, 'stacked')]).toEqual(['3000', '0']);
  });

  it('has an operation for every one of those changes, so each account reconciles block by block', async () => {
    const sums = new Map<string, bigint>();
    for (const b of blocks) {
      const res = await post('/block', { network_identifier: NETWORK, block_identifier: { index: b.block_height } });
      for (const tx of res.body.block.transactions) {
        for (const op of tx.operations) {
          if (op.status !== 'success' || !op.amount) continue;
          const key = op.account.sub_account ? `${op.account.address}:${op.account.sub_account.address}` : op.account.address;
          sums.set(key, (sums.get(key) ?? 0n) + BigInt(op.amount.value));
        }
      }
      for (const address of [A, B]) {
        await expectMessage(`${address} at ${b.block_height}`, async () =>
          expect(String(sums.get(address) ?? 0n)).toBe(await balance(address, b.block_height)),
        );
        await expectMessage(`${address}:stacked at ${b.block_height}`, async () =>
          expect(String(sums.get(`${address}:stacked`) ?? 0n)).toBe(await balance(address, b.block_height, 'stacked')),
        );
      }
    }
    const unlockBlock = await post('/block', { network_identifier: NETWORK, block_identifier: { index: 4 } });
    const first = unlockBlock.body.block.transactions[0];
    expect(first.transaction_identifier.hash).toBe(blocks[3]!.index_block_hash);
    expect(first.operations.map((o: { type: string; amount: { value: string } }) => [o.type, o.amount.value])).toEqual([
      ['stx_unlock', '-4000'],
      ['stx_unlock', '4000'],
    ]);
    const viaBlockTransaction = await post('/block/transaction', {
      network_identifier: NETWORK,
      block_identifier: { index: 4, hash: blocks[3]!.index_block_hash },
      transaction_identifier: { hash: blocks[3]!.index_block_hash },
    });
    expect(viaBlockTransaction.body.transaction).toEqual(first);
  });

  it('lists pending mempool transactions and shows their fee and transfer without status', async () => {
    const pending = new MempoolTxRowBuilder().build();
    const dropped = new MempoolTxRowBuilder().status('dropped_replace_by_fee').build();
    await insertMempoolTxs(api.db, [pending, dropped]);
    const list = await post('/mempool', { network_identifier: NETWORK });
    expect(list.body).toEqual({ transaction_identifiers: [{ hash: pending.tx_id }] });
    const tx = await post('/mempool/transaction', {
      network_identifier: NETWORK,
      transaction_identifier: { hash: pending.tx_id },
    });
    const recipient = pending.payload['recipient_address'] as string;
    expect(
      tx.body.transaction.operations.map(
        (o: { type: string; status?: string; account: { address: string }; amount: { value: string } }) => [
          o.type,
          o.status,
          o.account.address,
          o.amount.value,
        ],
      ),
    ).toEqual([
      ['fee', undefined, pending.sender_address, '-300'],
      ['token_transfer', undefined, pending.sender_address, '-25'],
      ['token_transfer', undefined, recipient, '25'],
    ]);
    const gone = await post('/mempool/transaction', {
      network_identifier: NETWORK,
      transaction_identifier: { hash: dropped.tx_id },
    });
    expect(gone.status).toBe(500);
    expect(gone.body).toMatchObject({ code: 711, message: 'Transaction not found' });
  });
});
