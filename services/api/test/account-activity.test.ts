/**
 * The v1 address activity endpoints (`/assets`, `/stx_inbound`, `/mempool`, `/transactions_with_transfers`,
 * `/{tx_id}/with_transfers`) on fixtures replayed through the real observer and indexer, every principal of each
 * fixture checked against what its raw node events and raw transactions say (decoded here with `@stacks/transactions`,
 * independently of the indexer and the api). Every answer is validated against the documented schemas by the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addressFromVersionHash, addressToString, AuthType, deserializeTransaction, txidFromData } from '@stacks/transactions';
import { expectMessage, testInfra } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { accountLedger } from './support/account-ledger';
import { loadRecordedEvents } from './support/replayed-database';

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
      let paged = 0;
      for (const p of chain.principals) {
        const want = expectedAddressTxs(chain, p);
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
