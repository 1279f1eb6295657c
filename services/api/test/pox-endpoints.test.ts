/**
 * The PoX family (`/extended/v1/{pox}/…`, `/extended/v2/pox/cycles…`) over recorded fixtures replayed through the real
 * observer and indexer, against an independent oracle computed here from the fixture's raw node events: the canonical
 * chain by fork choice (chain-fixture-oracle.ts), the PoX contracts' `print` values decoded with `@stacks/transactions`
 * (not the project's codec), reward addresses encoded with `c32check`, signer addresses with `@stacks/transactions`,
 * and the reward sets as the node sent them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, testInfra } from '@bda/test-support';
import { ClarityType, getAddressFromPublicKey, hexToCV, type ClarityValue } from '@stacks/transactions';
import { c32address, c32ToB58 } from 'c32check';
import { createClient } from '@stacks/blockchain-api-client';
import { schemaValidator, startApi, type ApiHarness } from './support/api-harness';
import { seedCanonicalChain } from './support/seed';
import { loadRecordedEvents } from './support/replayed-database';
import { chainOracle } from './chain-fixture-oracle';

const POX_FIXTURE = 'regtest-env-pox-4-stack-stx-in-reward-phase-S1.tsv';
const EPOCH3_FIXTURE = 'epoch-3-transition.tsv';

const BOOT = ['SP000000000000000000002Q6VF78', 'ST000000000000000000002AMW42H'];
const CONTRACT_VERSION = new Map(BOOT.flatMap((b) => [2, 3, 4].map((v) => [`${b}.pox-${v}`, v] as const)));

/**
 * The fields of each operation's `data` the reference API answers (its PoX event parser, read for the facts), without
 * the cycle ids every one of them carries; `signer_key` only for pox-4.
 */
const DATA_FIELDS: Record<string, string[]> = {
  'handle-unlock': ['first-cycle-locked', 'first-unlocked-cycle'],
  'stack-stx': ['lock-amount', 'lock-period', 'start-burn-height', 'unlock-burn-height', 'signer-key'],
  'stack-increase': ['increase-by', 'total-locked', 'signer-key'],
  'stack-extend': ['extend-count', 'unlock-burn-height', 'signer-key'],
  'delegate-stx': ['amount-ustx', 'delegate-to', 'unlock-burn-height'],
  'delegate-stack-stx': ['lock-amount', 'unlock-burn-height', 'start-burn-height', 'lock-period', 'delegator'],
  'delegate-stack-increase': ['increase-by', 'total-locked', 'delegator'],
  'delegate-stack-extend': ['unlock-burn-height', 'extend-count', 'delegator'],
  'stack-aggregation-commit': ['reward-cycle', 'amount-ustx', 'signer-key'],
  'stack-aggregation-commit-indexed': ['reward-cycle', 'amount-ustx', 'signer-key'],
  'stack-aggregation-increase': ['reward-cycle', 'amount-ustx'],
  'revoke-delegate-stx': ['delegate-to'],
};

type Plain = string | null | { [k: string]: Plain };

/** A Clarity value as plain data: integers as decimal strings, buffers as `0x` hex, `none` as null, `some x` as x. */
function plain(cv: ClarityValue): Plain {
  switch (cv.type) {
    case ClarityType.UInt:
    case ClarityType.Int:
      return BigInt(cv.value).toString();
    case ClarityType.Buffer:
      return `0x${cv.value}`;
    case ClarityType.StringASCII:
    case ClarityType.StringUTF8:
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
      return cv.value;
    case ClarityType.OptionalNone:
      return null;
    case ClarityType.OptionalSome:
    case ClarityType.ResponseOk:
      return plain(cv.value);
    case ClarityType.Tuple:
      return Object.fromEntries(Object.entries(cv.value).map(([k, v]) => [k, plain(v)]));
    default:
      throw new Error(`unexpected Clarity type ${cv.type} in a PoX event`);
  }
}

interface ExpectedEvent {
  version: number;
  block_height: number;
  tx_id: string;
  tx_index: number;
  event_index: number;
  stacker: string;
  locked: string;
  balance: string;
  burnchain_unlock_height: string;
  pox_addr: string | null;
  pox_addr_raw: string | null;
  name: string;
  data: Record<string, string | null>;
}

interface ExpectedCycle {
  block_height: number;
  index_block_hash: string;
  cycle_number: number;
  signers: Array<{ signing_key: string; weight: number; stacked_amount: bigint }>;
}

const snake = (k: string) => k.replace(/-/g, '_');

/** A p2pkh PoX address (version 0) on testnet, as base58check; the fixtures carry no other kind. */
function btcAddress(version: string, hashbytes: string): string {
  if (version !== '0x00') throw new Error(`the oracle encodes p2pkh reward addresses only, got version ${version}`);
  return c32ToB58(c32address(26, hashbytes.slice(2)));
}

/** The fixture's PoX events of canonical blocks and the reward sets canonical blocks carried, from the raw events. */
function poxOracle(fixture: string): { events: ExpectedEvent[]; cycles: ExpectedCycle[]; txIds: string[] } {
  const canonical = new Set(chainOracle(fixture).canonical.map((b) => b.index_block_hash));
  const events: ExpectedEvent[] = [];
  const cycles = new Map<number, ExpectedCycle>();
  const txIds: string[] = [];
  const done = new Set<string>();
  for (const rec of loadRecordedEvents(fixture)) {
    if (rec.path !== '/new_block') continue;
    const b = JSON.parse(rec.body);
    const hash = (b.index_block_hash as string).toLowerCase();
    if (!canonical.has(hash) || done.has(hash)) continue;
    done.add(hash);
    const txs = new Map<string, { tx_index: number; status: string }>();
    for (const t of b.transactions) {
      txs.set(t.txid.toLowerCase(), { tx_index: t.tx_index, status: t.status });
      txIds.push(t.txid.toLowerCase());
    }
    if (b.reward_set && b.cycle_number != null && !cycles.has(b.cycle_number)) {
      cycles.set(b.cycle_number, {
        block_height: b.block_height,
        index_block_hash: hash,
        cycle_number: b.cycle_number,
        signers: (b.reward_set.signers ?? []).map((s: { signing_key: string; weight: number; stacked_amt: string }) => ({
          signing_key: `0x${s.signing_key}`,
          weight: s.weight,
          stacked_amount: BigInt(s.stacked_amt),
        })),
      });
    }
    for (const ev of b.events) {
      const body = ev.contract_event;
      if (ev.type !== 'contract_event' || body.topic !== 'print' || ev.committed === false) continue;
      const version = CONTRACT_VERSION.get(body.contract_identifier);
      const tx = txs.get(ev.txid.toLowerCase());
      if (!version || tx?.status !== 'success') continue;
      const cv = hexToCV(body.raw_value);
      if (cv.type !== ClarityType.ResponseOk) continue;
      const top = plain(cv) as Record<string, Plain>;
      const d = top['data'] as Record<string, Plain>;
      const name = top['name'] as string;
      let locked = BigInt(top['locked'] as string);
      let balance = BigInt(top['balance'] as string);
      let unlock = BigInt(top['burnchain-unlock-height'] as string);
      const n = (k: string) => BigInt(d[k] as string);
      // The reference API's state after the operation (the node prints the state before it).
      if (name === 'stack-stx' || name === 'delegate-stack-stx') {
        [locked, balance, unlock] = [n('lock-amount'), balance - n('lock-amount'), n('unlock-burn-height')];
      } else if (name === 'stack-increase' || name === 'delegate-stack-increase') {
        [locked, balance] = [locked + n('increase-by'), balance - n('increase-by')];
      } else if (name === 'stack-extend' || name === 'delegate-stack-extend') {
        unlock = n('unlock-burn-height');
      } else if (name === 'delegate-stx' && d['unlock-burn-height'] != null) {
        unlock = n('unlock-burn-height');
      } else if (name === 'handle-unlock') {
        balance += locked;
      }
      const data: Record<string, string | null> = {};
      for (const k of DATA_FIELDS[name]!) {
        if (k === 'signer-key' && version !== 4) continue;
        if (name === 'delegate-stx' && k === 'unlock-burn-height' && d[k] == null) continue;
        data[snake(k)] = (d[k] ?? null) as string | null;
      }
      data['end_cycle_id'] = (d['end-cycle-id'] ?? null) as string | null;
      data['start_cycle_id'] = (d['start-cycle-id'] ?? null) as string | null;
      const addr = d['pox-addr'] as Record<string, string> | null | undefined;
      events.push({
        version,
        block_height: b.block_height,
        tx_id: ev.txid.toLowerCase(),
        tx_index: tx.tx_index,
        event_index: ev.event_index,
        stacker: top['stacker'] as string,
        locked: locked.toString(),
        balance: balance.toString(),
        burnchain_unlock_height: unlock.toString(),
        pox_addr: addr ? btcAddress(addr['version']!, addr['hashbytes']!) : null,
        pox_addr_raw: addr ? `0x${addr['version']!.slice(2)}${addr['hashbytes']!.slice(2)}` : addr === null ? '0x' : null,
        name,
        data,
      });
    }
  }
  events.sort((x, y) => y.block_height - x.block_height || y.tx_index - x.tx_index || y.event_index - x.event_index);
  return { events, cycles: [...cycles.values()].sort((x, y) => y.cycle_number - x.cycle_number), txIds };
}

const answer = ({ version: _v, ...rest }: ExpectedEvent) => rest;

/**
 * The stackers behind `key` in cycle `n` by the rule the endpoints document: a solo stacker's newest stack-stx,
 * stack-increase or stack-extend covering `n` names the key (the fixtures have no pools).
 */
function soloStackers(events: ExpectedEvent[], n: number, key: string): ExpectedEvent[] {
  const newest = new Map<string, ExpectedEvent>();
  for (const e of events) {
    if (e.version !== 4 || !['stack-stx', 'stack-increase', 'stack-extend'].includes(e.name)) continue;
    const start = Number(e.data['start_cycle_id']);
    const end = e.data['end_cycle_id'] === null ? -1 : Number(e.data['end_cycle_id']);
    if (!(start <= n && end > n)) continue;
    if (!newest.has(e.stacker)) newest.set(e.stacker, e); // events are newest first
  }
  return [...newest.values()]
    .filter((e) => e.data['signer_key'] === key)
    .sort((x, y) =>
      BigInt(y.locked) > BigInt(x.locked) ? 1 : BigInt(y.locked) < BigInt(x.locked) ? -1 : x.stacker < y.stacker ? -1 : 1,
    );
}

describe.each([POX_FIXTURE, EPOCH3_FIXTURE])('PoX endpoints over %s', (fixture) => {
  let api: ApiHarness;
  let oracle: ReturnType<typeof poxOracle>;

  beforeAll(async () => {
    oracle = poxOracle(fixture);
    api = await startApi(testInfra().databaseUrl, { fixture, listen: true });
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('lists each PoX contract’s events newest first, as decoded from the raw print events', async () => {
    expect(oracle.events.length).toBeGreaterThan(0);
    for (const version of [2, 3, 4]) {
      const want = oracle.events.filter((e) => e.version === version).map(answer);
      const all = await api.get(`/extended/v1/pox${version}/events?limit=200`);
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ limit: 200, offset: 0, results: want });
      const pages: unknown[] = [];
      for (let offset = 0; offset < want.length + 2; offset += 2) {
        pages.push(...(await api.get(`/extended/v1/pox${version}/events?limit=2&offset=${offset}`)).body.results);
      }
      expect(pages).toEqual(want);
      // Pages of three from every offset (starting inside a block or at its edge) and past the end.
      for (let offset = 0; offset <= want.length + 1; offset++) {
        const res = await api.get(`/extended/v1/pox${version}/events?limit=3&offset=${offset}`);
        expectMessage(`pox${version} offset ${offset}`, () => expect(res.body.results).toEqual(want.slice(offset, offset + 3)));
      }
    }
    expect((await api.get('/extended/v1/pox4/events')).body.limit).toBe(96);
  });

  it('answers a transaction’s and a stacker’s events', async () => {
    const pox4 = oracle.events.filter((e) => e.version === 4);
    for (const txId of new Set(pox4.map((e) => e.tx_id))) {
      const res = await api.get(`/extended/v1/pox4/tx/${txId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: pox4.filter((e) => e.tx_id === txId).map(answer) });
      expect((await api.get(`/extended/v1/pox4/tx/${txId.slice(2).toUpperCase()}`)).body).toEqual(res.body);
      expect((await api.get(`/extended/v1/pox3/tx/${txId}`)).body).toEqual({ results: [] });
    }
    for (const stacker of new Set(pox4.map((e) => e.stacker))) {
      const res = await api.get(`/extended/v1/pox4/stacker/${stacker}`);
      expect(res.body).toEqual({ results: pox4.filter((e) => e.stacker === stacker).map(answer) });
    }
    // A canonical transaction with no PoX event, and one that is in no block.
    const quiet = oracle.txIds.find((id) => !pox4.some((e) => e.tx_id === id))!;
    expect((await api.get(`/extended/v1/pox4/tx/${quiet}`)).body).toEqual({ results: [] });
    expect((await api.get(`/extended/v1/pox4/tx/0x${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await api.get('/extended/v1/pox4/stacker/ST000000000000000000002AMW42H')).body).toEqual({ results: [] });
  });

  it('lists a pool’s members (none delegate in these fixtures) and refuses a height without a block', async () => {
    const pool = '/extended/v1/pox4/ST000000000000000000002AMW42H/delegations';
    expect((await api.get(pool)).body).toEqual({ limit: 100, offset: 0, total: 0, results: [] });
    expect((await api.get(`${pool}?height=1&after_block=1`)).status).toBe(200);
    const far = await api.get(`${pool}?height=99999`);
    expect(far.status).toBe(404);
  });

  it('lists the reward cycles a canonical block carried, with their signers and stackers', async () => {
    const cycles = await api.get('/extended/v2/pox/cycles?limit=60');
    const totals = oracle.cycles.map((c) => ({
      block_height: c.block_height,
      index_block_hash: c.index_block_hash,
      cycle_number: c.cycle_number,
      total_weight: c.signers.reduce((a, s) => a + s.weight, 0),
      total_stacked_amount: c.signers.reduce((a, s) => a + s.stacked_amount, 0n).toString(),
      total_signers: c.signers.length,
    }));
    expect(cycles.body).toEqual({ limit: 60, offset: 0, total: totals.length, results: totals });
    if (fixture === EPOCH3_FIXTURE) expect(totals.map((c) => c.cycle_number)).toEqual([14, 13, 12, 11]);
    for (const c of oracle.cycles) {
      const one = await api.get(`/extended/v2/pox/cycles/${c.cycle_number}`);
      expect(one.body).toEqual(totals.find((t) => t.cycle_number === c.cycle_number));
      const totalWeight = c.signers.reduce((a, s) => a + s.weight, 0);
      const totalStacked = c.signers.reduce((a, s) => a + s.stacked_amount, 0n);
      const want = [...c.signers]
        .sort(
          (x, y) =>
            y.weight - x.weight || Number(y.stacked_amount - x.stacked_amount) || (x.signing_key < y.signing_key ? -1 : 1),
        )
        .map((s) => ({
          signing_key: s.signing_key,
          signer_address: getAddressFromPublicKey(s.signing_key.slice(2), 'testnet'),
          weight: s.weight,
          stacked_amount: s.stacked_amount.toString(),
          weight_percent: (s.weight / totalWeight) * 100,
          stacked_amount_percent: (Number(s.stacked_amount) / Number(totalStacked)) * 100,
          solo_stacker_count: soloStackers(oracle.events, c.cycle_number, s.signing_key).length,
          pooled_stacker_count: 0,
        }));
      const signers = await api.get(`/extended/v2/pox/cycles/${c.cycle_number}/signers`);
      expect(signers.body).toMatchObject({ limit: 100, offset: 0, total: want.length });
      expect(signers.body.results).toHaveLength(want.length);
      for (const [i, w] of want.entries()) {
        const got = signers.body.results[i];
        expect({ ...got, weight_percent: 0, stacked_amount_percent: 0 }).toEqual({
          ...w,
          weight_percent: 0,
          stacked_amount_percent: 0,
        });
        expect(got.weight_percent).toBeCloseTo(w.weight_percent, 9);
        expect(got.stacked_amount_percent).toBeCloseTo(w.stacked_amount_percent, 9);
        const single = await api.get(`/extended/v2/pox/cycles/${c.cycle_number}/signers/${w.signing_key.slice(2).toUpperCase()}`);
        expect(single.body).toEqual(got);
        const stackers = await api.get(`/extended/v2/pox/cycles/${c.cycle_number}/signers/${w.signing_key}/stackers`);
        const solo = soloStackers(oracle.events, c.cycle_number, w.signing_key).map((e) => ({
          stacker_address: e.stacker,
          stacked_amount: e.locked,
          pox_address: e.pox_addr,
          stacker_type: 'solo',
        }));
        expect(stackers.body).toEqual({ limit: 100, offset: 0, total: solo.length, results: solo });
      }
    }
    if (fixture === EPOCH3_FIXTURE) {
      // Every signer of cycles 12–14 has its one solo stacker (a stack-stx for 12, then two stack-extends).
      for (const n of [12, 13, 14]) {
        const res = await api.get(`/extended/v2/pox/cycles/${n}/signers`);
        expect(res.body.results.map((s: { solo_stacker_count: number }) => s.solo_stacker_count)).toEqual([1, 1, 1]);
      }
    }
    const missing = await api.get('/extended/v2/pox/cycles/999');
    expect(missing.status).toBe(404);
    expect((await api.get('/extended/v2/pox/cycles/999/signers')).status).toBe(404);
    expect((await api.get(`/extended/v2/pox/cycles/999/signers/0x02${'11'.repeat(32)}`)).status).toBe(404);
    expect((await api.get(`/extended/v2/pox/cycles/999/signers/0x02${'11'.repeat(32)}/stackers`)).status).toBe(404);
  });

  it('is called by the official client (unmodified): no error, typed data valid against the schemas', async () => {
    const client = createClient({ baseUrl: api.baseUrl });
    const valid = <T>(template: string, r: { data?: T; error?: unknown; response: Response }): T => {
      expect([template, r.response.status, r.error]).toEqual([template, 200, undefined]);
      schemaValidator.validateResponse(template, 'get', 200, r.data);
      return r.data!;
    };
    const e = oracle.events.find((x) => x.version === 4)!;
    const events = valid(
      '/extended/v1/pox4/events',
      await client.GET('/extended/v1/{pox}/events', { params: { path: { pox: 'pox4' }, query: { limit: 200 } } }),
    );
    // The reference documents no response body for the v1 PoX routes: the client types it `never`.
    expect((events as unknown as { results: Array<{ tx_id: string }> }).results.map((r) => r.tx_id)).toEqual(
      oracle.events.filter((x) => x.version === 4).map((x) => x.tx_id),
    );
    const byTx = valid(
      '/extended/v1/pox4/tx/{tx_id}',
      await client.GET('/extended/v1/{pox}/tx/{tx_id}', { params: { path: { pox: 'pox4', tx_id: e.tx_id } } }),
    );
    expect((byTx as unknown as { results: unknown[] }).results.length).toBeGreaterThan(0);
    valid(
      '/extended/v1/pox4/stacker/{principal}',
      await client.GET('/extended/v1/{pox}/stacker/{principal}', { params: { path: { pox: 'pox4', principal: e.stacker } } }),
    );
    valid(
      '/extended/v1/pox4/{pool_principal}/delegations',
      await client.GET('/extended/v1/{pox}/{pool_principal}/delegations', {
        params: { path: { pox: 'pox4', pool_principal: e.stacker } },
      }),
    );
    const cycles = valid('/extended/v2/pox/cycles', await client.GET('/extended/v2/pox/cycles'));
    expect(cycles.total).toBe(oracle.cycles.length);
    for (const c of oracle.cycles.slice(0, 2)) {
      const path = { cycle_number: c.cycle_number };
      valid(
        '/extended/v2/pox/cycles/{cycle_number}',
        await client.GET('/extended/v2/pox/cycles/{cycle_number}', { params: { path } }),
      );
      const signers = valid(
        '/extended/v2/pox/cycles/{cycle_number}/signers',
        await client.GET('/extended/v2/pox/cycles/{cycle_number}/signers', { params: { path } }),
      );
      for (const s of signers.results.slice(0, 2)) {
        const keyPath = { ...path, signer_key: s.signing_key };
        valid(
          '/extended/v2/pox/cycles/{cycle_number}/signers/{signer_key}',
          await client.GET('/extended/v2/pox/cycles/{cycle_number}/signers/{signer_key}', { params: { path: keyPath } }),
        );
        valid(
          '/extended/v2/pox/cycles/{cycle_number}/signers/{signer_key}/stackers',
          await client.GET('/extended/v2/pox/cycles/{cycle_number}/signers/{signer_key}/stackers', { params: { path: keyPath } }),
        );
      }
    }
  });

  it('answers malformed parameters with a 400 JSON error naming them, and unknown contracts with a 404', async () => {
    const bad: Array<[string, string]> = [
      ['/extended/v1/pox4/events?limit=201', 'limit'],
      ['/extended/v1/pox4/events?offset=-1', 'offset'],
      ['/extended/v1/pox4/events?limit=abc', 'limit'],
      ['/extended/v1/pox4/tx/0x1234', 'tx_id'],
      ['/extended/v1/pox3/tx/zz', 'tx_id'],
      ['/extended/v1/pox4/stacker/not-a-principal', 'principal'],
      ['/extended/v1/pox2/stacker/SP000000000000000000002Q6VF79', 'principal'],
      ['/extended/v1/pox4/nope/delegations', 'pool_principal'],
      ['/extended/v1/pox4/ST000000000000000000002AMW42H/delegations?height=0', 'height'],
      ['/extended/v1/pox4/ST000000000000000000002AMW42H/delegations?after_block=x', 'after_block'],
      ['/extended/v1/pox4/ST000000000000000000002AMW42H/delegations?limit=201', 'limit'],
      ['/extended/v1/pox4/ST000000000000000000002AMW42H/delegations?unanchored=yes', 'unanchored'],
      ['/extended/v2/pox/cycles?limit=61', 'limit'],
      ['/extended/v2/pox/cycles/-1', 'cycle_number'],
      ['/extended/v2/pox/cycles/1.5', 'cycle_number'],
      ['/extended/v2/pox/cycles/99999999999', 'cycle_number'],
      ['/extended/v2/pox/cycles/x/signers', 'cycle_number'],
      ['/extended/v2/pox/cycles/12/signers?limit=251', 'limit'],
      ['/extended/v2/pox/cycles/12/signers/0x02', 'signer_key'],
      ['/extended/v2/pox/cycles/12/signers/nothex/stackers', 'signer_key'],
      ['/extended/v2/pox/cycles/12/signers/0x02' + '11'.repeat(32) + '/stackers?offset=x', 'offset'],
    ];
    for (const [path, name] of bad) {
      const res = await api.get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.message).toContain(name);
    }
    for (const path of ['/extended/v1/pox5/events', '/extended/v1/pox1/tx/0x' + '00'.repeat(32)]) {
      const res = await api.get(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});

/**
 * Pools and signer changes the recorded fixtures do not have, on read-model rows written here by hand (as the indexer
 * writes them, see services/indexer/test/pox-read-models.test.ts): a pool's members at the tip and at a height, and
 * which stackers stand behind which signer in a cycle when stackers move between signers and pools.
 */
describe('PoX pools and signers over hand-written read-model rows', () => {
  let api: ApiHarness;
  const addr = (n: number) => c32address(26, n.toString(16).padStart(2, '0').repeat(20));
  const [S, T, A, B, C, D, P1, P2] = [1, 2, 3, 4, 5, 6, 7, 8].map(addr) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const K1 = `0x02${'a1'.repeat(32)}`;
  const K2 = `0x03${'b2'.repeat(32)}`;
  let seq = 0;
  let hash: (h: number) => string;
  const row = (h: number, name: string, stacker: string, cols: Record<string, unknown>) => ({
    index_block_hash: hash(h),
    event_index: seq++,
    pox_version: 4,
    block_height: h,
    tx_id: `0x${(seq + 1).toString(16).padStart(64, '0')}`,
    tx_index: 0,
    name,
    stacker,
    locked: '0',
    balance: '0',
    burnchain_unlock_height: '0',
    data: JSON.stringify({ probe: name }),
    ...cols,
  });

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl);
    const blocks = await seedCanonicalChain(api.db, 1, 10);
    hash = (h) => blocks[h - 1]!.index_block_hash;
    const cycle = (start: number, end: number | null) => ({ start_cycle_id: start, end_cycle_id: end });
    await api
      .db('pox_events')
      .insert([
        row(1, 'stack-stx', S, { locked: '1000', signer_key: K1, pox_addr: 'addr-S', ...cycle(19, 21) }),
        row(2, 'stack-stx', T, { locked: '300', signer_key: K1, pox_addr: 'addr-T', ...cycle(20, 21) }),
        row(2, 'delegate-stx', A, { delegate_to: P1, amount_ustx: '100', pox_addr: 'addr-A' }),
        row(3, 'delegate-stx', B, { delegate_to: P1, amount_ustx: '200', unlock_burn_height: 800_005 }),
        row(4, 'delegate-stx', C, { delegate_to: P1, amount_ustx: '300' }),
        row(5, 'delegate-stack-stx', A, { delegator: P1, locked: '90', pox_addr: 'addr-P1', ...cycle(20, 22) }),
        row(5, 'delegate-stack-stx', D, { delegator: P1, locked: '50', pox_addr: 'addr-P1', ...cycle(20, 21) }),
        row(6, 'revoke-delegate-stx', C, { delegate_to: P1 }),
        row(6, 'stack-aggregation-commit-indexed', P1, { signer_key: K1, amount_ustx: '140', ...cycle(20, 21) }),
        row(7, 'delegate-stack-stx', D, { delegator: P2, locked: '55', pox_addr: 'addr-P2', ...cycle(20, 22) }),
        row(8, 'stack-aggregation-commit-indexed', P2, { signer_key: K2, amount_ustx: '55', ...cycle(20, 21) }),
        row(8, 'stack-increase', T, { locked: '400', signer_key: K2, pox_addr: 'addr-T', ...cycle(20, 21) }),
        row(9, 'stack-extend', S, { locked: '1000', signer_key: K2, pox_addr: 'addr-S', ...cycle(21, 23) }),
      ]);
    await api.db('pox_cycles').insert({
      cycle_number: 20,
      index_block_hash: hash(1),
      block_height: 1,
      total_weight: 4,
      total_stacked_amount: '1550',
      total_signers: 2,
    });
    await api.db('pox_cycle_signers').insert([
      {
        cycle_number: 20,
        signing_key: K1,
        signer_address: S,
        weight: 3,
        stacked_amount: '1090',
        weight_percent: 75,
        stacked_amount_percent: 70.32,
      },
      {
        cycle_number: 20,
        signing_key: K2,
        signer_address: T,
        weight: 1,
        stacked_amount: '460',
        weight_percent: 25,
        stacked_amount_percent: 29.68,
      },
    ]);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  it('lists a pool’s current members: each stacker’s newest delegation, unless revoked or expired', async () => {
    const members = (path: string) => api.get(path).then((r) => r.body);
    const pool = `/extended/v1/pox4/${P1}/delegations`;
    const a = { stacker: A, pox_addr: 'addr-A', amount_ustx: '100', block_height: 2, tx_id: expect.any(String) };
    const b = { stacker: B, amount_ustx: '200', burn_block_unlock_height: 800_005, block_height: 3, tx_id: expect.any(String) };
    const c = { stacker: C, amount_ustx: '300', block_height: 4, tx_id: expect.any(String) };
    // At the tip (burn height 800 010): C revoked, B's delegation ended at 800 005.
    expect(await members(pool)).toEqual({ limit: 100, offset: 0, total: 1, results: [a] });
    // At height 4 (burn height 800 004): all three, newest first; after block 2: B and C.
    expect(await members(`${pool}?height=4`)).toEqual({ limit: 100, offset: 0, total: 3, results: [c, b, a] });
    expect(await members(`${pool}?height=4&after_block=2`)).toEqual({ limit: 100, offset: 0, total: 2, results: [c, b] });
    expect(await members(`${pool}?height=4&limit=1&offset=1`)).toEqual({ limit: 1, offset: 1, total: 3, results: [b] });
    expect(await members(`/extended/v1/pox3/${P1}/delegations`)).toEqual({ limit: 100, offset: 0, total: 0, results: [] });
  });

  it('puts each stacker behind the signer its newest operation covering the cycle names', async () => {
    const stackers = (key: string) => api.get(`/extended/v2/pox/cycles/20/signers/${key}/stackers`).then((r) => r.body);
    // K1: S (its extend with K2 starts at 21) and A (pooled by P1, which committed 20 with K1). T moved to K2 by its
    // increase; D is pooled by P2 now, which committed 20 with K2.
    expect(await stackers(K1)).toEqual({
      limit: 100,
      offset: 0,
      total: 2,
      results: [
        { stacker_address: S, stacked_amount: '1000', pox_address: 'addr-S', stacker_type: 'solo' },
        { stacker_address: A, stacked_amount: '90', pox_address: 'addr-P1', stacker_type: 'pooled' },
      ],
    });
    expect(await stackers(K2)).toEqual({
      limit: 100,
      offset: 0,
      total: 2,
      results: [
        { stacker_address: T, stacked_amount: '400', pox_address: 'addr-T', stacker_type: 'solo' },
        { stacker_address: D, stacked_amount: '55', pox_address: 'addr-P2', stacker_type: 'pooled' },
      ],
    });
    const signers = await api.get('/extended/v2/pox/cycles/20/signers');
    expect(
      signers.body.results.map((s: Record<string, unknown>) => [
        s['signing_key'],
        s['solo_stacker_count'],
        s['pooled_stacker_count'],
      ]),
    ).toEqual([
      [K1, 1, 1],
      [K2, 1, 1],
    ]);
    expect((await api.get(`/extended/v2/pox/cycles/20/signers/${K2}`)).body).toMatchObject({
      solo_stacker_count: 1,
      pooled_stacker_count: 1,
    });
    expect((await api.get(`/extended/v2/pox/cycles/20/signers/0x02${'c3'.repeat(32)}/stackers`)).status).toBe(404);
  });
});
