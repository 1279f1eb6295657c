/**
 * `/extended/v1/burnchain/…` (PoX rewards and reward slot holders) over the two recordings that pay PoX rewards (the
 * epoch 3 transition and the fuzzed transactions), replayed through the real observer and indexer, against the rewards read from the raw `/new_burn_block` bodies (`burnchainOracle`); then
 * after a burnchain fork applied by the indexer's own burn-block writer to this file's copy of the database (a competing
 * block at a height that paid rewards, a repeat of the replaced block, a new block above), the same checks again and the
 * indexer's totals equal to their from-scratch definition.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, testInfra } from '@bda/test-support';
import { encodeStacksAddress, parsePoxAddress } from '@bda/stacks-codec';
import { applyBurnBlock } from '../../indexer/src/stacks/apply-burn-block';
import { startApi, type ApiHarness } from './support/api-harness';
import { burnchainOracle, type BurnchainOracle, type OracleReward, type OracleSlotHolder } from './chain-fixture-oracle';

let api: ApiHarness;

const reward = (r: OracleReward) => ({ canonical: true, ...r });
const slot = (s: OracleSlotHolder) => ({ canonical: true, ...s });

/** Every page of `path` at `limit`, concatenated (its `total` checked on each page when given). */
async function walk(path: string, limit: number, total?: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let offset = 0; ; offset += limit) {
    const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}&offset=${offset}`);
    expectMessage(`${path} offset ${offset}`, () => expect(res.status).toBe(200));
    expect(res.body).toMatchObject({ limit, offset });
    if (total !== undefined) expect(res.body.total).toBe(total);
    out.push(...res.body.results);
    if (res.body.results.length < limit) return out;
  }
}

/** The testnet Stacks address of a base58 P2PKH Bitcoin address's hash (ST…), through c32check, not the api's encoder. */
function stacksAddressOf(btc: string): string {
  const pox = parsePoxAddress(btc);
  return encodeStacksAddress(26, pox.hashbytes);
}

/** Pages of two at offsets spread over each list (inside a burn block, across, the last, past the end). */
async function checkOffsets(oracle: BurnchainOracle): Promise<void> {
  for (const [path, want] of [
    ['/extended/v1/burnchain/rewards', oracle.rewards.map(reward)],
    ['/extended/v1/burnchain/reward_slot_holders', oracle.slotHolders.map(slot)],
  ] as const) {
    const offsets = new Set([...Array.from({ length: 8 }, (_, i) => Math.floor((i * want.length) / 8)), want.length - 1]);
    for (const offset of [...offsets, want.length, want.length + 3]) {
      const res = await api.get(`${path}?limit=2&offset=${offset}`);
      expectMessage(`${path} offset ${offset}`, () => expect(res.body.results).toEqual(want.slice(offset, offset + 2)));
    }
  }
}

/** `chain_burnchain_positions` against what migration 081 computes from scratch over the canonical rows. */
async function checkPositionsReadModel(): Promise<void> {
  const scratch = await api.db.raw(
    `SELECT g.list, g.h AS burn_block_height, (sum(g.n) OVER (PARTITION BY g.list ORDER BY g.h) - g.n)::text AS rows_before,
            g.n::int AS row_count
     FROM (SELECT 'rewards' AS list, r.burn_block_height AS h, count(*) AS n FROM burn_block_rewards r
             JOIN burn_blocks b ON b.burn_block_hash = r.burn_block_hash AND b.canonical GROUP BY r.burn_block_height
           UNION ALL
           SELECT 'slots', s.burn_block_height, count(*) FROM burn_block_slot_holders s
             JOIN burn_blocks b ON b.burn_block_hash = s.burn_block_hash AND b.canonical GROUP BY s.burn_block_height) g
     ORDER BY g.list, g.h`,
  );
  const kept = await api.db.raw(
    `SELECT list, burn_block_height, rows_before::text, row_count FROM chain_burnchain_positions ORDER BY list, burn_block_height`,
  );
  expect(kept.rows).toEqual(scratch.rows);
}

/** The endpoints agree with `oracle`, for everyone and for every address it knows. */
async function checkAgainst(oracle: BurnchainOracle): Promise<void> {
  await checkOffsets(oracle);
  await checkPositionsReadModel();
  expect(await walk('/extended/v1/burnchain/rewards', 5)).toEqual(oracle.rewards.map(reward));
  expect(await walk('/extended/v1/burnchain/reward_slot_holders', 4, oracle.slotHolders.length)).toEqual(
    oracle.slotHolders.map(slot),
  );
  const first = await api.get('/extended/v1/burnchain/rewards');
  expect(first.body).toMatchObject({ limit: 96, offset: 0 });
  expect(first.body.results).toEqual(oracle.rewards.slice(0, 96).map(reward));
  const addresses = new Set([...oracle.rewards.map((r) => r.reward_recipient), ...oracle.slotHolders.map((s) => s.address)]);
  for (const address of addresses) {
    const mine = oracle.rewards.filter((r) => r.reward_recipient === address).map(reward);
    const got = await walk(`/extended/v1/burnchain/rewards/${address}`, 3);
    expectMessage(address, () => expect(got).toEqual(mine));
    const slots = oracle.slotHolders.filter((s) => s.address === address).map(slot);
    expect(await walk(`/extended/v1/burnchain/reward_slot_holders/${address}`, 2, slots.length)).toEqual(slots);
    const total = await api.get(`/extended/v1/burnchain/rewards/${address}/total`);
    expect(total.body).toEqual({ reward_recipient: address, reward_amount: String(oracle.totals.get(address) ?? 0n) });
  }
}

/** `chain_burnchain_totals` against what migration 060 computes from scratch over the canonical rows. */
async function checkTotalsReadModel(): Promise<void> {
  const scratch = await api.db.raw(
    `SELECT address, sum(slots)::text AS slot_count, sum(amount)::text AS reward_amount FROM (
       SELECT s.address, 1 AS slots, 0::numeric AS amount FROM burn_block_slot_holders s
         JOIN burn_blocks b ON b.burn_block_hash = s.burn_block_hash AND b.canonical
       UNION ALL SELECT r.recipient, 0, r.amount FROM burn_block_rewards r
         JOIN burn_blocks b ON b.burn_block_hash = r.burn_block_hash AND b.canonical
     ) x GROUP BY address ORDER BY address`,
  );
  const kept = await api.db.raw(
    `SELECT address, slot_count::text, reward_amount::text FROM chain_burnchain_totals
     WHERE address <> '' AND (slot_count <> 0 OR reward_amount <> 0) ORDER BY address`,
  );
  expect(kept.rows).toEqual(scratch.rows);
  const all = await api.db.raw(`SELECT slot_count::text, reward_amount::text FROM chain_burnchain_totals WHERE address = ''`);
  const sum = (k: 'slot_count' | 'reward_amount') =>
    String(scratch.rows.reduce((n: bigint, r: Record<string, string>) => n + BigInt(r[k]!), 0n));
  expect(all.rows).toEqual([{ slot_count: sum('slot_count'), reward_amount: sum('reward_amount') }]);
}

describe.each(['epoch-3-transition.tsv', 'fuzzed-transactions-1.tsv'])('burnchain rewards over %s', (FIXTURE) => {
  /** The burn blocks this file's tests applied to its copy of the database, in order. */
  const applied: Array<Parameters<typeof applyBurnBlock>[1] & Record<string, unknown>> = [];
  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl, { fixture: FIXTURE });
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('has rewards and slot holders to check (the recording paid PoX rewards)', () => {
    const oracle = burnchainOracle(FIXTURE);
    expect(oracle.rewards.length).toBeGreaterThan(3);
    expect(oracle.slotHolders.length).toBeGreaterThan(3);
  });

  it('lists rewards and slot holders, per address too, with their totals, as the raw burn blocks say', async () => {
    await checkAgainst(burnchainOracle(FIXTURE));
    await checkTotalsReadModel();
  });

  it('takes a Stacks address for the Bitcoin address of the same hash', async () => {
    const { rewards } = burnchainOracle(FIXTURE);
    const btc = rewards[0]!.reward_recipient;
    const stx = stacksAddressOf(btc);
    expect(stx).toMatch(/^ST/);
    for (const path of [
      `/extended/v1/burnchain/rewards/${stx}`,
      `/extended/v1/burnchain/reward_slot_holders/${stx}`,
      `/extended/v1/burnchain/rewards/${stx}/total`,
    ]) {
      const viaStx = await api.get(path);
      const viaBtc = await api.get(path.replace(stx, btc));
      expectMessage(path, () => expect(viaStx.body).toEqual(viaBtc.body));
    }
    expect((await api.get(`/extended/v1/burnchain/rewards/${stx}/total`)).body.reward_recipient).toBe(btc);
  });

  it('answers an address never rewarded with nothing, and a malformed one with a 400 naming address', async () => {
    const stranger = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    expect((await api.get(`/extended/v1/burnchain/rewards/${stranger}/total`)).body).toEqual({
      reward_recipient: stranger,
      reward_amount: '0',
    });
    expect((await api.get(`/extended/v1/burnchain/rewards/${stranger}`)).body.results).toEqual([]);
    expect((await api.get(`/extended/v1/burnchain/reward_slot_holders/${stranger}`)).body).toMatchObject({
      total: 0,
      results: [],
    });
    for (const path of [
      '/extended/v1/burnchain/rewards/mnvi1WQb3cm2QMeeKe6G9D7L1GsjmmGTdb',
      '/extended/v1/burnchain/reward_slot_holders/not-an-address',
      '/extended/v1/burnchain/rewards/SP000000000000000000002Q6VF79/total',
    ]) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain('address');
    }
    for (const [path, name] of [
      ['/extended/v1/burnchain/rewards?limit=251', 'limit'],
      ['/extended/v1/burnchain/reward_slot_holders?offset=-1', 'offset'],
    ] as const) {
      const res = await api.get(path);
      expectMessage(path, () => expect(res.status).toBe(400));
      expect(res.body.message).toContain(name);
    }
  });

  it('follows a burnchain fork: the replaced block leaves every list and total, a repeat changes nothing', async () => {
    const base = burnchainOracle(FIXTURE);
    const top = base.rewards[0]!;
    const replacedHeight = top.burn_block_height;
    const fork = {
      burn_block_hash: `0x${'f0'.repeat(32)}`,
      burn_block_height: replacedHeight,
      burn_amount: 7,
      reward_recipients: [
        { recipient: 'mxXw9bceXuFB6HZjqriS527kTqt5H9VczT', amt: '123456789012345678901234567890' },
        { recipient: top.reward_recipient, amt: 5 },
      ],
      reward_slot_holders: ['mxXw9bceXuFB6HZjqriS527kTqt5H9VczT', top.reward_recipient],
    };
    // The replaced block again (known: stays replaced), then a new block above everything.
    const repeat = { burn_block_hash: top.burn_block_hash, burn_block_height: replacedHeight, burn_amount: 0 };
    const above = {
      burn_block_hash: `0x${'f1'.repeat(32)}`,
      burn_block_height: Math.max(...base.rewards.map((r) => r.burn_block_height), 10_000) + 1,
      burn_amount: 0,
      reward_recipients: [{ recipient: top.reward_recipient, amt: 1 }],
      reward_slot_holders: [top.reward_recipient],
    };
    for (const b of [fork, repeat, above]) await api.db.transaction((trx) => applyBurnBlock(trx, b));
    applied.push(fork, repeat, above);
    const after = burnchainOracle(FIXTURE, applied);
    expect(after.rewards.some((r) => r.burn_block_hash === top.burn_block_hash)).toBe(false);
    expect(after.rewards.filter((r) => r.burn_block_height === replacedHeight)).toHaveLength(2);
    await checkAgainst(after);
    await checkTotalsReadModel();
  });

  it('moves the positions of every later reward and slot when a fork replaces an old burn block', async () => {
    const before = burnchainOracle(FIXTURE, applied);
    const oldest = before.rewards[before.rewards.length - 1]!;
    const held = before.rewards.filter((r) => r.burn_block_height === oldest.burn_block_height).length;
    const fork = {
      burn_block_hash: `0x${'f2'.repeat(32)}`,
      burn_block_height: oldest.burn_block_height,
      burn_amount: 3,
      reward_recipients: [1, 2, 3, 4].slice(0, held + 2).map((amt) => ({ recipient: 'mxXw9bceXuFB6HZjqriS527kTqt5H9VczT', amt })),
      reward_slot_holders: ['mxXw9bceXuFB6HZjqriS527kTqt5H9VczT', oldest.reward_recipient, oldest.reward_recipient],
    };
    await api.db.transaction((trx) => applyBurnBlock(trx, fork));
    applied.push(fork);
    const after = burnchainOracle(FIXTURE, applied);
    // Every reward above the fork's height now sits two positions further from the oldest.
    expect(after.rewards.length).toBe(before.rewards.length + 2);
    expect(after.rewards.filter((r) => r.burn_block_hash === fork.burn_block_hash)).toHaveLength(held + 2);
    await checkAgainst(after);
    await checkTotalsReadModel();
  });
});
