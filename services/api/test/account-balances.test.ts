import { describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { addressFromVersionHash, addressToString, deserializeTransaction } from '@stacks/transactions';
import {
  numberedListFillSql,
  numberedListNumberSql,
  PRINCIPAL_LIST_TABLES,
  PRINCIPAL_TXS_LIST,
  principalActivityInsertSql,
  principalListAddSql,
  principalListFillSql,
  principalListRemoveSql,
} from '@bda/db';
import { startApi, type ApiHarness } from './support/api-harness';
import type { AccountLedger } from './support/account-ledger';
import { replayedAccounts } from './support/replayed-accounts';
import { loadRecordedEvents } from './support/replayed-database';
import { addCanonicalBlockReadModels, removeAddressTxs } from '../../indexer/src/stacks/read-models';
import {
  getTokenBalanceMapsJson,
  getTokenBalancePageJson,
  TokenBalancePageLoader,
} from '../src/accounts/datastore/token-balances';
import {
  FtFirstPageLoader,
  getFtPositionsJson,
  getNftPositions,
  NftFirstPageLoader,
} from '../src/accounts/datastore/principal-positions';

/** GET on the api (in-process, through supertest); the harness validates the body against the documented schema. */
async function get(api: ApiHarness, path: string): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await api.get(path);
  return { status: res.status, body: res.body, headers: res.headers };
}

/** A JSON answer (validated against its schema before a test reads it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const asStrings = (m: Map<string, bigint>) => Object.fromEntries([...m].map(([k, v]) => [k, v.toString()]));

const ASSET_TYPES = new Set(['stx', 'ft', 'nft'].flatMap((a) => ['transfer', 'mint', 'burn'].map((k) => `${a}_${k}_event`)));

interface ListBlock {
  index_block_hash: string;
  block_height: number;
  transactions: Array<{ txid: string; raw_tx: string; tx_index: number; status?: string; microblock_sequence?: number | null }>;
  events: Array<{ txid: string; event_index: number; committed?: boolean; type: string; [body: string]: unknown }>;
}

/** What a raw transaction names: its origin, a token transfer's recipient, the contract deployed or called. */
function partiesOf(rawTx: string): { origin: string; recipient?: string; contract?: string } | null {
  if (rawTx === '0x00') return null; // a burnchain operation: no bytes to decode
  const tx = deserializeTransaction(rawTx.replace(/^0x/, ''));
  const mainnet = tx.transactionVersion === 0;
  const cond = tx.auth.spendingCondition;
  const origin = addressToString(
    addressFromVersionHash(mainnet ? (cond.hashMode === 0 ? 22 : 20) : cond.hashMode === 0 ? 26 : 21, cond.signer),
  );
  const p = tx.payload as unknown as Record<string, unknown>;
  const name = (p['contractName'] as { content: string } | undefined)?.content;
  switch (p['payloadType']) {
    case 0:
      return { origin, recipient: (p['recipient'] as { value: string }).value };
    case 1:
    case 6:
      return { origin, contract: `${origin}.${name}` };
    case 2: {
      const a = p['contractAddress'] as { version: number; hash160: string };
      return { origin, contract: `${addressToString(addressFromVersionHash(a.version, a.hash160))}.${name}` };
    }
    default:
      return { origin };
  }
}

/**
 * The three numbered v1 lists of every principal over `blocks` (oldest first), newest first as the reference API
 * lists them: its transactions (`transactions_with_transfers`: origin, token-transfer recipient, contract, or party to
 * a committed asset event), its asset events and STX locks (`assets`), and the token transfers to it plus the
 * committed STX transfer events to it carrying a memo (`stx_inbound`). Keys: `tx_id`, `tx_id:event_index`,
 * `tx_id:type`; each with its height.
 */
function numberedLists(blocks: ListBlock[]) {
  type Entry = { key: string; height: number; order: number[] };
  const lists = { txs: new Map<string, Entry[]>(), assets: new Map<string, Entry[]>(), inbound: new Map<string, Entry[]>() };
  const push = (list: Map<string, Entry[]>, p: string | undefined, e: Entry) => {
    if (!p) return;
    const l = list.get(p) ?? [];
    if (!l.some((x) => x.key === e.key)) l.push(e);
    list.set(p, l);
  };
  for (const b of blocks) {
    const txIndex = new Map(b.transactions.map((t) => [t.txid, t.tx_index]));
    for (const t of b.transactions) {
      const d = partiesOf(t.raw_tx);
      const e = { key: t.txid, height: b.block_height, order: [t.tx_index] };
      for (const p of [d?.origin, d?.recipient, d?.contract]) push(lists.txs, p, e);
      push(lists.inbound, d?.recipient, { key: `${t.txid}:stx-transfer`, height: b.block_height, order: [t.tx_index, -1] });
    }
    for (const ev of b.events) {
      if (ev.committed === false) continue;
      const body = (ev[ev.type] ?? {}) as Record<string, unknown>;
      const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
      const txe = { key: ev.txid, height: b.block_height, order: [txIndex.get(ev.txid)!] };
      const asset = { key: `${ev.txid}:${ev.event_index}`, height: b.block_height, order: [ev.event_index] };
      if (ASSET_TYPES.has(ev.type)) {
        for (const p of [str('sender'), str('recipient')]) {
          push(lists.txs, p, txe);
          push(lists.assets, p, asset);
        }
      }
      if (ev.type === 'stx_lock_event') push(lists.assets, str('locked_address'), asset);
      if (ev.type === 'stx_transfer_event' && str('memo'))
        push(lists.inbound, str('recipient'), {
          key: `${ev.txid}:stx-transfer-memo`,
          height: b.block_height,
          order: [txIndex.get(ev.txid)!, ev.event_index],
        });
    }
  }
  const newestFirst = (a: Entry, b: Entry) =>
    b.height - a.height || b.order.map((v, i) => v - a.order[i]!).find((d) => d !== 0) || 0;
  for (const list of Object.values(lists)) for (const l of list.values()) l.sort(newestFirst);
  return lists;
}

/** The sponsor of a sponsored raw transaction (its second spending condition), else undefined. */
function sponsorOf(rawTx: string): string | undefined {
  if (rawTx === '0x00') return undefined;
  const tx = deserializeTransaction(rawTx.replace(/^0x/, ''));
  const auth = tx.auth as { authType: number; sponsorSpendingCondition?: { hashMode: number; signer: string } };
  const cond = auth.sponsorSpendingCondition;
  if (auth.authType !== 5 || !cond) return undefined;
  const mainnet = tx.transactionVersion === 0;
  return addressToString(
    addressFromVersionHash(mainnet ? (cond.hashMode === 0 ? 22 : 20) : cond.hashMode === 0 ? 26 : 21, cond.signer),
  );
}

/**
 * Every principal's v1 `/extended/v1/address/{p}/transactions` over `blocks`, newest first, as ADR 0016 defines it:
 * the transactions that name it (origin, sponsor, token-transfer recipient, contract deployed or called) and those of
 * whose committed STX transfers, mints or burns it is a party (successful transactions only); in the chain's order
 * (height, microblock sequence with anchored ones last, index). Entries: tx id and height.
 */
function addressHistories(blocks: ListBlock[]): Map<string, Array<{ key: string; height: number }>> {
  type Entry = { key: string; height: number; order: [number, number] };
  const lists = new Map<string, Entry[]>();
  const push = (p: string | undefined, e: Entry) => {
    if (!p) return;
    const l = lists.get(p) ?? [];
    if (!l.some((x) => x.key === e.key)) l.push(e);
    lists.set(p, l);
  };
  for (const b of blocks) {
    const entry = new Map(
      b.transactions.map((t) => [
        t.txid,
        { key: t.txid, height: b.block_height, order: [t.microblock_sequence ?? 2147483647, t.tx_index] as [number, number] },
      ]),
    );
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const t of b.transactions) {
      const d = partiesOf(t.raw_tx);
      for (const p of [d?.origin, sponsorOf(t.raw_tx), d?.recipient, d?.contract]) push(p, entry.get(t.txid)!);
    }
    for (const ev of b.events) {
      if (ev.committed === false || status.get(ev.txid) !== 'success') continue;
      if (!['stx_transfer_event', 'stx_mint_event', 'stx_burn_event'].includes(ev.type)) continue;
      const body = (ev[ev.type] ?? {}) as Record<string, unknown>;
      for (const k of ['sender', 'recipient']) if (typeof body[k] === 'string') push(body[k] as string, entry.get(ev.txid)!);
    }
  }
  const out = new Map<string, Array<{ key: string; height: number }>>();
  for (const [p, l] of lists) {
    l.sort((a, b) => b.height - a.height || b.order[0] - a.order[0] || b.order[1] - a.order[1]);
    out.set(
      p,
      l.map(({ key, height }) => ({ key, height })),
    );
  }
  return out;
}

/**
 * The recorded `/new_block` bodies (the first recording of each hash): the ledger's canonical blocks, lowest first,
 * and the others (orphaned by a reorg).
 */
function recordedBlocks(fixture: string, ledger: AccountLedger): { canonical: ListBlock[]; orphaned: ListBlock[] } {
  const byHash = new Map<string, ListBlock>();
  for (const r of loadRecordedEvents(fixture).filter((e) => e.path === '/new_block')) {
    const b = JSON.parse(r.body) as ListBlock;
    if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  }
  const canonical = ledger.canonical.map((c) => byHash.get(c.indexBlockHash)!);
  return { canonical, orphaned: [...byHash.values()].filter((b) => !canonical.includes(b)) };
}

/**
 * The NFT values each principal holds after `blocks` (canonical, lowest first): each value's owner is the recipient of
 * its last committed mint or transfer of a successful (or unlisted) transaction, none after a burn; in asset and value
 * order.
 */
function heldNfts(blocks: ListBlock[]): Map<string, Array<{ asset_identifier: string; value_hex: string }>> {
  const owner = new Map<string, { asset_identifier: string; value_hex: string; owner: string | null }>();
  for (const b of blocks) {
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const e of [...b.events].sort((x, y) => x.event_index - y.event_index)) {
      if (!e.type.startsWith('nft_') || e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
      const body = e[e.type] as { asset_identifier: string; raw_value: string; recipient?: string };
      const value_hex = body.raw_value.toLowerCase();
      owner.set(`${body.asset_identifier} ${value_hex}`, {
        asset_identifier: body.asset_identifier,
        value_hex,
        owner: e.type === 'nft_burn_event' ? null : body.recipient!,
      });
    }
  }
  const out = new Map<string, Array<{ asset_identifier: string; value_hex: string }>>();
  for (const o of [...owner.values()].sort((a, b) =>
    a.asset_identifier < b.asset_identifier
      ? -1
      : a.asset_identifier > b.asset_identifier
        ? 1
        : a.value_hex < b.value_hex
          ? -1
          : 1,
  )) {
    if (o.owner === null) continue;
    out.set(o.owner, [...(out.get(o.owner) ?? []), { asset_identifier: o.asset_identifier, value_hex: o.value_hex }]);
  }
  return out;
}

const FIXTURES = [
  'mocknet.tsv',
  'mainnet-reorg-scenario1.tsv',
  'epoch-3-transition.tsv',
  'fuzzed-transactions-1.tsv',
  // Its one block carries FT and NFT events (transfers, mints) confirmed from a microblock stream.
  'mainnet-out-of-order-microblock.tsv',
];

for (const fixture of FIXTURES) {
  describe(`account balances after replaying ${fixture}`, () => {
    const replayed = replayedAccounts(fixture);

    it('answers every principal of the fixture with the STX totals summed from its canonical events, fees and rewards', async () => {
      expect(replayed.ledger.principals.size).toBeGreaterThan(2);
      const tipBurn = replayed.ledger.canonical.at(-1)!.burnHeight;
      for (const p of replayed.ledger.principals) {
        const want = replayed.ledger.stxAt(p);
        const { status, body, headers } = await get(replayed.api, `/extended/v1/address/${p}/stx`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () =>
          expect(body).toMatchObject({
            balance: want.balance.toString(),
            total_sent: want.sent.toString(),
            total_received: want.received.toString(),
            total_fees_sent: want.fees.toString(),
            total_miner_rewards_received: want.rewards.toString(),
            pending_balance_inbound: expect.any(String),
            estimated_balance: expect.any(String),
          }),
        );
        const lock = replayed.ledger.lockAt(p);
        const inForce = lock !== null && lock.unlock >= tipBurn;
        expectMessage(p, () => expect(body.locked).toBe(inForce ? lock.amount.toString() : '0'));
        expectMessage(p, () => expect(body.burnchain_unlock_height).toBe(inForce ? lock.unlock : 0));

        const v2 = await get(replayed.api, `/extended/v2/addresses/${p}/balances/stx`);
        expectMessage(p, () =>
          expect(v2.body).toEqual({
            balance: want.balance.toString(),
            total_miner_rewards_received: want.rewards.toString(),
            lock_tx_id: body.lock_tx_id,
            locked: body.locked,
            lock_height: body.lock_height,
            burnchain_lock_height: body.burnchain_lock_height,
            burnchain_unlock_height: body.burnchain_unlock_height,
          }),
        );

        const v3 = await get(replayed.api, `/extended/v3/principals/${p}/balances/stx`);
        expect(v3.headers.get('warning')).toBeNull();
        expectMessage(p, () =>
          expect(v3.body).toMatchObject({
            balance: want.balance.toString(),
            available: (want.balance - (inForce ? lock.amount : 0n)).toString(),
          }),
        );
        expectMessage(p, () => expect(v3.body.locked === null).toBe(!inForce || lock.amount === 0n));
        if (v3.body.locked)
          expect(v3.body.locked).toMatchObject({ amount: lock!.amount.toString(), burn_unlock_height: lock!.unlock });
      }
    });

    it('answers until_block with the totals summed up to that block, at every canonical height', async () => {
      // Every principal at every height: a row left behind by an orphaned block, or a wrong shift, shows at some height.
      const sample = [...replayed.ledger.principals];
      expect(sample.some((p) => replayed.ledger.stxAt(p).balance !== 0n)).toBe(true);
      for (const block of replayed.ledger.canonical) {
        if (block.height < 1) continue;
        for (const p of sample) {
          const want = replayed.ledger.stxAt(p, block.height);
          const { status, body } = await get(replayed.api, `/extended/v1/address/${p}/stx?until_block=${block.height}`);
          expect(status).toBe(200);
          expect(body.estimated_balance).toBeUndefined();
          expect({ p, h: block.height, balance: body.balance, fees: body.total_fees_sent }).toEqual({
            p,
            h: block.height,
            balance: want.balance.toString(),
            fees: want.fees.toString(),
          });
        }
      }
      // By index block hash: the same as by its height.
      const mid = replayed.ledger.canonical[Math.floor(replayed.ledger.canonical.length / 2)]!;
      const p = sample.find((q) => replayed.ledger.stxAt(q, mid.height).balance !== 0n) ?? sample[0]!;
      const byHash = await get(replayed.api, `/extended/v1/address/${p}/stx?until_block=${mid.indexBlockHash}`);
      expect(byHash.body.balance).toBe(replayed.ledger.stxAt(p, mid.height).balance.toString());
    });

    it('answers the fungible tokens and NFT counts of every principal as summed from its canonical token events', async () => {
      const holders = [...replayed.ledger.principals].filter(
        (p) => replayed.ledger.tokensAt(p, 'ft').size + replayed.ledger.tokensAt(p, 'nft').size > 0,
      );
      // The one fixture with token events must exercise them (the others have none).
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(holders.length).toBeGreaterThan(1);
      for (const p of replayed.ledger.principals) {
        const { status, body } = await get(replayed.api, `/extended/v1/address/${p}/balances`);
        expect(status).toBe(200);
        expectMessage(p, () => expect(body.stx.balance).toBe(replayed.ledger.stxAt(p).balance.toString()));
        const ft = replayed.ledger.tokensAt(p, 'ft');
        const nft = replayed.ledger.tokensAt(p, 'nft');
        expectMessage(p, () =>
          expect(Object.fromEntries(Object.entries(body.fungible_tokens).map(([k, v]) => [k, (v as Body).balance]))).toEqual(
            asStrings(ft),
          ),
        );
        expectMessage(p, () =>
          expect(Object.fromEntries(Object.entries(body.non_fungible_tokens).map(([k, v]) => [k, (v as Body).count]))).toEqual(
            asStrings(nft),
          ),
        );
        const page = await get(replayed.api, `/extended/v2/addresses/${p}/balances/ft?limit=200`);
        expect(page.body.total).toBe(ft.size);
        expect(page.body.results).toEqual(
          [...ft].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([token, v]) => ({ token, balance: v.toString() })),
        );
        for (const [token, v] of ft) {
          const one = await get(replayed.api, `/extended/v2/addresses/${p}/balances/ft/${token}`);
          expect(one.body).toEqual({ balance: v.toString() });
        }
        const v3 = await get(replayed.api, `/extended/v3/principals/${p}/balances/ft?limit=1`);
        expectMessage(p, () => expect(v3.body.total).toBe([...ft.values()].filter((v) => v > 0n).length));
      }

      // The kept counts (migration 091, triggers on token_balances) as the raw events give them, after the replay and
      // while the token block leaves the canonical chain and joins it again through the indexer's own functions (a
      // reorg or an orphaned stream's anchored block does that), on this test's copy, rolled back. At each step the
      // api's v2 and v3 FT pages read on the same transaction answer the raw events' lists and totals.
      type Counts = Record<string, { kinds: number; held: number }>;
      const expected = (height?: number): Counts => {
        const out: Counts = {};
        for (const p of replayed.ledger.principals)
          for (const kind of ['ft', 'nft'] as const) {
            const m = replayed.ledger.tokensAt(p, kind, height);
            if (m.size > 0) out[`${p} ${kind}`] = { kinds: m.size, held: [...m.values()].filter((v) => v > 0n).length };
          }
        return out;
      };
      const keptCounts = async (q: typeof replayed.api.db): Promise<Counts> => {
        const { rows } = (await q.raw('SELECT principal, kind, kinds, held FROM token_balance_counts')) as {
          rows: Array<{ principal: string; kind: string; kinds: number; held: number }>;
        };
        return Object.fromEntries(rows.map((r) => [`${r.principal} ${r.kind}`, { kinds: r.kinds, held: r.held }]));
      };
      /** A v1 `/balances` map of the raw events, in asset order: `{asset: {balance|count, total_sent, total_received}}`. */
      const balanceMap = (p: string, kind: 'ft' | 'nft', amount: 'balance' | 'count', height: number | undefined) => {
        const flows = replayed.ledger.tokenFlowsAt(p, kind, height);
        return Object.fromEntries(
          [...replayed.ledger.tokensAt(p, kind, height)]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([asset, v]) => [
              asset,
              {
                [amount]: v.toString(),
                total_sent: flows.get(asset)!.sent.toString(),
                total_received: flows.get(asset)!.received.toString(),
              },
            ]),
        );
      };
      const expectPages = async (q: typeof replayed.api.db, height: number | undefined, blocks: ListBlock[], label: string) => {
        // The kept maps: a row for each principal with a token kind, none for the others.
        const kept = new Map(
          (
            (await q.raw('SELECT principal, ft, nft FROM token_balance_maps ORDER BY principal')) as {
              rows: Array<{ principal: string; ft: string; nft: string }>;
            }
          ).rows.map((r) => [r.principal, { ft: r.ft, nft: r.nft }]),
        );
        expectMessage(label, () =>
          expect([...kept.keys()].sort()).toEqual(
            [...replayed.ledger.principals]
              .filter((p) => replayed.ledger.tokensAt(p, 'ft', height).size + replayed.ledger.tokensAt(p, 'nft', height).size > 0)
              .sort(),
          ),
        );
        for (const p of replayed.ledger.principals) {
          const ft = [...replayed.ledger.tokensAt(p, 'ft', height)];
          const v2 = await getTokenBalancePageJson(q, p, 'ft', { limit: 200, offset: 0 });
          const v2Results = ft
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([token, v]) => ({ token, balance: v.toString() }));
          // PostgreSQL's text is the one JSON.stringify writes for the raw events' list.
          expectMessage(`${label} ${p}`, () => expect(v2).toEqual({ total: ft.length, resultsJson: JSON.stringify(v2Results) }));
          const held = ft
            .filter(([, v]) => v > 0n)
            .sort(([a, x], [b, y]) => (x > y ? -1 : x < y ? 1 : a < b ? -1 : a > b ? 1 : 0))
            .map(([asset_identifier, v]) => ({ asset_identifier, balance: v.toString() }));
          const v3 = await getFtPositionsJson(q, p, 200, null);
          expectMessage(`${label} ${p}`, () =>
            expect(v3).toEqual({
              total: held.length,
              resultsJson: JSON.stringify(held),
              current: held[0] ?? null,
              next: null,
              before: null,
            }),
          );
          // v1 /balances' maps: at the tip the texts the indexer keeps (migration 099), at that height the texts
          // PostgreSQL writes from the change rows; both JSON.stringify's bytes for the raw events' maps.
          const maps = {
            ft: JSON.stringify(balanceMap(p, 'ft', 'balance', height)),
            nft: JSON.stringify(balanceMap(p, 'nft', 'count', height)),
          };
          expectMessage(`${label} ${p}`, () => expect(kept.get(p) ?? { ft: '{}', nft: '{}' }).toEqual(maps));
          await expectMessage(`${label} ${p}`, async () => expect(await getTokenBalanceMapsJson(q, p, null)).toEqual(maps));
          const tipHeight = height ?? canonical.at(-1)!.block_height;
          await expectMessage(`${label} ${p}`, async () => expect(await getTokenBalanceMapsJson(q, p, tipHeight)).toEqual(maps));
          // The NFT values held (migration 092's nft_holdings and its count), as the raw owner changes leave them.
          const nfts = heldNfts(blocks).get(p) ?? [];
          const v3Nft = await getNftPositions(q, p, 200, null);
          expectMessage(`${label} ${p}`, () =>
            expect({ total: v3Nft.total, rows: v3Nft.rows, before: v3Nft.before }).toEqual({
              total: nfts.length,
              rows: nfts,
              before: null,
            }),
          );
        }
      };
      const { canonical } = recordedBlocks(fixture, replayed.ledger);
      await expectPages(replayed.api.db, undefined, canonical, 'replayed');
      // The batch loaders: every principal's read asked in one turn (twice each, and at two page sizes: loads of one
      // turn share a statement per loader) gets its own principal's answer, the one its read alone gives (held to the
      // raw events above).
      {
        const db = replayed.api.db;
        const principals = [...replayed.ledger.principals];
        const keys = [...principals, ...principals].flatMap((p) => [
          { p, limit: 1 },
          { p, limit: 200 },
        ]);
        const v2 = new TokenBalancePageLoader(db);
        const ft = new FtFirstPageLoader(db);
        const nft = new NftFirstPageLoader(db);
        const [v2s, fts, nfts] = await Promise.all([
          Promise.all(keys.map((k) => v2.load(k.p, 'ft', { limit: k.limit, offset: 0 }))),
          Promise.all(keys.map((k) => ft.load(k.p, k.limit))),
          Promise.all(keys.map((k) => nft.load(k.p, k.limit))),
        ]);
        for (const [i, k] of keys.entries()) {
          const label = `batched ${k.p} limit ${k.limit}`;
          const alone = {
            v2: await getTokenBalancePageJson(db, k.p, 'ft', { limit: k.limit, offset: 0 }),
            ft: await getFtPositionsJson(db, k.p, k.limit, null),
            nft: await getNftPositions(db, k.p, k.limit, null),
          };
          expectMessage(label, () => expect({ v2: v2s[i], ft: fts[i], nft: nfts[i] }).toEqual(alone));
        }
      }
      expect(await keptCounts(replayed.api.db)).toEqual(expected());
      if (fixture !== 'mainnet-out-of-order-microblock.tsv') return;
      expect(heldNfts(canonical).size).toBeGreaterThan(1);
      const tokenBlocks = canonical.filter((b) => b.events.some((e) => /^n?ft_/.test(e.type)));
      // Its one token block is its tip: without it, the chain holds what the raw events below it give.
      expect(tokenBlocks.map((b) => b.block_height)).toEqual([canonical.at(-1)!.block_height]);
      const block = tokenBlocks[0]!;
      expect(Object.keys(expected()).length).toBeGreaterThan(1);
      await replayed.api.db
        .transaction(async (trx) => {
          await removeAddressTxs(trx, [block.index_block_hash]);
          expect(await keptCounts(trx)).toEqual(expected(block.block_height - 1));
          await expectPages(
            trx,
            block.block_height - 1,
            canonical.filter((b) => b !== block),
            'without the token block',
          );
          await addCanonicalBlockReadModels(trx, [block.index_block_hash]);
          expect(await keptCounts(trx)).toEqual(expected());
          await expectPages(trx, undefined, canonical, 'the token block back');
          // One statement that deletes, zeroes and adds rows at once (as a reorg's refresh can): the triggers' counts
          // equal the rows counted afresh.
          const counted = async () => ({
            kept: (
              (await trx.raw(
                `SELECT principal, kind, kinds, held FROM token_balance_counts UNION ALL
                 SELECT owner, 'nft-values', held, held FROM nft_holding_counts ORDER BY 1, 2`,
              )) as { rows: unknown[] }
            ).rows,
            fresh: (
              (await trx.raw(
                `SELECT principal, kind, count(*)::int AS kinds, (count(*) FILTER (WHERE balance > 0))::int AS held
                 FROM token_balances GROUP BY principal, kind UNION ALL
                 SELECT owner, 'nft-values', count(*)::int, count(*)::int FROM nft_holdings GROUP BY owner ORDER BY 1, 2`,
              )) as { rows: unknown[] }
            ).rows,
          });
          const [ft1, ft2] = (
            (await trx.raw(
              `SELECT principal, asset_identifier FROM token_balances WHERE kind = 'ft' AND balance > 0 LIMIT 2`,
            )) as {
              rows: Array<{ principal: string; asset_identifier: string }>;
            }
          ).rows;
          await trx.raw(
            `WITH d AS (DELETE FROM token_balances WHERE principal = ? AND kind = 'ft' AND asset_identifier = ? RETURNING 1)
             INSERT INTO token_balances (principal, kind, asset_identifier, block_height, balance, total_sent, total_received)
             VALUES (?, 'ft', ?, 1, 0, 0, 0), ('SP000000000000000000002Q6VF78', 'ft', ?, 1, 7, 0, 7)
             ON CONFLICT (principal, kind, asset_identifier) DO UPDATE SET balance = excluded.balance`,
            [ft1!.principal, ft1!.asset_identifier, ft2!.principal, ft2!.asset_identifier, ft1!.asset_identifier],
          );
          await trx.raw(
            `WITH d AS (DELETE FROM nft_holdings WHERE (asset_identifier, value_hex) IN (SELECT asset_identifier, value_hex
                                                                                     FROM nft_holdings LIMIT 1) RETURNING 1)
             UPDATE nft_holdings SET owner = 'SP000000000000000000002Q6VF78'
             WHERE (asset_identifier, value_hex) IN (SELECT asset_identifier, value_hex FROM nft_holdings OFFSET 1 LIMIT 1)`,
          );
          const after = await counted();
          expect(after.kept).toEqual(after.fresh);
          expect(after.kept).toContainEqual({ principal: 'SP000000000000000000002Q6VF78', kind: 'ft', kinds: 1, held: 1 });
          throw new Error('rollback');
        })
        .catch((err: Error) => {
          if (err.message !== 'rollback') throw err;
        });
    });

    it('joins the FT pages from each row’s kept entry (migration 104) as JSON.stringify writes them, for any asset name and amount, after the rows change', async () => {
      // Names a node may send that JSON must escape (quote, backslash, control characters) or that are not ASCII, and
      // a u128 amount; one zero balance (in the v2 list, not in the v3 one).
      const who = 'SP2H2KEPTENTRYTEST0000000000000000';
      const start: Array<[string, bigint]> = [
        ['SP1.c::plain', 5n],
        ['SP1.c::quote"back\\slash', 340282366920938463463374607431768211455n],
        ['SP1.c::tab\tnl\ncr\r\u0001', 12n],
        ['SP1.c::café-🙂', 12n],
        ['SP1.c::zero', 0n],
      ];
      const byAsset = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const expectLists = async (trx: typeof replayed.api.db, rows: Array<[string, bigint]>) => {
        const v2 = await getTokenBalancePageJson(trx, who, 'ft', { limit: 200, offset: 0 });
        const v2Results = [...rows].sort(([a], [b]) => byAsset(a, b)).map(([token, v]) => ({ token, balance: v.toString() }));
        expect(v2).toEqual({ total: rows.length, resultsJson: JSON.stringify(v2Results) });
        const held = rows
          .filter(([, v]) => v > 0n)
          .sort(([a, x], [b, y]) => (x > y ? -1 : x < y ? 1 : byAsset(a, b)))
          .map(([asset_identifier, v]) => ({ asset_identifier, balance: v.toString() }));
        // The first page of two and the page from its `next` cursor.
        const first = await getFtPositionsJson(trx, who, 2, null);
        expect(first.resultsJson).toBe(JSON.stringify(held.slice(0, 2)));
        expect(first.next).toEqual(held[2]);
        const second = await getFtPositionsJson(trx, who, 2, {
          balance: first.next!.balance,
          asset: first.next!.asset_identifier,
        });
        expect(second.resultsJson).toBe(JSON.stringify(held.slice(2, 4)));
      };
      await replayed.api.db
        .transaction(async (trx) => {
          await trx.raw(
            `INSERT INTO token_balances (principal, kind, asset_identifier, block_height, balance, total_sent, total_received)
             SELECT ?, 'ft', a, 1, b, 0, b FROM unnest(?::text[], ?::numeric[]) AS t(a, b)`,
            [who, start.map(([a]) => a), start.map(([, b]) => b.toString())],
          );
          await expectLists(trx, start);
          // Every row written again (as the indexer's refresh does): the entries follow their balances.
          await trx.raw(`UPDATE token_balances SET balance = balance + 3 WHERE principal = ? AND asset_identifier <> ?`, [
            who,
            start[1]![0],
          ]);
          await expectLists(
            trx,
            start.map(([a, b], i) => [a, i === 1 ? b : b + 3n]),
          );
          throw new Error('rollback');
        })
        .catch((err: Error) => {
          if (err.message !== 'rollback') throw err;
        });
    });

    it('answers the nonces of every principal as its highest canonical nonce (origin or sponsor), at the tip and every height', async () => {
      let used = 0;
      for (const p of replayed.ledger.principals) {
        const want = replayed.ledger.nonceAt(p);
        if (want !== null) used += 1;
        const { status, body } = await get(replayed.api, `/extended/v1/address/${p}/nonces`);
        expect(status).toBe(200);
        expectMessage(p, () => expect(body.last_executed_tx_nonce).toBe(want === null ? null : Number(want)));
        const floor = want === null ? 0 : Number(want) + 1;
        expectMessage(p, () =>
          expect(body.possible_next_nonce).toBe(
            body.last_mempool_tx_nonce === null ? floor : Math.max(floor, body.last_mempool_tx_nonce + 1),
          ),
        );
      }
      expect(used).toBeGreaterThan(0);
      const senders = [...replayed.ledger.principals].filter((p) => replayed.ledger.nonceAt(p) !== null).slice(0, 4);
      for (const block of replayed.ledger.canonical) {
        if (block.height < 1) continue;
        for (const p of senders) {
          const want = replayed.ledger.nonceAt(p, block.height);
          const { body } = await get(replayed.api, `/extended/v1/address/${p}/nonces?block_height=${block.height}`);
          expect({ p, h: block.height, n: body.last_executed_tx_nonce }).toEqual({
            p,
            h: block.height,
            n: want === null ? null : Number(want),
          });
          expect(body.possible_next_nonce).toBe(want === null ? 0 : Number(want) + 1);
        }
      }
      const tip = replayed.ledger.canonical.at(-1)!;
      const byHash = await get(replayed.api, `/extended/v1/address/${senders[0]}/nonces?block_hash=${tip.indexBlockHash}`);
      expect(byHash.body.last_executed_tx_nonce).toBe(Number(replayed.ledger.nonceAt(senders[0]!)));
      const p = senders[0]!;
      expect(
        (await get(replayed.api, `/extended/v1/address/${p}/nonces?block_height=1&block_hash=${tip.indexBlockHash}`)).status,
      ).toBe(400);
      expect((await get(replayed.api, `/extended/v1/address/${p}/nonces?block_height=${tip.height + 1}`)).status).toBe(404);
      expect((await get(replayed.api, `/extended/v1/address/${p}/nonces?block_hash=abc`)).status).toBe(400);
    });

    it('keeps the STX supply and each principal’s per-transaction activity as their definitions give them (reorgs included)', async () => {
      // The supply after sampled canonical blocks, summed from the raw blocks: committed STX mints of successful (or
      // unlisted) transactions less their burns, plus the coinbase of the matured miner rewards paid.
      const raw = new Map<string, { supply: bigint }>();
      for (const r of loadRecordedEvents(fixture).filter((e) => e.path === '/new_block')) {
        const b = JSON.parse(r.body) as {
          index_block_hash: string;
          transactions: Array<{ txid: string; status: string }>;
          events: Array<{ txid: string; type: string; committed?: boolean; [k: string]: unknown }>;
          matured_miner_rewards?: Array<{ coinbase_amount: string }>;
        };
        if (raw.has(b.index_block_hash)) continue;
        const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
        let delta = 0n;
        for (const e of b.events) {
          if (e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
          const amount = BigInt((e[e.type] as { amount?: string } | undefined)?.amount ?? '0');
          if (e.type === 'stx_mint_event') delta += amount;
          if (e.type === 'stx_burn_event') delta -= amount;
        }
        for (const m of b.matured_miner_rewards ?? []) delta += BigInt(m.coinbase_amount);
        raw.set(b.index_block_hash, { supply: delta });
      }
      let supply = 0n;
      const step = Math.max(1, Math.floor(replayed.ledger.canonical.length / 6));
      for (const [i, block] of replayed.ledger.canonical.entries()) {
        supply += raw.get(block.indexBlockHash)!.supply;
        if (i % step !== 0 && i !== replayed.ledger.canonical.length - 1) continue;
        const { body } = await get(replayed.api, `/extended/v1/stx_supply/legacy_format?height=${block.height}`);
        const stx = `${supply / 1_000_000n}.${(supply % 1_000_000n).toString().padStart(6, '0')}`;
        expectMessage(String(block.height), () =>
          expect({ totalStacks: body.totalStacks, blockHeight: body.blockHeight }).toEqual({
            totalStacks: stx,
            blockHeight: String(block.height),
          }),
        );
      }
      expect((await get(replayed.api, '/extended/v3/tokens/stx/supply')).body.total).toBe(supply.toString());

      // The rows the indexer kept block by block equal the rows computed from scratch over the canonical chain, and the
      // counts their rows; checked on this test's own copy, rolled back. On the recordings with reorgs and with token
      // events (the others add nothing these two do not cover, at a second a fixture).
      if (!['mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv'].includes(fixture)) return;
      const tables = ['principal_txs', 'principal_tx_balance_changes', 'principal_tx_counts', ...PRINCIPAL_LIST_TABLES] as const;
      const snapshot = async (q: typeof replayed.api.db) => {
        const out: Record<string, unknown[]> = {};
        for (const t of tables) {
          const { rows } = (await q.raw(
            `SELECT to_jsonb(x) AS r FROM ${t} x WHERE ${t === 'principal_tx_counts' ? 'tx_count > 0' : 'true'} ORDER BY 1`,
          )) as {
            rows: Array<{ r: unknown }>;
          };
          out[t] = rows.map((r) => r.r);
        }
        return out;
      };
      const kept = await snapshot(replayed.api.db);
      expect(kept['principal_txs']!.length).toBeGreaterThan(0);
      const counts = (await replayed.api.db.raw(
        `SELECT count(*)::int AS n FROM principal_tx_counts c
         WHERE c.tx_count <> (SELECT count(*) FROM principal_txs t WHERE t.principal = c.principal)`,
      )) as { rows: Array<{ n: number }> };
      expect(counts.rows[0]!.n).toBe(0);
      // A block under canonical blocks leaving and joining again (what a block filling a gap does): the numbered
      // lists' rows above it (principal_txs's too, migration 077) are renumbered down, then up, and end as kept.
      const dense = async (q: typeof replayed.api.db) => {
        for (const t of [...PRINCIPAL_LIST_TABLES, PRINCIPAL_TXS_LIST.table]) {
          const { rows } = (await q.raw(
            `SELECT count(*)::int AS n FROM (SELECT principal, array_agg(seq ORDER BY seq) AS s, count(*) AS c FROM ${t}
             GROUP BY principal) x WHERE s <> (SELECT array_agg(i) FROM generate_series(1, x.c::int) i)`,
          )) as { rows: Array<{ n: number }> };
          expectMessage(t, () => expect(rows[0]!.n).toBe(0));
        }
      };
      await dense(replayed.api.db);
      const middle = replayed.ledger.canonical[Math.floor(replayed.ledger.canonical.length / 2)]!.indexBlockHash;
      // The indexer's statements, their one parameter `$1` bound where it appears.
      const run = (q: typeof replayed.api.db, sql: string, value: string | string[]) =>
        q.raw(sql.replace(/\$1/g, '?'), Array<string | string[]>((sql.match(/\$1/g) ?? []).length).fill(value));
      await replayed.api.db
        .transaction(async (trx) => {
          for (const t of PRINCIPAL_LIST_TABLES) await run(trx, principalListRemoveSql(t), [middle]);
          // principal_txs: the block's rows kept aside, deleted and renumbered as the indexer does, written back
          // unnumbered (as migration 070's statement writes them) and numbered as the indexer does.
          await trx.raw('CREATE TEMP TABLE middle_txs ON COMMIT DROP AS SELECT * FROM principal_txs WHERE index_block_hash = ?', [
            middle,
          ]);
          await trx.raw('UPDATE middle_txs SET seq = 0');
          await run(trx, principalListRemoveSql(PRINCIPAL_TXS_LIST), [middle]);
          await dense(trx);
          const gone = await snapshot(trx);
          if (fixture === 'mainnet-reorg-scenario1.tsv') {
            // The block names principals whose lists go on above it.
            expect(gone['principal_transfer_txs']!.length).toBeLessThan(kept['principal_transfer_txs']!.length);
            expect(gone['principal_transfer_txs']).not.toEqual(
              kept['principal_transfer_txs']!.filter((r) => (r as { index_block_hash: string }).index_block_hash !== middle),
            );
            expect(gone['principal_txs']!.length).toBeLessThan(kept['principal_txs']!.length);
            expect(gone['principal_txs']).not.toEqual(
              kept['principal_txs']!.filter((r) => (r as { index_block_hash: string }).index_block_hash !== middle),
            );
          }
          for (const t of PRINCIPAL_LIST_TABLES) await run(trx, principalListAddSql(t), middle);
          await trx.raw('INSERT INTO principal_txs SELECT * FROM middle_txs');
          await run(trx, numberedListNumberSql(PRINCIPAL_TXS_LIST), middle);
          expect(await snapshot(trx)).toEqual(kept);
          throw new Error('rollback');
        })
        .catch((err: Error) => {
          if (err.message !== 'rollback') throw err;
        });
      await replayed.api.db
        .transaction(async (trx) => {
          for (const t of tables) await trx.raw(`DELETE FROM ${t}`);
          await trx.raw(principalActivityInsertSql('t.canonical', 'e.canonical'));
          await trx.raw(numberedListFillSql(PRINCIPAL_TXS_LIST));
          for (const t of PRINCIPAL_LIST_TABLES) await trx.raw(principalListFillSql(t));
          expect(await snapshot(trx)).toEqual(kept);
          throw new Error('rollback');
        })
        .catch((err: Error) => {
          if (err.message !== 'rollback') throw err;
        });
    });

    it('numbers the v1 address lists as the canonical chain gives them: totals, first and deepest pages, until_block (reorgs included)', async () => {
      // The recordings with reorgs, with token events, and the mocknet's transfers (account-activity.test.ts checks the
      // first pages of the other two).
      if (!['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv'].includes(fixture)) return;
      const { canonical, orphaned } = recordedBlocks(fixture, replayed.ledger);
      const want = numberedLists(canonical);
      if (fixture === 'mainnet-reorg-scenario1.tsv') {
        // The orphaned blocks name principals too: lists that kept their rows would be longer than these.
        const withOrphans = numberedLists([...canonical, ...orphaned]);
        expect([...withOrphans.txs.values()].flat().length).toBeGreaterThan([...want.txs.values()].flat().length);
      }
      const mid = replayed.ledger.canonical[Math.floor(replayed.ledger.canonical.length / 2)]!.height;
      const keyOf = {
        txs: (r: { tx: { tx_id: string } }) => r.tx.tx_id,
        assets: (r: { tx_id: string; event_index: number }) => `${r.tx_id}:${r.event_index}`,
        inbound: (r: { tx_id: string; transfer_type: string }) => `${r.tx_id}:${r.transfer_type}`,
      };
      const paths = { txs: 'transactions_with_transfers', assets: 'assets', inbound: 'stx_inbound' };
      let checked = 0;
      for (const p of replayed.ledger.principals) {
        for (const list of ['txs', 'assets', 'inbound'] as const) {
          const all = want[list].get(p) ?? [];
          const base = `/extended/v1/address/${p}/${paths[list]}`;
          const keys = async (query: string) => {
            const { status, body } = await get(replayed.api, `${base}?${query}`);
            expectMessage(`${p} ${list} ${query}`, () => expect(status).toBe(200));
            return { total: body.total as number, keys: (body.results as Body[]).map((r) => keyOf[list](r)) };
          };
          const first = await keys('limit=3');
          expectMessage(`${p} ${list}`, () =>
            expect(first).toEqual({ total: all.length, keys: all.slice(0, 3).map((e) => e.key) }),
          );
          const deep = Math.max(0, all.length - 2);
          const last = await keys(`limit=3&offset=${deep}`);
          expectMessage(`${p} ${list} deep`, () =>
            expect(last).toEqual({ total: all.length, keys: all.slice(deep).map((e) => e.key) }),
          );
          const upTo = all.filter((e) => e.height <= mid);
          const until = await keys(`limit=2&offset=1&until_block=${mid}`);
          expectMessage(`${p} ${list} until ${mid}`, () =>
            expect(until).toEqual({ total: upTo.length, keys: upTo.slice(1, 3).map((e) => e.key) }),
          );
          if (list !== 'assets' && all.length > 0) {
            const h = all[0]!.height;
            const at = all.filter((e) => e.height === h);
            expect(await keys(`limit=50&height=${h}`)).toEqual({ total: at.length, keys: at.map((e) => e.key) });
          }
          checked += all.length;
        }
      }
      expect(checked).toBeGreaterThan(0);
    });

    it('numbers each address’s v1 transactions as the canonical chain gives them at any offset, also after a block under canonical ones leaves and comes back (reorgs included)', async () => {
      if (!['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv'].includes(fixture)) return;
      const { canonical, orphaned } = recordedBlocks(fixture, replayed.ledger);
      if (fixture === 'mainnet-reorg-scenario1.tsv') {
        // The orphaned blocks name principals too: histories that kept their rows would be longer.
        const count = (m: Map<string, unknown[]>) => [...m.values()].flat().length;
        expect(count(addressHistories([...canonical, ...orphaned]))).toBeGreaterThan(count(addressHistories(canonical)));
      }
      /**
       * The histories of `principals` through the api: pages of 3 at the first, second, a third, middle and last
       * offsets (each a seq range), until_block in the middle with an offset, and the oldest row's height.
       */
      const expectHistories = async (api: ApiHarness, blocks: ListBlock[], principals: Iterable<string>, label: string) => {
        const want = addressHistories(blocks);
        const mid = blocks[Math.floor(blocks.length / 2)]!.block_height;
        let pages = 0;
        for (const p of principals) {
          const all = want.get(p) ?? [];
          const page = async (query: string) => {
            const { status, body } = await get(api, `/extended/v1/address/${p}/transactions?${query}`);
            expectMessage(`${label} ${p} ${query}`, () => expect(status).toBe(200));
            return { total: body.total as number, keys: (body.results as Body[]).map((t) => t.tx_id as string) };
          };
          const n = all.length;
          for (const offset of new Set(
            [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 3, n - 1].filter((o) => o >= 0 && o <= n),
          )) {
            const got = await page(`limit=3&offset=${offset}`);
            expectMessage(`${label} ${p} offset ${offset}`, () =>
              expect(got).toEqual({ total: all.length, keys: all.slice(offset, offset + 3).map((e) => e.key) }),
            );
            pages += 1;
          }
          const upTo = all.filter((e) => e.height <= mid);
          const until = await page(`limit=2&offset=1&until_block=${mid}`);
          expectMessage(`${label} ${p} until ${mid}`, () =>
            expect(until).toEqual({ total: upTo.length, keys: upTo.slice(1, 3).map((e) => e.key) }),
          );
          if (all.length > 0) {
            const at = all.filter((e) => e.height === all.at(-1)!.height);
            expect(await page(`limit=50&height=${at[0]!.height}`)).toEqual({ total: at.length, keys: at.map((e) => e.key) });
          }
        }
        expect(pages).toBeGreaterThan(0);
        // seq is 1…n for every address, and as the from-scratch numbering gives it (migration 087's fill).
        const { rows } = (await api.db.raw(
          `SELECT count(*)::int AS n FROM (SELECT address, array_agg(seq ORDER BY block_height, microblock_sequence, tx_index) AS s,
                                                  count(*) AS c FROM address_txs GROUP BY address) x
           WHERE s <> (SELECT array_agg(i) FROM generate_series(1, x.c::int) i)`,
        )) as { rows: Array<{ n: number }> };
        expectMessage(label, () => expect(rows[0]!.n).toBe(0));
      };
      const everyone = new Set([...replayed.ledger.principals, ...addressHistories(canonical).keys()]);
      await expectHistories(replayed.api, canonical, everyone, 'replayed');

      // A canonical block under others leaves and joins again (what a reorg below the tip and a late block filling a
      // gap do), through the indexer's own functions, on a copy of the database: the rows above it move down, then up.
      // On the reorg recording (its microblock transactions included).
      if (fixture !== 'mainnet-reorg-scenario1.tsv') return;
      const full = addressHistories(canonical);
      const withRows = canonical.filter(
        (b, i) =>
          i > 0 &&
          i < canonical.length - 1 &&
          [...full.values()].some((l) => l.some((e) => e.height === b.block_height) && l[0]!.height > b.block_height),
      );
      expect(withRows.length).toBeGreaterThan(0);
      const middle = withRows[Math.floor(withRows.length / 2)]!;
      const copy = await startApi(testInfra().databaseUrl, { fixture });
      try {
        const seqs = async () =>
          (
            (await copy.db.raw(
              `SELECT tx_id, address, seq FROM address_txs WHERE index_block_hash <> ? ORDER BY tx_id, address`,
              [middle.index_block_hash],
            )) as { rows: Array<{ tx_id: string; address: string; seq: number }> }
          ).rows;
        const before = await seqs();
        await copy.db.transaction((trx) => removeAddressTxs(trx, [middle.index_block_hash]));
        const lowered = await seqs();
        expect(lowered.filter((r, i) => r.seq < before[i]!.seq).length).toBeGreaterThan(0);
        // The addresses whose numbering moved: those the block names.
        const moved = [...addressHistories([middle]).keys()];
        await expectHistories(
          copy,
          canonical.filter((b) => b !== middle),
          moved,
          `without ${middle.block_height}`,
        );
        await copy.db.transaction((trx) => addCanonicalBlockReadModels(trx, [middle.index_block_hash]));
        expect(await seqs()).toEqual(before);
        await expectHistories(copy, canonical, moved, `${middle.block_height} back`);
      } finally {
        await copy.close();
      }
    });

    it('answers an unknown principal with zeros and malformed parameters with 4xx JSON', async () => {
      const nobody = 'SP000000000000000000002Q6VF78';
      if (!replayed.ledger.principals.has(nobody)) {
        const { body } = await get(replayed.api, `/extended/v1/address/${nobody}/stx?until_block=1`);
        expect(body).toMatchObject({ balance: '0', total_sent: '0', locked: '0', lock_tx_id: '' });
      }
      const p = [...replayed.ledger.principals][0]!;
      expect((await get(replayed.api, `/extended/v1/address/not-an-address/stx`)).status).toBe(400);
      expect((await get(replayed.api, `/extended/v1/address/${p}/stx?until_block=0`)).status).toBe(400);
      expect((await get(replayed.api, `/extended/v1/address/${p}/stx?until_block=1&unanchored=true`)).status).toBe(400);
      expect((await get(replayed.api, `/extended/v1/address/${p}/stx?until_block=0x${'ab'.repeat(32)}`)).status).toBe(404);
      expect((await get(replayed.api, `/extended/v2/addresses/${p}/balances/ft?limit=201`)).status).toBe(400);
      expect((await get(replayed.api, `/extended/v2/addresses/${p}/balances/ft/nonsense`)).status).toBe(400);
    });
  });
}
