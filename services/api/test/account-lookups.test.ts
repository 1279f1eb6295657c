/**
 * The STX balance and nonce reads as the api process serves them (`accountLookupRoutes` on plain node:http, each kind
 * one statement for the reads of one turn of the event loop): many reads at once, of different principals and
 * heights, each get the totals the fixture's raw canonical events give (`accountLedger`, not our tables); the
 * statement for many (principal, height) pairs answers each pair; the tip validates the chain-only answers.
 */
import request from 'supertest';
import { describe, expect, it } from '@jest/globals';
import { getStxBalances } from '../src/accounts/datastore/stx-balance';
import { testAddress } from '../src/testing/builders';
import { replayedAccounts } from './support/replayed-accounts';

/** What a read asks, and the body fields it must answer with. */
interface Probe {
  path: string;
  want: Record<string, unknown>;
}

// The last one's block carries FT and NFT events (the others have none).
for (const fixture of ['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv']) {
  describe(`balance and nonce lookups over the replayed ${fixture}`, () => {
    const replayed = replayedAccounts(fixture);

    /** Every principal at the tip (v1, v2, v3, nonces v1 and v3) and at a few heights, and some unknown principals. */
    function probes(): Probe[] {
      const out: Probe[] = [];
      const heights = replayed.ledger.canonical.filter((b) => b.height >= 1).map((b) => b.height);
      const some = [heights[0]!, heights[Math.floor(heights.length / 2)]!, heights.at(-1)!];
      // At most 20 principals (the busiest fixture names more): enough to fill batches, cheap through supertest.
      for (const p of [...[...replayed.ledger.principals].slice(0, 20), testAddress('nobody')]) {
        const tip = replayed.ledger.stxAt(p);
        out.push({
          path: `/extended/v1/address/${p}/stx`,
          want: {
            balance: `${tip.balance}`,
            total_sent: `${tip.sent}`,
            total_received: `${tip.received}`,
            total_fees_sent: `${tip.fees}`,
          },
        });
        out.push({ path: `/extended/v2/addresses/${p}/balances/stx`, want: { balance: `${tip.balance}` } });
        out.push({ path: `/extended/v3/principals/${p}/balances/stx`, want: { balance: `${tip.balance}` } });
        const nonce = replayed.ledger.nonceAt(p);
        out.push({
          path: `/extended/v1/address/${p}/nonces`,
          want: { last_executed_tx_nonce: nonce === null ? null : Number(nonce) },
        });
        out.push({
          path: `/extended/v3/principals/${p}/nonces`,
          want: { last_confirmed_nonce: nonce === null ? null : Number(nonce) },
        });
        for (const h of some) {
          const at = replayed.ledger.stxAt(p, h);
          out.push({
            path: `/extended/v1/address/${p}/stx?until_block=${h}`,
            want: { balance: `${at.balance}`, total_received: `${at.received}`, total_fees_sent: `${at.fees}` },
          });
        }
      }
      return out;
    }

    it('gives each of many reads arriving together the totals of its own principal and height', async () => {
      const all = probes();
      expect(new Set(all.map((p) => p.want['balance'])).size).toBeGreaterThan(2);
      // Twice over, in opposite orders, all in flight at once: duplicates share a statement's row.
      const paths = [...all, ...[...all].reverse()];
      const answers = await Promise.all(paths.map((p) => request(replayed.api.server).get(p.path)));
      answers.forEach((answer, i) => {
        const { path, want } = paths[i]!;
        const got = Object.fromEntries(Object.keys(want).map((k) => [k, (answer.body as Record<string, unknown>)[k]]));
        expect({ path, status: answer.status, got }).toEqual({ path, status: 200, got: want });
      });
    });

    it('answers every (principal, height) pair of one statement with that pair’s totals, in order', async () => {
      const pairs = [...replayed.ledger.principals].flatMap((principal) => [
        { principal, height: null },
        ...replayed.ledger.canonical.filter((b) => b.height >= 1).map((b) => ({ principal, height: b.height })),
      ]);
      // Past the tip reads at the tip, as `until_block` above the chain does.
      pairs.push({ principal: [...replayed.ledger.principals][0]!, height: replayed.ledger.canonical.at(-1)!.height + 50 });
      const reads = await getStxBalances(replayed.api.db, pairs);
      expect(reads.length).toBe(pairs.length);
      reads.forEach((read, i) => {
        const { principal, height } = pairs[i]!;
        const want = replayed.ledger.stxAt(
          principal,
          height === null ? undefined : Math.min(height, replayed.ledger.canonical.at(-1)!.height),
        );
        expect({ principal, height, balance: read.balance?.balance, sent: read.balance?.total_sent }).toEqual({
          principal,
          height,
          balance: `${want.balance}`,
          sent: `${want.sent}`,
        });
      });
    });

    it('validates chain-only answers by the tip: 304 while it stands, a full answer for the mempool-aware ones', async () => {
      const p = [...replayed.ledger.principals][0]!;
      const tip = replayed.ledger.canonical.at(-1)!;
      const first = await replayed.api.get(`/extended/v2/addresses/${p}/balances/stx`);
      const etag = first.headers.get('etag');
      // The tip's index block hash, and its microblock when the tip has a confirmed stream.
      expect(etag).toMatch(new RegExp(`^W/"${tip.indexBlockHash}(:0x[0-9a-f]{64})?"$`));
      expect(first.headers.get('cache-control')).toBe('public, no-cache');
      expect(first.headers.get('warning')).toBe('299 - "Deprecated: Endpoint is deprecated"');
      const again = await replayed.api.get(`/extended/v2/addresses/${p}/balances/stx`, { headers: { 'If-None-Match': etag! } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      // A list of validators, one of them current; a stale one alone; the client refusing cached answers.
      expect(
        (
          await replayed.api.get(`/extended/v1/address/${p}/stx?until_block=1`, {
            headers: { 'If-None-Match': `W/"0xdead", ${etag}` },
          })
        ).status,
      ).toBe(304);
      expect(
        (await replayed.api.get(`/extended/v2/addresses/${p}/balances/stx`, { headers: { 'If-None-Match': 'W/"0xdead"' } }))
          .status,
      ).toBe(200);
      const refused = await replayed.api.get(`/extended/v2/addresses/${p}/balances/stx`, {
        headers: { 'If-None-Match': etag!, 'Cache-Control': 'no-cache' },
      });
      expect(refused.status).toBe(200);
      // With the mempool in it the answer changes without the tip moving: never validated by it.
      for (const path of [`/extended/v1/address/${p}/stx`, `/extended/v2/addresses/${p}/balances/stx?include_mempool=true`]) {
        const res = await replayed.api.get(path, { headers: { 'If-None-Match': etag! } });
        expect({ path, status: res.status, etag: res.headers.get('etag'), cache: res.headers.get('cache-control') }).toEqual({
          path,
          status: 200,
          etag: null,
          cache: 'no-store',
        });
      }
    });

    it('answers /balances with every token map as the raw events give it, at the tip and at each height, as JSON.stringify writes it', async () => {
      const heights = [null, ...replayed.ledger.canonical.filter((b) => b.height >= 1).map((b) => b.height)];
      let tokens = 0;
      for (const p of [...replayed.ledger.principals].slice(0, 20)) {
        for (const h of heights) {
          const path = `/extended/v1/address/${p}/balances${h === null ? '' : `?until_block=${h}`}`;
          const res = await replayed.api.get(path);
          expect({ path, status: res.status }).toEqual({ path, status: 200 });
          const ft = replayed.ledger.tokensAt(p, 'ft', h ?? undefined);
          const nft = replayed.ledger.tokensAt(p, 'nft', h ?? undefined);
          tokens += ft.size + nft.size;
          const amounts = (m: Record<string, Record<string, string>>, field: string) =>
            Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v[field]]));
          expect({ path, ft: amounts(res.body.fungible_tokens, 'balance') }).toEqual({
            path,
            ft: Object.fromEntries([...ft].map(([k, v]) => [k, `${v}`])),
          });
          expect({ path, nft: amounts(res.body.non_fungible_tokens, 'count') }).toEqual({
            path,
            nft: Object.fromEntries([...nft].map(([k, v]) => [k, `${v}`])),
          });
          // Assets in order, no spaces: the bytes JSON.stringify gives for the same object.
          expect(Object.keys(res.body.fungible_tokens)).toEqual([...ft.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
          expect(res.text).toBe(JSON.stringify(res.body));
        }
      }
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(tokens).toBeGreaterThan(2);
    });

    it('answers malformed principals and parameters with 4xx JSON, never a 5xx', async () => {
      const p = [...replayed.ledger.principals][0]!;
      for (const [path, status] of [
        ['/extended/v1/address/SPnotanaddress/stx', 400],
        [`/extended/v1/address/${p}/stx?until_block=0`, 400],
        [`/extended/v1/address/${p}/stx?until_block=0x${'00'.repeat(32)}`, 404],
        [`/extended/v1/address/${p}/stx?until_block=1&unanchored=true`, 400],
        [`/extended/v2/addresses/${p}/balances/stx?include_mempool=maybe`, 400],
        [`/extended/v3/principals/${p}.contract/nonces`, 400],
        [`/extended/v1/address/${p}/nonces?block_height=x`, 400],
        ['/extended/v1/address/%zz/stx', 400],
      ] as const) {
        const res = await replayed.api.get(path);
        expect({ path, status: res.status, error: typeof res.body?.error }).toEqual({ path, status, error: 'string' });
      }
    });
  });
}
