/**
 * The v1 address activity endpoints (`/assets`, `/stx_inbound`, `/mempool`, `/transactions_with_transfers`,
 * `/{tx_id}/with_transfers`) on fixtures replayed through the real observer and indexer, every principal of each
 * fixture checked against what its raw node events and raw transactions say (decoded here with `@stacks/transactions`,
 * independently of the indexer and the api). Every answer is validated against the documented schemas by the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addressFromVersionHash, addressToString, AuthType, deserializeTransaction, txidFromData } from '@stacks/transactions';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { expectMessage, testInfra } from '@bda/test-support';
import { keepPrincipalTxJson } from '@bda/db';
import { startApi, type ApiHarness } from './support/api-harness';
import { accountLedger } from './support/account-ledger';
import { loadRecordedEvents } from './support/replayed-database';
import { PRINCIPAL_TRANSACTIONS } from '../src/accounts/datastore/v3-transactions';
import { ADDRESS_TRANSACTIONS } from '../src/accounts/datastore/address-transactions';

interface RawEvent {
  txid: string;
  event_index: number;
  committed?: boolean;
  type: string;
  [body: string]: unknown;
}

interface RawBlock {
  index_block_hash: string;
  block_height: number;
  transactions: Array<{ txid: string; raw_tx: string; status: string; tx_index: number }>;
  events: RawEvent[];
}

/** What a raw transaction says about its parties. */
interface DecodedTx {
  txId: string;
  origin: string;
  /** Who pays the fee: the sponsor of a sponsored transaction, else the origin. */
  payer: string;
  fee: bigint;
  /** Token transfer: recipient, amount and the 34 memo bytes. */
  transfer?: { recipient: string; amount: bigint; memo: string };
  /** The contract called or deployed. */
  contract?: string;
}

function addressOf(cond: { hashMode: number; signer: string }, mainnet: boolean): string {
  const single = cond.hashMode === 0;
  const version = mainnet ? (single ? 22 : 20) : single ? 26 : 21;
  return addressToString(addressFromVersionHash(version, cond.signer));
}

function decodeTx(rawTx: string): DecodedTx {
  const hex = rawTx.replace(/^0x/, '');
  const tx = deserializeTransaction(hex);
  const mainnet = tx.transactionVersion === 0;
  const origin = addressOf(tx.auth.spendingCondition, mainnet);
  const payer = tx.auth.authType === AuthType.Sponsored ? tx.auth.sponsorSpendingCondition : tx.auth.spendingCondition;
  const out: DecodedTx = {
    txId: `0x${txidFromData(Buffer.from(hex, 'hex'))}`,
    origin,
    payer: addressOf(payer, mainnet),
    fee: BigInt(payer.fee),
  };
  const p = tx.payload as unknown as Record<string, unknown>;
  switch (p['payloadType']) {
    case 0: // token transfer: the payload is the transaction's last field, and the memo its last 34 bytes
      out.transfer = {
        recipient: (p['recipient'] as { value: string }).value,
        amount: BigInt(p['amount'] as string | bigint),
        memo: `0x${hex.slice(-68)}`,
      };
      break;
    case 1: // smart contract
    case 6: // versioned smart contract
      out.contract = `${origin}.${(p['contractName'] as { content: string }).content}`;
      break;
    case 2: {
      const addr = p['contractAddress'] as { version: number; hash160: string };
      out.contract = `${addressToString(addressFromVersionHash(addr.version, addr.hash160))}.${(p['contractName'] as { content: string }).content}`;
      break;
    }
  }
  return out;
}

/** Principals checked per fixture. */
const SAMPLE = 8;

const ASSET_TYPES = new Set([
  'stx_transfer_event',
  'stx_mint_event',
  'stx_burn_event',
  'ft_transfer_event',
  'ft_mint_event',
  'ft_burn_event',
  'nft_transfer_event',
  'nft_mint_event',
  'nft_burn_event',
]);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A committed event with its block, parties and amount read from the raw body. */
interface FlatEvent {
  height: number;
  txId: string;
  txIndex: number;
  eventIndex: number;
  type: string;
  sender?: string;
  recipient?: string;
  locked?: string;
  amount: bigint;
  memo?: string;
  asset?: string;
}

/** The canonical blocks of a fixture (as the accounts ledger finds them), their decoded transactions and events. */
function fixtureChain(fixture: string) {
  const ledger = accountLedger(fixture);
  const recorded = loadRecordedEvents(fixture);
  const byHash = new Map<string, RawBlock>();
  for (const e of recorded.filter((r) => r.path === '/new_block')) {
    const b = JSON.parse(e.body) as RawBlock;
    if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  }
  const blocks = ledger.canonical.map((c) => byHash.get(c.indexBlockHash)!);
  const txs: Array<DecodedTx & { height: number; txIndex: number }> = [];
  const events: FlatEvent[] = [];
  const principals = new Set<string>(ledger.principals);
  for (const b of blocks) {
    const txIndex = new Map<string, number>();
    for (const t of b.transactions) {
      txIndex.set(t.txid, t.tx_index);
      const d = decodeTx(t.raw_tx);
      expect(d.txId).toBe(t.txid);
      txs.push({ ...d, height: b.block_height, txIndex: t.tx_index });
      for (const p of [d.origin, d.transfer?.recipient, d.contract]) if (p) principals.add(p);
    }
    for (const e of b.events) {
      if (e.committed === false) continue;
      const body = (e[e.type] ?? {}) as Record<string, unknown>;
      const memo = str(body['memo']);
      events.push({
        height: b.block_height,
        txId: e.txid,
        txIndex: txIndex.get(e.txid)!,
        eventIndex: e.event_index,
        type: e.type,
        sender: str(body['sender']),
        recipient: str(body['recipient']),
        locked: str(body['locked_address']),
        amount: BigInt(str(body['amount']) ?? str(body['locked_amount']) ?? '0'),
        memo: memo ? `0x${memo.replace(/^0x/, '')}` : undefined,
        asset: str(body['asset_identifier']),
      });
    }
  }
  // The mempool: announced, not dropped, not mined in a canonical block.
  const mined = new Set(txs.map((t) => t.txId));
  const dropped = new Set<string>();
  const announced = new Map<string, DecodedTx>();
  for (const r of recorded) {
    if (r.path === '/new_mempool_tx') {
      for (const raw of JSON.parse(r.body) as string[]) {
        const d = decodeTx(raw);
        announced.set(d.txId, d);
      }
    }
    if (r.path === '/drop_mempool_tx')
      for (const id of (JSON.parse(r.body) as { dropped_txids: string[] }).dropped_txids) dropped.add(id);
  }
  const pending = [...announced.values()].filter((t) => !mined.has(t.txId) && !dropped.has(t.txId));
  for (const t of pending) for (const p of [t.origin, t.transfer?.recipient, t.contract]) if (p) principals.add(p);
  const eventsOf = new Map<string, FlatEvent[]>();
  for (const e of events) eventsOf.set(e.txId, [...(eventsOf.get(e.txId) ?? []), e]);
  // The busiest principals first (most events and transactions), then a few quiet ones: every kind of history, at a
  // bounded number of requests a fixture.
  const activity = (p: string) =>
    events.filter((e) => e.sender === p || e.recipient === p || e.locked === p).length +
    txs.filter((t) => t.origin === p || t.payer === p || t.transfer?.recipient === p || t.contract === p).length;
  const ranked = [...principals].sort((a, b) => activity(b) - activity(a) || (a < b ? -1 : 1));
  const sample = ranked.length <= SAMPLE ? ranked : [...ranked.slice(0, SAMPLE - 2), ...ranked.slice(-2)];
  return { ledger, blocks, txs, events, eventsOf, pending, principals: sample, tip: blocks.at(-1)!.block_height };
}

type Chain = ReturnType<typeof fixtureChain>;

const newestFirst = (a: { height: number; txIndex: number }, b: { height: number; txIndex: number }) =>
  b.height - a.height || b.txIndex - a.txIndex;

/** `/assets`: asset events the principal sends or receives, and its STX locks, newest first. */
function expectedAssets(chain: Chain, p: string, upTo = chain.tip): FlatEvent[] {
  return chain.events
    .filter((e) => e.height <= upTo)
    .filter(
      (e) =>
        (ASSET_TYPES.has(e.type) && (e.sender === p || e.recipient === p)) || (e.type === 'stx_lock_event' && e.locked === p),
    )
    .sort((a, b) => b.height - a.height || b.eventIndex - a.eventIndex);
}

/** `/stx_inbound`: token transfers to the principal, and committed STX transfers to it that carry a memo. */
function expectedInbound(chain: Chain, p: string, range: { at?: number; upTo?: number } = {}) {
  const inRange = (h: number) => (range.at !== undefined ? h === range.at : h <= (range.upTo ?? chain.tip));
  const out: Array<{ tx_id: string; transfer_type: string; amount: string; memo: string; sender: string; block_height: number }> =
    [];
  for (const t of chain.txs) {
    if (t.transfer?.recipient === p && inRange(t.height)) {
      out.push({
        tx_id: t.txId,
        transfer_type: 'stx-transfer',
        amount: t.transfer.amount.toString(),
        memo: t.transfer.memo,
        sender: t.origin,
        block_height: t.height,
      });
    }
  }
  for (const e of chain.events) {
    if (e.type === 'stx_transfer_event' && e.recipient === p && e.memo && inRange(e.height)) {
      out.push({
        tx_id: e.txId,
        transfer_type: 'stx-transfer-memo',
        amount: e.amount.toString(),
        memo: e.memo,
        sender: e.sender!,
        block_height: e.height,
      });
    }
  }
  return out;
}

/** `/transactions_with_transfers`: the principal's transactions, newest first, with what it moved in each. */
function expectedTxsWithTransfers(chain: Chain, p: string, opts: { stxOnly?: boolean } = {}) {
  const eventTypes = (e: FlatEvent) =>
    opts.stxOnly ? e.type.startsWith('stx_') && ASSET_TYPES.has(e.type) : ASSET_TYPES.has(e.type);
  return chain.txs
    .filter(
      (t) =>
        t.origin === p ||
        t.transfer?.recipient === p ||
        t.contract === p ||
        (chain.eventsOf.get(t.txId) ?? []).some((e) => eventTypes(e) && (e.sender === p || e.recipient === p)),
    )
    .sort(newestFirst)
    .map((t) => {
      const mine = (chain.eventsOf.get(t.txId) ?? []).filter(
        (e) => ASSET_TYPES.has(e.type) && (e.sender === p || e.recipient === p),
      );
      const stx = mine.filter((e) => e.type.startsWith('stx_'));
      const sent = (t.origin === p ? t.fee : 0n) + stx.filter((e) => e.sender === p).reduce((s, e) => s + e.amount, 0n);
      const received = stx.filter((e) => e.recipient === p).reduce((s, e) => s + e.amount, 0n);
      return {
        txId: t.txId,
        height: t.height,
        stx_sent: sent.toString(),
        stx_received: received.toString(),
        stx_transfers: stx.length,
        ft_transfers: mine.filter((e) => e.type.startsWith('ft_')).length,
        nft_transfers: mine.filter((e) => e.type.startsWith('nft_')).length,
      };
    });
}

/** `/extended/v2/addresses/{address}/transactions`: as the reference API's `principal_txs` (sponsors count too). */
function expectedAddressTxs(chain: Chain, p: string) {
  return chain.txs
    .filter(
      (t) =>
        t.origin === p ||
        t.payer === p ||
        t.transfer?.recipient === p ||
        t.contract === p ||
        (chain.eventsOf.get(t.txId) ?? []).some((e) => ASSET_TYPES.has(e.type) && (e.sender === p || e.recipient === p)),
    )
    .sort(newestFirst)
    .map((t) => {
      const mine = (chain.eventsOf.get(t.txId) ?? [])
        .filter((e) => ASSET_TYPES.has(e.type) && (e.sender === p || e.recipient === p))
        .sort((a, b) => a.eventIndex - b.eventIndex);
      const counts = Object.fromEntries(
        ['stx', 'ft', 'nft'].map((f) => [
          f,
          Object.fromEntries(
            ['transfer', 'mint', 'burn'].map((a) => [
              a,
              mine
                .filter((e) => e.type === `${f}_${a}_event`)
                .reduce((n, e) => n + (e.sender === p ? 1 : 0) + (e.recipient === p ? 1 : 0), 0),
            ]),
          ),
        ]),
      );
      const stx = mine.filter((e) => e.type.startsWith('stx_'));
      const sent = (t.payer === p ? t.fee : 0n) + stx.filter((e) => e.sender === p).reduce((s, e) => s + e.amount, 0n);
      const received = stx.filter((e) => e.recipient === p).reduce((s, e) => s + e.amount, 0n);
      return { txId: t.txId, stx_sent: sent.toString(), stx_received: received.toString(), events: counts, mine };
    });
}

/** The v3 transaction order: height, microblock sequence (anchored ones as int4 max), index; newest first. */
const ANCHORED = 2147483647;

/** The canonical transactions in the v3 order with their v3 cursors, from the raw blocks. */
function expectedV3Order(chain: Chain): Array<{ txId: string; cursor: string }> {
  const rows: Array<{ txId: string; height: number; seq: number; txIndex: number }> = [];
  for (const b of chain.blocks) {
    for (const t of b.transactions as Array<{ txid: string; tx_index: number; microblock_sequence?: number | null }>) {
      rows.push({ txId: t.txid, height: b.block_height, seq: t.microblock_sequence ?? ANCHORED, txIndex: t.tx_index });
    }
  }
  rows.sort((a, b) => b.height - a.height || b.seq - a.seq || b.txIndex - a.txIndex);
  return rows.map((r) => ({ txId: r.txId, cursor: `${r.height}:${r.seq}:${r.txIndex}` }));
}

/**
 * `/extended/v3/principals/{principal}/transactions/{tx_id}/balance-changes` of one of the principal's transactions:
 * per asset in asset order (STX 1, FT 2, NFT 3, then by identifier), what it sent (STX: its fee as payer too) and
 * received of it; NFTs count 1 a value. Only committed events of successful transactions move anything.
 */
function expectedBalanceChanges(chain: Chain, p: string, txId: string, status: Map<string, string>) {
  const t = chain.txs.find((x) => x.txId === txId)!;
  const rows = new Map<string, { type: number; id: string; sent: bigint; received: bigint }>();
  const add = (type: number, id: string, sent: bigint, received: bigint) => {
    const k = `${type}:${id}`;
    const r = rows.get(k) ?? { type, id, sent: 0n, received: 0n };
    r.sent += sent;
    r.received += received;
    rows.set(k, r);
  };
  if (t.payer === p) add(1, 'stx', t.fee, 0n);
  if (status.get(txId) === 'success') {
    for (const e of chain.eventsOf.get(txId) ?? []) {
      if (!ASSET_TYPES.has(e.type)) continue;
      const type = e.type.startsWith('stx_') ? 1 : e.type.startsWith('ft_') ? 2 : 3;
      const id = type === 1 ? 'stx' : e.asset!;
      const units = type === 3 ? 1n : e.amount;
      if (e.sender === p && !e.type.endsWith('_mint_event')) add(type, id, units, 0n);
      if (e.recipient === p && !e.type.endsWith('_burn_event')) add(type, id, 0n, units);
    }
  }
  return [...rows.values()]
    .sort((a, b) => a.type - b.type || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => ({
      asset: r.type === 1 ? { type: 'stx' } : { type: r.type === 2 ? 'ft' : 'nft', identifier: r.id },
      balance_change: { sent: r.sent.toString(), received: r.received.toString(), net: (r.received - r.sent).toString() },
    }));
}

/** The statuses of the canonical transactions, from the raw blocks. */
function txStatuses(chain: Chain): Map<string, string> {
  return new Map(chain.blocks.flatMap((b) => b.transactions.map((t) => [t.txid, t.status] as [string, string])));
}

/**
 * The liquid STX supply after each canonical block, from the raw blocks: committed STX mints of successful (or
 * unlisted) transactions, minus their burns, plus the coinbase of the matured miner rewards paid.
 */
function expectedSupply(fixture: string, chain: Chain): Map<number, bigint> {
  const raw = new Map<string, { events: RawEvent[]; transactions: Array<{ txid: string; status: string }>; rewards: bigint }>();
  for (const r of loadRecordedEvents(fixture).filter((e) => e.path === '/new_block')) {
    const b = JSON.parse(r.body) as RawBlock & { matured_miner_rewards?: Array<{ coinbase_amount: string }> };
    if (raw.has(b.index_block_hash)) continue;
    const rewards = (b.matured_miner_rewards ?? []).reduce((s, m) => s + BigInt(m.coinbase_amount), 0n);
    raw.set(b.index_block_hash, { events: b.events, transactions: b.transactions, rewards });
  }
  const out = new Map<number, bigint>();
  let supply = 0n;
  for (const c of chain.ledger.canonical) {
    const b = raw.get(c.indexBlockHash)!;
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const e of b.events) {
      if (e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
      const amount = BigInt(str(((e[e.type] ?? {}) as Record<string, unknown>)['amount']) ?? '0');
      if (e.type === 'stx_mint_event') supply += amount;
      if (e.type === 'stx_burn_event') supply -= amount;
    }
    supply += b.rewards;
    out.set(c.height, supply);
  }
  return out;
}

interface CursorPageBody<T> {
  total: number;
  limit: number;
  cursor: { next: string | null; previous: string | null; current: string | null };
  results: T[];
}

/** Every page of a v3 cursor list (`limit` rows a page), following `cursor.next`; each page's `previous` checked. */
async function walkCursor<T>(
  api: ApiHarness,
  path: string,
  limit: number,
  checkPrevious = true,
): Promise<{ rows: T[]; total: number }> {
  const rows: T[] = [];
  const currents: string[] = [];
  let next: string | null = null;
  let total = -1;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const q: string = `${path}${sep}limit=${limit}${next === null ? '' : `&cursor=${encodeURIComponent(next)}`}`;
    const { status, body }: { status: number; body: CursorPageBody<T> } = await api.get(q);
    expectMessage(q, () => expect(status).toBe(200));
    expect(body.limit).toBe(limit);
    if (total >= 0) expect(body.total).toBe(total);
    total = body.total;
    if (next !== null) expect(body.cursor.current).toBe(next);
    // The page before this one starts `limit` rows newer (or at the newest row).
    if (checkPrevious) expect(body.cursor.previous).toBe(currents.at(-1) ?? null);
    if (body.cursor.current !== null) currents.push(body.cursor.current);
    rows.push(...body.results);
    next = body.cursor.next;
  } while (next !== null);
  return { rows, total };
}

const FIXTURES = ['fuzzed-transactions-1.tsv', 'mainnet-out-of-order-microblock.tsv', 'epoch-3-transition.tsv'];

for (const fixture of FIXTURES) {
  describe(`address activity after replaying ${fixture}`, () => {
    let api: ApiHarness;
    let chain: Chain;

    beforeAll(async () => {
      chain = fixtureChain(fixture);
      api = await startApi(testInfra().databaseUrl, { fixture });
    }, 300_000);

    afterAll(async () => {
      await api?.close();
    });

    it('lists every principal’s asset events and STX locks as its committed canonical events, newest first', async () => {
      let nonEmpty = 0;
      for (const p of chain.principals) {
        const want = expectedAssets(chain, p);
        const { status, body, headers } = await api.get(`/extended/v1/address/${p}/assets?limit=100`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () => expect(body.total).toBe(want.length));
        expectMessage(p, () =>
          expect(body.results.map((e: { tx_id: string; event_index: number }) => [e.tx_id, e.event_index])).toEqual(
            want.slice(0, 100).map((e) => [e.txId, e.eventIndex]),
          ),
        );
        for (const [i, e] of body.results.entries()) {
          const w = want[i]!;
          const amount = e.asset?.amount ?? e.stx_lock_event?.locked_amount;
          if (amount !== undefined) expect(amount).toBe(w.amount.toString());
          if (e.asset?.asset_id !== undefined) expect(e.asset.asset_id).toBe(w.asset);
        }
        if (want.length > 2) {
          nonEmpty++;
          const page = await api.get(`/extended/v1/address/${p}/assets?limit=2&offset=1`);
          expect(page.body).toMatchObject({ limit: 2, offset: 1, total: want.length });
          expect(page.body.results).toEqual(body.results.slice(1, 3));
          // Up to a height in the middle of its history.
          const mid = want[Math.floor(want.length / 2)]!.height;
          const until = await api.get(`/extended/v1/address/${p}/assets?limit=100&until_block=${mid}`);
          expect(until.body.results.map((e: { tx_id: string; event_index: number }) => [e.tx_id, e.event_index])).toEqual(
            expectedAssets(chain, p, mid).map((e) => [e.txId, e.eventIndex]),
          );
        }
      }
      expect(nonEmpty).toBeGreaterThan(0);
    });

    it('lists every principal’s inbound STX transfers with their memos', async () => {
      let seen = 0;
      const key = (r: { tx_id: string; transfer_type: string; amount: string; memo: string }) =>
        `${r.tx_id} ${r.transfer_type} ${r.amount} ${r.memo}`;
      for (const p of chain.principals) {
        const want = expectedInbound(chain, p);
        const { status, body, headers } = await api.get(`/extended/v1/address/${p}/stx_inbound?limit=50`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () => expect(body.total).toBe(want.length));
        expectMessage(p, () => expect(body.results.map(key).sort()).toEqual(want.map(key).sort()));
        for (const r of body.results) {
          const w = want.find((x) => key(x) === key(r))!;
          expect({ sender: r.sender, block_height: r.block_height }).toEqual({ sender: w.sender, block_height: w.block_height });
        }
        const heights = body.results.map((r: { block_height: number }) => r.block_height);
        expect(heights).toEqual([...heights].sort((a, b) => b - a));
        seen += want.length;
        if (want.length > 0) {
          const h = want[0]!.block_height;
          const at = await api.get(`/extended/v1/address/${p}/stx_inbound?height=${h}`);
          expect(at.body.results.map(key).sort()).toEqual(expectedInbound(chain, p, { at: h }).map(key).sort());
        }
      }
      if (fixture !== 'mainnet-out-of-order-microblock.tsv') expect(seen).toBeGreaterThan(0);
    });

    it('lists every principal’s transactions with the STX it sent and received and its transfers', async () => {
      let withTokens = 0;
      for (const p of chain.principals) {
        const want = expectedTxsWithTransfers(chain, p);
        const { status, body, headers } = await api.get(`/extended/v1/address/${p}/transactions_with_transfers?limit=50`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () => expect(body.total).toBe(want.length));
        const got = body.results.map(
          (r: {
            tx: { tx_id: string };
            stx_sent: string;
            stx_received: string;
            stx_transfers: unknown[];
            ft_transfers: unknown[];
            nft_transfers: unknown[];
          }) => ({
            txId: r.tx.tx_id,
            height: (r.tx as unknown as { block_height: number }).block_height,
            stx_sent: r.stx_sent,
            stx_received: r.stx_received,
            stx_transfers: r.stx_transfers.length,
            ft_transfers: r.ft_transfers.length,
            nft_transfers: r.nft_transfers.length,
          }),
        );
        expectMessage(p, () => expect(got).toEqual(want.slice(0, 50)));
        withTokens += want.filter((w) => w.ft_transfers + w.nft_transfers > 0).length;

        // One by one (STX events only): the same STX totals, and a 404 for a transaction not of the principal.
        for (const w of expectedTxsWithTransfers(chain, p, { stxOnly: true }).slice(0, 3)) {
          const one = await api.get(`/extended/v1/address/${p}/${w.txId}/with_transfers`);
          expectMessage(`${p} ${w.txId}`, () => expect(one.status).toBe(200));
          expect(one.body).toMatchObject({ stx_sent: w.stx_sent, stx_received: w.stx_received });
          expect(one.body.stx_transfers).toHaveLength(w.stx_transfers);
          expect(one.body.ft_transfers).toBeUndefined();
        }
        const other = chain.txs.find((t) => !want.some((w) => w.txId === t.txId));
        if (other) {
          const none = await api.get(`/extended/v1/address/${p}/${other.txId}/with_transfers`);
          expectMessage(p, () => expect(none.status).toBe(404));
        }
      }
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(withTokens).toBeGreaterThan(0);
      // `height`: the transactions of one block.
      const busy = chain.txs[Math.floor(chain.txs.length / 2)]!;
      const at = await api.get(`/extended/v1/address/${busy.origin}/transactions_with_transfers?height=${busy.height}`);
      expect(at.body.results.map((r: { tx: { tx_id: string } }) => r.tx.tx_id)).toEqual(
        expectedTxsWithTransfers(chain, busy.origin)
          .filter((w) => w.height === busy.height)
          .map((w) => w.txId),
      );
    });

    it('lists every principal’s pending mempool transactions', async () => {
      const parties = chain.pending.flatMap((t) => [t.origin, t.transfer?.recipient, t.contract].filter((x) => x !== undefined));
      for (const p of new Set([...chain.principals, ...parties])) {
        const want = chain.pending
          .filter((t) => t.origin === p || t.transfer?.recipient === p || t.contract === p)
          .map((t) => t.txId)
          .sort();
        const { status, body, headers } = await api.get(`/extended/v1/address/${p}/mempool?limit=50`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () => expect(body.total).toBe(want.length));
        expectMessage(p, () => expect(body.results.map((t: { tx_id: string }) => t.tx_id).sort()).toEqual(want));
      }
      if (fixture !== 'mainnet-out-of-order-microblock.tsv') expect(chain.pending.length).toBeGreaterThan(0);
    });

    it('lists every principal’s transactions (v2) with STX totals and event counts, by offset and by cursor', async () => {
      // In the reference's order: height, microblock sequence (anchored last), index; newest first.
      const rank = new Map(expectedV3Order(chain).map((o, i) => [o.txId, i]));
      let paged = 0;
      for (const p of chain.principals) {
        const want = expectedAddressTxs(chain, p).sort((a, b) => rank.get(a.txId)! - rank.get(b.txId)!);
        const { status, body, headers } = await api.get(`/extended/v2/addresses/${p}/transactions?limit=50`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () => expect(body.total).toBe(want.length));
        expectMessage(p, () =>
          expect(
            body.results.map((r: { tx: { tx_id: string }; stx_sent: string; stx_received: string; events: unknown }) => ({
              txId: r.tx.tx_id,
              stx_sent: r.stx_sent,
              stx_received: r.stx_received,
              events: r.events,
            })),
          ).toEqual(want.slice(0, 50).map(({ mine: _mine, ...w }) => w)),
        );
        expect(body.next_cursor).toBeNull();
        if (want.length > 3 && want.length <= 15) {
          // Walk the history three at a time with the cursors: every transaction once, in order.
          paged++;
          const walked: string[] = [];
          let cursor: string | null = null;
          let previous: string | null = null;
          do {
            const q: string = cursor === null ? '' : `&cursor=${cursor}`;
            const page: {
              body: {
                results: Array<{ tx: { tx_id: string } }>;
                prev_cursor: string | null;
                next_cursor: string | null;
                cursor: string;
              };
            } = await api.get(`/extended/v2/addresses/${p}/transactions?limit=3${q}`);
            if (previous !== null) expect(page.body.next_cursor).toBe(previous);
            walked.push(...page.body.results.map((r) => r.tx.tx_id));
            previous = page.body.cursor;
            cursor = page.body.prev_cursor;
          } while (cursor !== null);
          expect(walked).toEqual(want.map((w) => w.txId));
          const offset = await api.get(`/extended/v2/addresses/${p}/transactions?limit=2&offset=2`);
          expect(offset.body.results.map((r: { tx: { tx_id: string } }) => r.tx.tx_id)).toEqual(
            want.slice(2, 4).map((w) => w.txId),
          );
        }
        // Its events in each of its first transactions, in event order.
        for (const w of want.slice(0, 3)) {
          const ev = await api.get(`/extended/v2/addresses/${p}/transactions/${w.txId}/events?limit=50`);
          expect(ev.status).toBe(200);
          expect(ev.body.total).toBe(w.mine.length);
          expectMessage(`${p} ${w.txId}`, () =>
            expect(
              ev.body.results.map(
                (r: {
                  type: string;
                  event_index: number;
                  data: { type: string; amount?: string; sender?: string; recipient?: string };
                }) => [
                  r.event_index,
                  `${r.type}_${r.data.type}_event`,
                  r.data.amount ?? null,
                  r.data.sender ?? null,
                  r.data.recipient ?? null,
                ],
              ),
            ).toEqual(
              w.mine.map((e) => [
                e.eventIndex,
                e.type,
                e.type.startsWith('nft_') ? null : e.amount.toString(),
                e.sender ?? null,
                e.recipient ?? null,
              ]),
            ),
          );
        }
      }
      expect(paged).toBeGreaterThan(0);
      const p = [...chain.principals][0]!;
      const unknownTx = await api.get(`/extended/v2/addresses/${p}/transactions/0x${'cd'.repeat(32)}/events`);
      expect(unknownTx.status).toBe(404);
      const badCursor = await api.get(`/extended/v2/addresses/${p}/transactions?cursor=12`);
      expect(badCursor.status).toBe(400);
      expect(badCursor.body.message).toMatch(/cursor/);
      const unknownCursor = await api.get(`/extended/v2/addresses/${p}/transactions?cursor=0x${'ef'.repeat(32)}:0:0`);
      expect(unknownCursor.status).toBe(404);
    });

    it('lists every principal’s v3 transactions by cursor, with its part, the STX moved and the balance changes of each', async () => {
      const status = txStatuses(chain);
      // In the v3 order (a block's anchored transactions before its microblock ones, as the reference orders them).
      const rank = new Map(expectedV3Order(chain).map((o, i) => [o.txId, i]));
      let multi = 0;
      for (const p of chain.principals) {
        const want = expectedAddressTxs(chain, p).sort((a, b) => rank.get(a.txId)! - rank.get(b.txId)!);
        const { rows, total } = await walkCursor<{
          transaction: { tx_id: string };
          involvement: string;
          balance_changes: { stx: { sent: string; received: string; net: string } };
          affected_balances: { stx: boolean; ft: boolean; nft: boolean };
        }>(api, `/extended/v3/principals/${p}/transactions`, 10);
        expectMessage(p, () => expect(total).toBe(want.length));
        expectMessage(p, () =>
          expect(
            rows.map((r) => ({
              txId: r.transaction.tx_id,
              sent: r.balance_changes.stx.sent,
              received: r.balance_changes.stx.received,
            })),
          ).toEqual(want.map((w) => ({ txId: w.txId, sent: w.stx_sent, received: w.stx_received }))),
        );
        for (const r of rows) {
          const t = chain.txs.find((x) => x.txId === r.transaction.tx_id)!;
          const mine = (chain.eventsOf.get(t.txId) ?? []).filter((e) => e.sender === p || e.recipient === p);
          expectMessage(`${p} ${t.txId}`, () =>
            expect({ involvement: r.involvement, affected: r.affected_balances, net: r.balance_changes.stx.net }).toEqual({
              involvement: t.origin === p ? 'sender' : t.payer === p ? 'sponsor' : 'affected',
              affected: {
                stx:
                  t.payer === p ||
                  t.transfer?.recipient === p ||
                  mine.some((e) => e.type.startsWith('stx_') && ASSET_TYPES.has(e.type)),
                ft: mine.some((e) => e.type.startsWith('ft_')),
                nft: mine.some((e) => e.type.startsWith('nft_')),
              },
              net: (BigInt(r.balance_changes.stx.received) - BigInt(r.balance_changes.stx.sent)).toString(),
            }),
          );
        }
        // Each of its first transactions asset by asset, two rows a page; then the first ones together.
        for (const w of want.slice(0, 2)) {
          const expected = expectedBalanceChanges(chain, p, w.txId, status);
          const walked = await walkCursor(api, `/extended/v3/principals/${p}/transactions/${w.txId}/balance-changes`, 2);
          expectMessage(`${p} ${w.txId}`, () => expect(walked).toEqual({ rows: expected, total: expected.length }));
        }
        const ids = want.slice(0, 3).map((w) => w.txId);
        if (ids.length > 1) {
          multi++;
          const expected = ids.flatMap((id) => expectedBalanceChanges(chain, p, id, status).map((c) => ({ tx_id: id, ...c })));
          const walked = await walkCursor(api, `/extended/v3/principals/${p}/balance-changes?tx_id=${ids.join(',')}`, 3);
          expectMessage(p, () => expect(walked).toEqual({ rows: expected, total: expected.length }));
          const repeated = await api.get(
            `/extended/v3/principals/${p}/balance-changes?${ids.map((id) => `tx_id=${id}`).join('&')}&limit=50`,
          );
          expect(repeated.body.results).toEqual(expected);
        }
      }
      expect(multi).toBeGreaterThan(0);
      // A transaction the principal has no part in: nothing moved.
      const p = chain.principals[0]!;
      const none = await api.get(`/extended/v3/principals/${p}/transactions/0x${'cd'.repeat(32)}/balance-changes`);
      expect(none.body).toEqual({ total: 0, limit: 20, cursor: { next: null, previous: null, current: null }, results: [] });
    });

    it('lists the canonical transactions (v3) by cursor, each by id with its events, and the STX supply', async () => {
      const order = expectedV3Order(chain);
      const limit = Math.max(2, Math.ceil(order.length / 4));
      const { rows, total } = await walkCursor<{ tx_id: string; block: { height: number } }>(
        api,
        '/extended/v3/transactions',
        limit,
      );
      expect(total).toBe(order.length);
      expect(rows.map((r) => r.tx_id)).toEqual(order.map((o) => o.txId));
      // A cursor `<height>:0:0` names the top of that block when no transaction sits there.
      const mid = order[Math.floor(order.length / 2)]!;
      const height = Number(mid.cursor.split(':')[0]);
      const fromBlock = await api.get(`/extended/v3/transactions?cursor=${height}:0:0&limit=1`);
      expect(fromBlock.body.results[0].tx_id).toBe(order.find((o) => o.cursor.startsWith(`${height}:`))!.txId);
      const status = txStatuses(chain);
      for (const t of chain.txs.slice(0, 3)) {
        const one = await api.get(`/extended/v3/transactions/${t.txId}?include=post_conditions,result`);
        expectMessage(t.txId, () => expect(one.status).toBe(200));
        expect(one.body).toMatchObject({
          tx_id: t.txId,
          sender: { address: t.origin },
          fee_rate: t.fee.toString(),
          block: { height: t.height, tx_index: t.txIndex },
          status: status.get(t.txId),
        });
        expect(one.body.post_conditions).toBeInstanceOf(Array);
        expect(one.body.result.hex).toMatch(/^0x/);
        if (t.transfer)
          expect(one.body.token_transfer).toMatchObject({
            recipient: t.transfer.recipient,
            amount: t.transfer.amount.toString(),
          });
        const want = (chain.eventsOf.get(t.txId) ?? []).filter(
          (e) => ASSET_TYPES.has(e.type) || e.type === 'stx_lock_event' || e.type === 'contract_event',
        );
        expect(one.body.event_count).toBe(want.length);
        const events = await walkCursor<{ event_index: number }>(api, `/extended/v3/transactions/${t.txId}/events`, 3, false);
        expectMessage(t.txId, () => expect(events).toEqual({ rows: expect.any(Array), total: want.length }));
        expect(events.rows.map((e) => e.event_index)).toEqual(want.map((e) => e.eventIndex).sort((a, b) => a - b));
      }
      const unknown = await api.get(`/extended/v3/transactions/0x${'ab'.repeat(32)}`);
      expect(unknown.status).toBe(404);
      const unknownEvents = await api.get(`/extended/v3/transactions/0x${'ab'.repeat(32)}/events`);
      expect(unknownEvents.status).toBe(404);

      const supply = expectedSupply(fixture, chain);
      const tip = await api.get('/extended/v3/tokens/stx/supply');
      expect(tip.body).toEqual({ total: supply.get(chain.tip)!.toString(), projected_total_2050: '2318000000000000' });
      for (const [h, micro] of [...supply.entries()].filter(
        (_, i, all) => i % Math.ceil(all.length / 5) === 0 || i === all.length - 1,
      )) {
        const v1 = await api.get(`/extended/v1/stx_supply?height=${h}`);
        const stx = `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`;
        expectMessage(String(h), () =>
          expect(v1.body).toEqual({
            unlocked_percent: micro > 0n ? '100.00' : '0.00',
            total_stx: stx,
            total_stx_year_2050: '2318000000.000000',
            unlocked_stx: stx,
            block_height: h,
          }),
        );
        expect(v1.headers.get('warning')).toMatch(/^299 /);
      }
    });

    it('lists the pending transactions (v3), all and each principal’s, by cursor', async () => {
      const all = await walkCursor<{ tx_id: string; receipt_time: number; status: string }>(
        api,
        '/extended/v3/mempool/transactions',
        4,
      );
      expect(all.rows.map((r) => r.tx_id).sort()).toEqual(chain.pending.map((t) => t.txId).sort());
      expect(all.total).toBe(chain.pending.length);
      // Newest first: receipt time, then tx id, both descending.
      const keys = all.rows.map((r) => [r.receipt_time, r.tx_id] as const);
      expect(keys).toEqual([...keys].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1)));
      expect(new Set(all.rows.map((r) => r.status))).toEqual(new Set(all.rows.length ? ['pending'] : []));
      const parties = chain.pending.flatMap((t) => [t.origin, t.transfer?.recipient, t.contract].filter((x) => x !== undefined));
      for (const p of new Set([...chain.principals.slice(0, 3), ...parties.slice(0, 6)])) {
        const want = chain.pending
          .filter((t) => t.origin === p || t.transfer?.recipient === p || t.contract === p)
          .map((t) => t.txId)
          .sort();
        const mine = await walkCursor<{ tx_id: string }>(api, `/extended/v3/principals/${p}/mempool/transactions`, 2);
        expectMessage(p, () => expect(mine.rows.map((r) => r.tx_id).sort()).toEqual(want));
        expect(mine.total).toBe(want.length);
      }
      if (chain.pending.length > 0) {
        const t = chain.pending[0]!;
        const one = await api.get(`/extended/v3/transactions/${t.txId}`);
        expect(one.body).toMatchObject({
          tx_id: t.txId,
          status: 'pending',
          sender: { address: t.origin },
          fee_rate: t.fee.toString(),
        });
      }
    });

    it('finds blocks, transactions, pending transactions, contracts and addresses by id (search)', async () => {
      const block = chain.blocks.at(-1)! as RawBlock & { block_hash: string; parent_block_hash: string; burn_block_time: number };
      const found = await api.get(`/extended/v1/search/${block.block_hash.slice(2).toUpperCase()}`);
      expect(found.status).toBe(200);
      expect(found.body).toEqual({
        found: true,
        result: {
          entity_id: block.block_hash,
          entity_type: 'block_hash',
          block_data: {
            canonical: true,
            hash: block.block_hash,
            parent_block_hash: block.parent_block_hash,
            burn_block_time: block.burn_block_time,
            height: block.block_height,
          },
        },
      });
      const withBlock = await api.get(`/extended/v1/search/${block.block_hash}?include_metadata=true`);
      expect(withBlock.body.result.metadata).toMatchObject({ hash: block.block_hash, height: block.block_height });
      expect(withBlock.body.result.metadata.txs).toHaveLength(block.transactions.length);

      const t = chain.txs.at(-1)!;
      const tx = await api.get(`/extended/v1/search/${t.txId}?include_metadata=true`);
      expect(tx.body.result).toMatchObject({
        entity_id: t.txId,
        entity_type: 'tx_id',
        tx_data: { canonical: true, block_hash: block.block_hash, block_height: t.height },
        metadata: { tx_id: t.txId, block_height: t.height, sender_address: t.origin },
      });
      const unknown = await api.get(`/extended/v1/search/0x${'cd'.repeat(32)}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ found: false, result: { entity_type: 'unknown_hash' } });
      // A principal-shaped term whose checksum fails is the reference's `invalid_term`; a term of no such shape a 400.
      const invalid = await api.get('/extended/v1/search/SP000000000000000000002Q6VF79');
      expect(invalid.status).toBe(404);
      expect(invalid.body.result).toEqual({ entity_type: 'invalid_term' });
      const malformed = await api.get('/extended/v1/search/not-a-thing');
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toMatch(/^id: /);

      // Addresses: one with history (its STX balance as metadata), and one nobody ever named.
      const sender = t.origin;
      const address = await api.get(`/extended/v1/search/${sender}?include_metadata=true`);
      expect(address.body.result).toMatchObject({ entity_id: sender, entity_type: 'standard_address' });
      expect(address.body.result.metadata.balance).toBe(chain.ledger.stxAt(sender).balance.toString());
      const nobody = addressToString(addressFromVersionHash(22, 'fe'.repeat(20)));
      const none = await api.get(`/extended/v1/search/${nobody}`);
      expect(none.status).toBe(404);
      expect(none.body.result).toEqual({ entity_type: 'standard_address' });

      // A contract deployed in the fixture: its deploy transaction.
      const deploy = chain.blocks
        .flatMap((b) => b.transactions.map((x) => ({ raw: x.raw_tx, txid: x.txid, height: b.block_height })))
        .find((x) =>
          [1, 6].includes((deserializeTransaction(x.raw.replace(/^0x/, '')).payload as { payloadType: number }).payloadType),
        );
      if (deploy) {
        const contract = chain.txs.find((x) => x.txId === deploy.txid)!.contract!;
        const c = await api.get(`/extended/v1/search/${contract}?include_metadata=true`);
        expect(c.body.result).toMatchObject({
          entity_id: contract,
          entity_type: 'contract_address',
          tx_data: { tx_id: deploy.txid, block_height: deploy.height, tx_type: 'smart_contract' },
          metadata: { tx_id: deploy.txid },
        });
      }
      const undeployed = await api.get(`/extended/v1/search/${nobody}.nothing-here`);
      expect(undeployed.status).toBe(404);
      expect(undeployed.body.result).toEqual({ entity_type: 'contract_address' });
      if (chain.pending.length > 0) {
        const pending = await api.get(`/extended/v1/search/${chain.pending[0]!.txId}`);
        expect(pending.body.result).toMatchObject({ entity_id: chain.pending[0]!.txId, entity_type: 'mempool_tx_id' });
      }
    });

    it('answers malformed v3 and supply input with a 400 naming the parameter', async () => {
      const p = [...chain.principals][0]!;
      const cases: Array<[string, RegExp]> = [
        ['/extended/v3/transactions?limit=0', /limit/],
        ['/extended/v3/transactions?limit=51', /limit/],
        ['/extended/v3/transactions?cursor=12', /cursor/],
        ['/extended/v3/transactions?cursor=1:2:99999999999', /cursor/],
        [`/extended/v3/transactions/0x${'ab'.repeat(32)}?include=everything`, /include/],
        [`/extended/v3/transactions/0x${'ab'.repeat(32)}?include=result,result`, /include/],
        [`/extended/v3/transactions/0x${'ab'.repeat(32)}/events?cursor=-1`, /cursor/],
        [`/extended/v3/transactions/0x12/events`, /tx_id/],
        ['/extended/v3/mempool/transactions?cursor=12:0x12', /cursor/],
        [`/extended/v3/principals/${p}/transactions?cursor=a:b:c`, /cursor/],
        [`/extended/v3/principals/SP123/transactions`, /principal/],
        [`/extended/v3/principals/${p}/balance-changes`, /tx_id/],
        [`/extended/v3/principals/${p}/balance-changes?tx_id=0x12`, /tx_id/],
        [
          `/extended/v3/principals/${p}/balance-changes?tx_id=${Array.from({ length: 51 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`).join(',')}`,
          /tx_id/,
        ],
        [`/extended/v3/principals/${p}/balance-changes?tx_id=0x${'ab'.repeat(32)}&cursor=1:2:stx`, /cursor/],
        [`/extended/v3/principals/${p}/transactions/0x${'ab'.repeat(32)}/balance-changes?cursor=stx`, /cursor/],
        [`/extended/v3/principals/${p}/mempool/transactions?limit=abc`, /limit/],
        ['/extended/v1/stx_supply?height=-1', /height/],
        ['/extended/v1/stx_supply/legacy_format?unanchored=yes', /unanchored/],
        [`/extended/v1/search/${p}?include_metadata=1`, /include_metadata/],
      ];
      for (const [path, message] of cases) {
        const { status, body } = await api.get(path);
        expectMessage(path, () => expect(status).toBe(400));
        expectMessage(path, () => expect(body.message).toMatch(message));
      }
    });

    it('answers malformed input with a 400 naming the parameter, and unknown blocks with a 404', async () => {
      const p = [...chain.principals][0]!;
      const both = await api.get(`/extended/v1/address/${p}/stx_inbound?height=1&until_block=1`);
      expect(both.status).toBe(400);
      expect(both.body.message).toMatch(/height/);
      const unanchored = await api.get(`/extended/v1/address/${p}/assets?until_block=1&unanchored=true`);
      expect(unanchored.status).toBe(400);
      const unknown = await api.get(`/extended/v1/address/${p}/transactions_with_transfers?until_block=0x${'ab'.repeat(32)}`);
      expect(unknown.status).toBe(404);
      const badTx = await api.get(`/extended/v1/address/${p}/0x12/with_transfers`);
      expect(badTx.status).toBe(400);
      expect(badTx.body.message).toMatch(/tx_id/);
      const badLimit = await api.get(`/extended/v1/address/${p}/assets?limit=101`);
      expect(badLimit.status).toBe(400);
      const badPrincipal = await api.get(`/extended/v1/address/SP123/mempool`);
      expect(badPrincipal.status).toBe(400);
    });
  });
}

describe('a page of a long principal history (v3)', () => {
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
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(testInfra().databaseUrl, { fixture: 'fuzzed-transactions-1.tsv' });
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('reads the page’s rows of principal_txs by primary key and their kept items by the pair’s hash, however long the history', async () => {
    // 5,000 history rows of one principal, each naming a copy of a real transaction: a history far longer than a page.
    const heavy = addressToString(addressFromVersionHash(22, 'ab'.repeat(20)));
    const { rows: columns } = (await api.db.raw(
      "SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'txs' ORDER BY ordinal_position",
    )) as { rows: Array<{ c: string }> };
    const copied: Record<string, string> = {
      tx_id: "'0x' || md5(g::text)",
      index_block_hash: "'0x' || md5('b' || g)",
      block_height: 'g',
      canonical: 'true',
    };
    await api.db.raw(
      `INSERT INTO txs (${columns.map(({ c }) => c).join(', ')})
       SELECT ${columns.map(({ c }) => copied[c] ?? `t.${c}`).join(', ')}
       FROM (SELECT * FROM txs WHERE canonical AND tx_index = 0 AND microblock_sequence IS NULL LIMIT 1) t,
            generate_series(1, 5000) g`,
    );
    await api.db.raw(
      `INSERT INTO principal_txs (principal, block_height, microblock_sequence, tx_index, tx_id, index_block_hash, stx_sent,
                                  stx_received, stx_balance_affected, ft_balance_affected, nft_balance_affected, seq)
       SELECT ?, g, 2147483647, 0, '0x' || md5(g::text), '0x' || md5('b' || g), 1, 0, true, false, false, g
       FROM generate_series(1, 5000) g`,
      [heavy],
    );
    await api.db.raw('INSERT INTO principal_tx_counts (principal, tx_count) VALUES (?, 5000)', [heavy]);
    // Their kept per-principal texts, as the indexer writes them with the rows (ADR 0039).
    const hashes = (await api.db.raw("SELECT '0x' || md5('b' || g) AS h FROM generate_series(1, 5000) g")) as {
      rows: Array<{ h: string }>;
    };
    expect(
      await keepPrincipalTxJson(
        api.db,
        hashes.rows.map((r) => r.h),
      ),
    ).toBe(5000);
    await api.db.raw('VACUUM (ANALYZE) principal_txs, txs, principal_tx_json');
    const page = await api.get(`/extended/v3/principals/${heavy}/transactions?limit=5&cursor=2500:2147483647:0`);
    expect(page.body.total).toBe(5000);
    expect(page.body.results.map((r: { transaction: { block: { height: number } } }) => r.transaction.block.height)).toEqual([
      2500, 2499, 2498, 2497, 2496,
    ]);
    expect(page.body.cursor).toEqual({ next: '2495:2147483647:0', previous: '2505:2147483647:0', current: '2500:2147483647:0' });
    // As the api runs it: a named prepared statement with its generic plan (see `datastore/read-statement.ts`).
    const client = new pg.Client({ connectionString: api.databaseUrl, options: '-c plan_cache_mode=force_generic_plan' });
    await client.connect();
    try {
      const { name, text } = PRINCIPAL_TRANSACTIONS;
      for (const [h, s, i] of [
        [2147483647, 2147483647, 2147483647],
        [2500, 2147483647, 0],
      ] as const) {
        await client.query({ name, text, values: [5, h, s, i, heavy] });
        const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(5, ${h}, ${s}, ${i}, ${client.escapeLiteral(heavy)})`,
        );
        const plan = nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan);
        const read = (table: string) =>
          plan.filter((n) => n['Relation Name'] === table).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
        // The page (limit + 1), the rows above it for the previous cursor (limit), and the cursor's own row at most.
        expectMessage(JSON.stringify(plan.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows']])), () =>
          expect(read('principal_txs')).toBeLessThanOrEqual(5 + 1 + 5 + 1),
        );
        // Each item of the page (limit) is its kept text by the pair's hash (ADR 0039, migration 111): no `txs` row,
        // block or event read.
        expect(read('principal_tx_json')).toBe(5);
        expect(
          plan.filter((n) => n['Relation Name'] === 'principal_tx_json').map((n) => [n['Node Type'], n['Index Name']]),
        ).toEqual([['Index Scan', 'principal_tx_json_pair_hash']]);
        expect(read('txs') + read('blocks') + read('events')).toBe(0);
        expect(plan.filter((n) => n['Relation Name'] === 'principal_txs').every((n) => n['Node Type'].startsWith('Index'))).toBe(
          true,
        );
      }
      // The v2 list reads the same rows: its page at a cursor deep in the history is as cheap.
      const v2 = ADDRESS_TRANSACTIONS;
      await client.query({ name: v2.name, text: v2.text, values: [heavy, 5, 0, 2500, 0, 2147483647] });
      const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${v2.name}(${client.escapeLiteral(heavy)}, 5, 0, 2500, 0, 2147483647)`,
      );
      const plan = nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan);
      const pageRows = plan
        .filter((n) => n['Relation Name'] === 'principal_txs')
        .reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
      // The cursor's row (one probe), the page (limit + 1) as a range of seq, the first row of the page before by seq.
      expectMessage(JSON.stringify(plan.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows'], n['Actual Loops']])), () =>
        expect(pageRows).toBeLessThanOrEqual(1 + 5 + 1 + 1),
      );
      // At an offset deep in the history the page is a range of seq too: the same rows read, the same buffers as the
      // first page (the skipped rows are not walked).
      // (The copied transactions' made-up ids are no valid answer for the schema: the statement's own rows are read.)
      // One row: the page's first row (height 1000) and the row after the page (995) as cursors.
      const deepRows = await client.query<{ cursor: string; prev_cursor: string }>({
        name: v2.name,
        text: v2.text,
        values: [heavy, 5, 4000, null, null, null],
      });
      const blockHash = (h: number) => `0x${createHash('md5').update(`b${h}`).digest('hex')}`;
      expect(deepRows.rows.map((r) => [r.cursor, r.prev_cursor])).toEqual([
        [`${blockHash(1000)}:2147483647:0`, `${blockHash(995)}:2147483647:0`],
      ]);
      const explain = async (offset: number) => {
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE ${v2.name}(${client.escapeLiteral(heavy)}, 5, ${offset}, null, null, null)`,
        );
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      };
      const [shallow, deep] = [await explain(0), await explain(4000)];
      // Each item's kept tail by the pair's hash (migration 111), once per item of the page (limit).
      for (const p of [shallow, deep]) {
        const probes = nodes(p).filter((n) => n['Relation Name'] === 'principal_tx_json');
        expect(probes.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows'] * n['Actual Loops']])).toEqual([
          ['Index Scan', 'principal_tx_json_pair_hash', 5],
        ]);
      }
      const deepPlan = nodes(deep).filter((n) => n['Relation Name'] === 'principal_txs');
      expectMessage(JSON.stringify(deepPlan.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows']])), () => {
        expect(deepPlan.every((n) => ['Index Scan', 'Index Only Scan', 'Bitmap Heap Scan'].includes(n['Node Type']))).toBe(true);
        expect(deepPlan.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0)).toBeLessThanOrEqual(1 + 5 + 1 + 1);
      });
      const buffers = (n: PlanNode) => n['Shared Hit Blocks'] + n['Shared Read Blocks'];
      // A page boundary of the index or the heap may fall inside one page and not the other: a few blocks either way.
      expectMessage(`${buffers(shallow)} ${buffers(deep)}`, () =>
        expect(buffers(deep)).toBeLessThanOrEqual(buffers(shallow) + 4),
      );
    } finally {
      await client.end();
    }
  });
});
