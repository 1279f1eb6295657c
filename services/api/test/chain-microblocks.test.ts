/**
 * `/extended/v1/microblock/{hash}` over the recording of microblocks arriving before and after their block, replayed
 * through the real observer and indexer, against the microblocks read from the raw events: those the block confirmed
 * (from its transactions) and those streamed on top of it (undecided); `/extended/v1/microblock/unanchored/txs`
 * against the streamed transactions decoded here with @stacks/transactions.
 */
import request from 'supertest';
import {
  addressFromVersionHash,
  addressHashModeToVersion,
  addressToString,
  deserializeTransaction,
  PayloadType,
} from '@stacks/transactions';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { loadRecordedEvents } from './support/replayed-database';
import { chainOracle, type ChainOracle } from './chain-fixture-oracle';

const FIXTURE = 'mainnet-out-of-order-microblock.tsv';
const WARNING = '299 - "Deprecated: Endpoint is deprecated"';

interface Streamed {
  hash: string;
  sequence: number;
  parent: string;
  txs: Array<{ tx_id: string; tx_index: number }>;
}

let api: ApiHarness;
let oracle: ChainOracle;
/** Microblocks of `/new_microblocks` bodies, by hash. */
const streamed = new Map<string, Streamed>();

beforeAll(async () => {
  oracle = chainOracle(FIXTURE);
  for (const ev of loadRecordedEvents(FIXTURE)) {
    if (ev.path !== '/new_microblocks') continue;
    const body = JSON.parse(ev.body) as {
      parent_index_block_hash: string;
      transactions: Array<{ txid: string; tx_index: number; microblock_hash: string; microblock_sequence: number }>;
    };
    for (const t of body.transactions) {
      const m = streamed.get(t.microblock_hash) ?? {
        hash: t.microblock_hash,
        sequence: t.microblock_sequence,
        parent: body.parent_index_block_hash,
        txs: [],
      };
      m.txs.push({ tx_id: t.txid, tx_index: t.tx_index });
      streamed.set(t.microblock_hash, m);
    }
  }
  api = await startApi(testInfra().databaseUrl, { fixture: FIXTURE });
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe('GET /extended/v1/microblock/{hash}', () => {
  it('shows each microblock the block confirmed: canonical, with the block hash and its transactions', async () => {
    const block = oracle.canonical[oracle.canonical.length - 1]!;
    const confirmed = new Map<string, { sequence: number; txs: Array<{ tx_id: string; tx_index: number }> }>();
    for (const t of block.txs) {
      if (!t.microblock_hash) continue;
      const m = confirmed.get(t.microblock_hash) ?? { sequence: t.microblock_sequence!, txs: [] };
      m.txs.push({ tx_id: t.tx_id, tx_index: t.tx_index });
      confirmed.set(t.microblock_hash, m);
    }
    expect(confirmed.size).toBeGreaterThan(1);
    for (const [hash, m] of confirmed) {
      const res = await api.get(`/extended/v1/microblock/${hash}`);
      expectMessage(hash, () => expect(res.status).toBe(200));
      expect(res.headers.get('warning')).toBe(WARNING);
      expect(res.body).toMatchObject({
        canonical: true,
        microblock_canonical: true,
        microblock_hash: hash,
        microblock_sequence: m.sequence,
        block_hash: block.block_hash,
        txs: [...m.txs].sort((a, b) => b.tx_index - a.tx_index).map((t) => t.tx_id),
      });
    }
  });

  it('shows a microblock streamed on the tip, not confirmed yet, as canonical and undecided, with what it streamed', async () => {
    expect(streamed.size).toBeGreaterThan(0);
    const tip = oracle.tip;
    for (const m of streamed.values()) {
      expect(m.parent).toBe(tip.index_block_hash);
      const res = await api.get(`/extended/v1/microblock/${m.hash}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        microblock_canonical: true,
        canonical: true,
        block_height: tip.block_height + 1,
        parent_block_height: tip.block_height,
        parent_block_hash: tip.block_hash,
        parent_burn_block_hash: tip.burn_block_hash,
        parent_burn_block_height: tip.burn_block_height,
        parent_burn_block_time: tip.burn_block_time,
        parent_burn_block_time_iso: new Date(tip.burn_block_time * 1000).toISOString(),
        microblock_hash: m.hash,
        microblock_sequence: m.sequence,
        block_hash: null,
        txs: [...m.txs].sort((a, b) => b.tx_index - a.tx_index).map((t) => t.tx_id),
      });
    }
  });

  it('redirects a hash without 0x, and answers 404 for an unknown one and 400 for a malformed one', async () => {
    const hash = [...streamed.keys()][0]!;
    const bare = await request(api.server)
      .get(`/extended/v1/microblock/${hash.slice(2)}`)
      .redirects(0);
    expect(bare.status).toBe(302);
    expect(bare.headers['location']).toBe(`/extended/v1/microblock/${hash}`);
    expect((await api.get(`/extended/v1/microblock/0x${'ab'.repeat(32)}`)).status).toBe(404);
    const bad = await api.get('/extended/v1/microblock/0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('hash');
  });
});

describe('GET /extended/v1/microblock', () => {
  it('lists the canonical microblocks, newest first (the block they build on, then the sequence), at any offset', async () => {
    // Confirmed ones, from the transactions of the blocks that confirmed them (they build on the block below), and the
    // ones streamed on the tip, undecided.
    const expected: Array<{ hash: string; parentHeight: number; sequence: number }> = [];
    for (const m of streamed.values()) {
      expected.push({ hash: m.hash, parentHeight: oracle.tip.block_height, sequence: m.sequence });
    }
    for (const b of oracle.canonical) {
      const seen = new Set<string>();
      for (const t of b.txs) {
        if (!t.microblock_hash || seen.has(t.microblock_hash)) continue;
        seen.add(t.microblock_hash);
        expected.push({ hash: t.microblock_hash, parentHeight: b.block_height - 1, sequence: t.microblock_sequence! });
      }
    }
    expected.sort((x, y) => y.parentHeight - x.parentHeight || y.sequence - x.sequence);
    expect(expected.length).toBeGreaterThan(2);
    const all = await api.get('/extended/v1/microblock');
    expect(all.status).toBe(200);
    expect(all.headers.get('warning')).toBe(WARNING);
    expect(all.body).toMatchObject({ limit: 20, offset: 0, total: expected.length });
    expect(all.body.results.map((m: { microblock_hash: string }) => m.microblock_hash)).toEqual(expected.map((e) => e.hash));
    // Each entry is the one-microblock view of it.
    for (const m of all.body.results as Array<{ microblock_hash: string }>) {
      expect(m).toEqual((await api.get(`/extended/v1/microblock/${m.microblock_hash}`)).body);
    }
    const paged: string[] = [];
    for (let offset = 0; offset <= expected.length; offset += 2) {
      const res = await api.get(`/extended/v1/microblock/?limit=2&offset=${offset}`);
      expect(res.body.total).toBe(expected.length);
      paged.push(...res.body.results.map((m: { microblock_hash: string }) => m.microblock_hash));
    }
    expect(paged).toEqual(expected.map((e) => e.hash));
    // The read model behind it (migration 089): the same microblocks, numbered densely from the oldest.
    const numbered = (await api.db.raw('SELECT seq, microblock_hash FROM microblock_order ORDER BY seq DESC')) as {
      rows: Array<{ seq: number; microblock_hash: string }>;
    };
    expect(numbered.rows.map((r) => r.microblock_hash)).toEqual(expected.map((e) => e.hash));
    expect(numbered.rows.map((r) => r.seq)).toEqual(expected.map((_, i) => expected.length - i));
    const bad = await api.get('/extended/v1/microblock?limit=201');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('limit');
  });
});

describe('GET /extended/v1/microblock/unanchored/txs', () => {
  it('lists the transactions streamed on the tip, decoded, newest first, as mined at the next height', async () => {
    const tip = oracle.tip;
    const expected: Array<Record<string, unknown>> = [];
    for (const ev of loadRecordedEvents(FIXTURE)) {
      if (ev.path !== '/new_microblocks') continue;
      const body = JSON.parse(ev.body) as {
        parent_index_block_hash: string;
        transactions: Array<{
          txid: string;
          raw_tx: string;
          status: string;
          tx_index: number;
          microblock_hash: string;
          microblock_sequence: number;
        }>;
      };
      if (body.parent_index_block_hash !== tip.index_block_hash) continue;
      for (const t of body.transactions) {
        const tx = deserializeTransaction(t.raw_tx.replace(/^0x/, ''));
        const cond = tx.auth.spendingCondition;
        const network = tx.transactionVersion === 0 ? 'mainnet' : 'testnet';
        const sender = addressToString(addressFromVersionHash(addressHashModeToVersion(cond.hashMode, network), cond.signer));
        const want: Record<string, unknown> = {
          tx_id: `0x${tx.txid()}`,
          nonce: Number(cond.nonce),
          fee_rate: BigInt(cond.fee).toString(),
          sender_address: sender,
          tx_status: t.status,
          tx_index: t.tx_index,
          microblock_hash: t.microblock_hash,
          microblock_sequence: t.microblock_sequence,
          microblock_canonical: true,
          canonical: true,
          is_unanchored: true,
          block_hash: '0x',
          block_height: tip.block_height + 1,
          burn_block_time: tip.burn_block_time,
          burn_block_height: tip.burn_block_height,
          parent_block_hash: tip.block_hash,
        };
        if (tx.payload.payloadType === PayloadType.TokenTransfer) {
          want.tx_type = 'token_transfer';
          want.token_transfer = { amount: BigInt(tx.payload.amount).toString() };
        } else if (tx.payload.payloadType === PayloadType.ContractCall) {
          const p = tx.payload;
          want.tx_type = 'contract_call';
          want.contract_call = {
            contract_id: `${addressToString(p.contractAddress)}.${p.contractName.content}`,
            function_name: p.functionName.content,
          };
        }
        expected.push(want);
      }
    }
    expected.sort(
      (x, y) =>
        (y.microblock_sequence as number) - (x.microblock_sequence as number) || (y.tx_index as number) - (x.tx_index as number),
    );
    expect(expected.length).toBeGreaterThan(1);
    const res = await api.get('/extended/v1/microblock/unanchored/txs');
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe(WARNING);
    expect(res.body.total).toBe(expected.length);
    expect(res.body.results).toHaveLength(expected.length);
    expected.forEach((want, i) => expect(res.body.results[i]).toMatchObject(want));
  });
});
