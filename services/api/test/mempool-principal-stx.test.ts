/**
 * `mempool_principal_stx` (migration 085): what each principal's pending transactions would move, kept by triggers on
 * `mempool_txs`, and `mempool_pending_count` (086), their number. After the fixtures' real mempool traffic, and after every statement of a story that moves
 * transactions in and out of the pending set (one and many rows at a time), the table equals the sums worked out here
 * in BigInt from the pending rows themselves; and `/extended/v1/address/{p}/stx` shows them. `mempool_principal_counts`
 * (090), each principal's pending transactions under each filter of the mempool list, is held equal to counts made here
 * the same way, and the list's totals show them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { keepMempoolTxJson } from '@bda/db';
import { testAddress } from '../src/testing/builders';
import { startApi, type ApiHarness } from './support/api-harness';

interface PendingRow {
  type_id: string;
  sender_address: string;
  sponsor_address: string | null;
  fee_rate: string;
  payload: Record<string, unknown>;
  contract_id: string | null;
}

/** Per principal, its pending transactions as the mempool list's filters count them: sender, recipient, any party. */
function expectedCounts(rows: PendingRow[]): Record<string, { as_sender: number; as_recipient: number; as_party: number }> {
  const counts = new Map<string, { as_sender: number; as_recipient: number; as_party: number }>();
  const at = (p: string) => counts.get(p) ?? counts.set(p, { as_sender: 0, as_recipient: 0, as_party: 0 }).get(p)!;
  for (const r of rows) {
    const recipient = typeof r.payload['recipient_address'] === 'string' ? r.payload['recipient_address'] : null;
    at(r.sender_address).as_sender++;
    if (recipient !== null) at(recipient).as_recipient++;
    for (const p of new Set([r.sender_address, recipient, r.contract_id])) if (p !== null) at(p).as_party++;
  }
  return Object.fromEntries(counts);
}

/** The reference API's rule, from the pending rows: sent transfers and paid fees out, received transfers in. */
function expectedSums(rows: PendingRow[]): Record<string, { outbound: string; inbound: string }> {
  const sums = new Map<string, { outbound: bigint; inbound: bigint }>();
  const add = (p: string, outbound: bigint, inbound: bigint) => {
    const s = sums.get(p) ?? { outbound: 0n, inbound: 0n };
    sums.set(p, { outbound: s.outbound + outbound, inbound: s.inbound + inbound });
  };
  for (const r of rows) {
    const amount = r.type_id === 'token_transfer' ? BigInt(String(r.payload['amount'])) : 0n;
    const fee = BigInt(r.fee_rate);
    add(r.sender_address, amount + (r.sponsor_address === null ? fee : 0n), 0n);
    if (r.sponsor_address !== null) add(r.sponsor_address, fee, 0n);
    if (r.type_id === 'token_transfer') add(String(r.payload['recipient_address']), 0n, amount);
  }
  return Object.fromEntries([...sums].map(([p, s]) => [p, { outbound: s.outbound.toString(), inbound: s.inbound.toString() }]));
}

async function checkTable(api: ApiHarness, step: string): Promise<number> {
  const pending = (await api
    .db('mempool_txs')
    .where({ status: 'pending' })
    .select('type_id', 'sender_address', 'sponsor_address', 'fee_rate', 'payload', 'contract_id')) as PendingRow[];
  const kept = (await api.db('mempool_principal_stx').select('principal', 'outbound', 'inbound')) as Array<{
    principal: string;
    outbound: string;
    inbound: string;
  }>;
  expect({
    step,
    sums: Object.fromEntries(kept.map((r) => [r.principal, { outbound: r.outbound, inbound: r.inbound }])),
  }).toEqual({
    step,
    sums: expectedSums(pending),
  });
  // The number of pending transactions (migration 086), kept by the same kind of triggers.
  const counted = (await api.db('mempool_pending_count').first('pending')) as { pending: number };
  expect({ step, pending: counted.pending }).toEqual({ step, pending: pending.length });
  // Each principal's pending transactions under each filter (migration 090).
  const perPrincipal = (await api
    .db('mempool_principal_counts')
    .select('principal', 'as_sender', 'as_recipient', 'as_party')) as Array<{
    principal: string;
    as_sender: number;
    as_recipient: number;
    as_party: number;
  }>;
  expect({ step, counts: Object.fromEntries(perPrincipal.map(({ principal, ...c }) => [principal, c])) }).toEqual({
    step,
    counts: expectedCounts(pending),
  });
  return pending.length;
}

describe('mempool_principal_stx after the fixtures', () => {
  for (const fixture of ['epoch-3-transition.tsv', 'fuzzed-transactions-1.tsv']) {
    it(`equals the sums of the pending rows after ${fixture}`, async () => {
      const api = await startApi(testInfra().databaseUrl, { fixture });
      try {
        await checkTable(api, fixture);
        // The fixture's mempool traffic went through the triggers: it had transactions, mined or still pending.
        expect(Number((await api.db('mempool_txs').count({ n: '*' }).first())!.n)).toBeGreaterThan(0);
      } finally {
        await api.close();
      }
    });
  }
});

describe('mempool_principal_stx through a story of the pending set', () => {
  let api: ApiHarness;
  const alice = testAddress('alice');
  const bob = testAddress('bob');
  const carol = testAddress('carol');

  beforeAll(async () => {
    // A chain to stand on (the balance endpoint needs a canonical block); its own mempool rows take part too.
    api = await startApi(testInfra().databaseUrl, { fixture: 'fuzzed-transactions-1.tsv' });
  });
  afterAll(async () => {
    await api?.close();
  });

  let n = 0;
  function tx(over: Partial<PendingRow> & { status?: string; recipient?: string; amount?: string }) {
    n++;
    const type = over.type_id ?? 'token_transfer';
    return {
      tx_id: `0x${n.toString(16).padStart(64, '0')}`,
      raw_tx: Buffer.from([0]),
      type_id: type,
      sender_address: over.sender_address ?? alice,
      sponsor_address: over.sponsor_address ?? null,
      nonce: n,
      fee_rate: over.fee_rate ?? '180',
      payload:
        type === 'token_transfer'
          ? { recipient_address: over.recipient ?? bob, amount: over.amount ?? '1000', memo: '0x' }
          : { contract_id: `${carol}.c`, function_name: 'f', function_args: [] },
      post_conditions: [],
      post_condition_mode: 'allow',
      anchor_mode: 'any',
      contract_id: type === 'token_transfer' ? null : `${carol}.c`,
      status: over.status ?? 'pending',
      receipt_time: '2026-11-26T00:00:00.000Z',
    };
  }

  /** The mempool list's `total` under each filter, for the story's principals, against counts made from the rows. */
  async function checkListTotals(step: string): Promise<void> {
    const pending = (await api
      .db('mempool_txs')
      .where({ status: 'pending' })
      .select('type_id', 'sender_address', 'sponsor_address', 'fee_rate', 'payload', 'contract_id')) as PendingRow[];
    const counts = expectedCounts(pending);
    for (const p of [alice, bob, carol, `${carol}.c`]) {
      const want = counts[p] ?? { as_sender: 0, as_recipient: 0, as_party: 0 };
      const total = async (q: string) => (await api.get(`/extended/v1/tx/mempool?${q}&limit=1`)).body.total as number;
      expect({ step, p, sender: await total(`sender_address=${p}`) }).toEqual({ step, p, sender: want.as_sender });
      expect({ step, p, recipient: await total(`recipient_address=${p}`) }).toEqual({ step, p, recipient: want.as_recipient });
      expect({ step, p, address: await total(`address=${p}`) }).toEqual({ step, p, address: want.as_party });
    }
    // Both filters at once: counted over the sender's rows.
    const both = pending.filter((r) => r.sender_address === alice && r.payload['recipient_address'] === bob).length;
    const res = await api.get(`/extended/v1/tx/mempool?sender_address=${alice}&recipient_address=${bob}`);
    expect({ step, both: res.body.total }).toEqual({ step, both });
  }

  it('follows announcements, mining, drops, returns and deletions, one row or many a statement', async () => {
    const big = '340282366920938463463374607431768211455'; // u128 max: no rounding anywhere
    const rows = [
      tx({}),
      tx({ recipient: carol, amount: big, fee_rate: '7' }),
      tx({ sender_address: bob, sponsor_address: carol }), // sponsored: carol pays the fee
      tx({ sender_address: bob, recipient: bob, amount: '55' }), // to itself: out and in
      tx({ type_id: 'contract_call', sender_address: carol, fee_rate: '999' }), // a fee only
      tx({ status: 'dropped_replace_by_fee' }),
    ];
    const before = await checkTable(api, 'the fixture');
    await api.db('mempool_txs').insert(rows); // one statement, six rows
    // The kept list texts of the pending ones, as the indexer writes them after such a statement (ADR 0041).
    await keepMempoolTxJson(
      api.db,
      rows.map((r) => r.tx_id),
    );
    expect(await checkTable(api, 'announced')).toBe(before + 5);
    await checkListTotals('announced');

    await api.db('mempool_txs').whereIn('tx_id', [rows[0]!.tx_id, rows[2]!.tx_id]).update({ status: 'mined' });
    expect(await checkTable(api, 'two mined at once')).toBe(before + 3);

    await api.db('mempool_txs').where({ tx_id: rows[5]!.tx_id }).update({ status: 'pending' });
    await keepMempoolTxJson(api.db, [rows[5]!.tx_id]);
    expect(await checkTable(api, 'a dropped one pending again')).toBe(before + 4);

    await api.db('mempool_txs').where({ tx_id: rows[0]!.tx_id }).update({ status: 'pending' });
    expect(await checkTable(api, 'a mined one back (its block orphaned)')).toBe(before + 5);

    await api.db('mempool_txs').where({ tx_id: rows[1]!.tx_id }).update({ fee_rate: '8', replaced_by_tx_id: null });
    expect(await checkTable(api, 'a pending row changed in place')).toBe(before + 5);

    await api.db('mempool_txs').where({ tx_id: rows[4]!.tx_id }).del();
    expect(await checkTable(api, 'deleted')).toBe(before + 4);
    await checkListTotals('deleted');

    await api.db('mempool_txs').update({ status: 'mined' });
    expect(await checkTable(api, 'everything mined')).toBe(0);
    // Nothing pending: no principal keeps a row (not even zeros).
    expect(await api.db('mempool_principal_stx').count({ n: '*' }).first()).toEqual({ n: '0' });
    expect(await api.db('mempool_principal_counts').count({ n: '*' }).first()).toEqual({ n: '0' });
  });

  it('shows the pending sums in the v1 STX balance', async () => {
    const dave = testAddress('dave');
    const erin = testAddress('erin');
    await api
      .db('mempool_txs')
      .insert([
        tx({ sender_address: dave, recipient: erin, amount: '2500', fee_rate: '300' }),
        tx({ sender_address: erin, recipient: dave, amount: '40', fee_rate: '10' }),
      ]);
    const res = await api.get(`/extended/v1/address/${dave}/stx`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      estimated_balance: '-2760',
      pending_balance_inbound: '40',
      pending_balance_outbound: '2800',
    });
  });
});
