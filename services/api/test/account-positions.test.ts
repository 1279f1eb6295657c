/**
 * The v3 principal positions (`/extended/v3/principals/{principal}/balances/ft`, `/balances/ft/{asset_identifier}`,
 * `/balances/nft`, `/nonces`) on fixtures replayed through the real observer and indexer, against FT balances, NFT
 * owners and nonces computed here from the fixtures' raw events and transactions (`support/account-ledger.ts` and the
 * NFT owners below), independently of the indexer. Every answer is validated against the documented schemas.
 */
import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import type { AccountLedger } from './support/account-ledger';
import { replayedAccounts } from './support/replayed-accounts';
import { loadRecordedEvents } from './support/replayed-database';

interface RawBlock {
  index_block_hash: string;
  transactions: Array<{ txid: string; status: string }>;
  events: Array<{ txid: string; type: string; committed?: boolean; event_index: number; [body: string]: unknown }>;
}

/** The owner of every NFT value after the canonical chain's committed mints, transfers and burns (null: burnt). */
interface NftEvent {
  asset: string;
  value: string;
  type: string;
  sender: string | null;
  recipient: string | null;
  eventIndex: number;
  height: number;
  txId: string;
}

/** The committed NFT events of successful transactions of the canonical chain, in chain order. */
function nftEvents(fixture: string, ledger: AccountLedger): NftEvent[] {
  const byHash = new Map<string, RawBlock & { block_height: number }>();
  for (const e of loadRecordedEvents(fixture).filter((r) => r.path === '/new_block')) {
    const b = JSON.parse(e.body) as RawBlock & { block_height: number };
    if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  }
  const out: NftEvent[] = [];
  for (const c of ledger.canonical) {
    const b = byHash.get(c.indexBlockHash)!;
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const e of [...b.events].sort((x, y) => x.event_index - y.event_index)) {
      if (!e.type.startsWith('nft_') || e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
      const body = e[e.type] as { asset_identifier: string; raw_value: string; sender?: string; recipient?: string };
      out.push({
        asset: body.asset_identifier,
        value: body.raw_value.toLowerCase(),
        type: e.type,
        sender: body.sender ?? null,
        recipient: body.recipient ?? null,
        eventIndex: e.event_index,
        height: b.block_height,
        txId: e.txid,
      });
    }
  }
  return out;
}

function nftOwners(fixture: string, ledger: AccountLedger): Map<string, { asset: string; value: string; owner: string | null }> {
  const byHash = new Map<string, RawBlock>();
  for (const e of loadRecordedEvents(fixture).filter((r) => r.path === '/new_block')) {
    const b = JSON.parse(e.body) as RawBlock;
    if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
  }
  const owners = new Map<string, { asset: string; value: string; owner: string | null }>();
  for (const c of ledger.canonical) {
    const b = byHash.get(c.indexBlockHash)!;
    const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
    for (const e of [...b.events].sort((x, y) => x.event_index - y.event_index)) {
      if (!e.type.startsWith('nft_') || e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
      const body = e[e.type] as { asset_identifier: string; raw_value: string; recipient?: string };
      const value = body.raw_value.toLowerCase();
      owners.set(`${body.asset_identifier} ${value}`, {
        asset: body.asset_identifier,
        value,
        owner: e.type === 'nft_burn_event' ? null : body.recipient!,
      });
    }
  }
  return owners;
}

const FIXTURES = ['mainnet-out-of-order-microblock.tsv', 'fuzzed-transactions-1.tsv'];

for (const fixture of FIXTURES) {
  describe(`v3 principal positions after replaying ${fixture}`, () => {
    const replayed = replayedAccounts(fixture);

    it('lists every principal’s positive FT balances largest first, whole and walked by cursor', async () => {
      for (const p of replayed.ledger.principals) {
        const want = [...replayed.ledger.tokensAt(p, 'ft')]
          .filter(([, v]) => v > 0n)
          .sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x > y ? -1 : 1))
          .map(([asset_identifier, v]) => ({ asset_identifier, balance: v.toString() }));
        const { status, body, headers } = await replayed.api.get(`/extended/v3/principals/${p}/balances/ft?limit=200`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toBeNull();
        expectMessage(p, () => expect(body).toMatchObject({ total: want.length, limit: 200, results: want }));
        expect(body.cursor.next).toBeNull();
        expect(body.cursor.previous).toBeNull();
        // One at a time: `next` is the following row, `previous` the row before.
        const walked: unknown[] = [];
        let cursor: string | null = null;
        do {
          const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
          const page: {
            body: { results: unknown[]; cursor: { next: string | null; previous: string | null; current: string | null } };
          } = await replayed.api.get(`/extended/v3/principals/${p}/balances/ft?limit=1${q}`);
          if (walked.length > 0) expect(page.body.cursor.previous).not.toBeNull();
          walked.push(...page.body.results);
          cursor = page.body.cursor.next;
        } while (cursor !== null);
        expect(walked).toEqual(want);
        for (const [asset, v] of replayed.ledger.tokensAt(p, 'ft')) {
          const one = await replayed.api.get(`/extended/v3/principals/${p}/balances/ft/${asset}`);
          expect(one.body).toEqual({ asset_identifier: asset, balance: v.toString() });
        }
      }
      const p = [...replayed.ledger.principals][0]!;
      const none = await replayed.api.get(
        `/extended/v3/principals/${p}/balances/ft/SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.nothing::none`,
      );
      expect(none.body).toEqual({ asset_identifier: 'SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.nothing::none', balance: '0' });
      const bad = await replayed.api.get(`/extended/v3/principals/${p}/balances/ft?cursor=abc`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/cursor/);
      const badAsset = await replayed.api.get(`/extended/v3/principals/${p}/balances/ft/not-an-asset`);
      expect(badAsset.status).toBe(400);
    });

    it('lists the NFT values every principal holds now, as the raw mints, transfers and burns leave them', async () => {
      const owners = nftOwners(fixture, replayed.ledger);
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(owners.size).toBeGreaterThan(2);
      const holders = new Set([
        ...replayed.ledger.principals,
        ...[...owners.values()].flatMap((o) => (o.owner ? [o.owner] : [])),
      ]);
      let walkedSome = false;
      for (const p of holders) {
        const want = [...owners.values()]
          .filter((o) => o.owner === p)
          .sort((a, b) => (a.asset === b.asset ? (a.value < b.value ? -1 : 1) : a.asset < b.asset ? -1 : 1))
          .map((o) => [o.asset, o.value]);
        const { status, body } = await replayed.api.get(`/extended/v3/principals/${p}/balances/nft?limit=200`);
        expectMessage(p, () => expect(status).toBe(200));
        expectMessage(p, () => expect(body.total).toBe(want.length));
        expectMessage(p, () =>
          expect(
            body.results.map((r: { asset_identifier: string; value: { hex: string } }) => [r.asset_identifier, r.value.hex]),
          ).toEqual(want),
        );
        if (want.length > 1) {
          walkedSome = true;
          const walked: unknown[] = [];
          let cursor: string | null = null;
          do {
            const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
            const page: {
              body: { results: Array<{ asset_identifier: string; value: { hex: string } }>; cursor: { next: string | null } };
            } = await replayed.api.get(`/extended/v3/principals/${p}/balances/nft?limit=1${q}`);
            walked.push(...page.body.results.map((r) => [r.asset_identifier, r.value.hex]));
            cursor = page.body.cursor.next;
          } while (cursor !== null);
          expect(walked).toEqual(want);
        }
      }
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(walkedSome).toBe(true);
    });

    it('lists NFT holdings, the history of every NFT value, the mints of every class and every token’s holders', async () => {
      const events = nftEvents(fixture, replayed.ledger);
      const newestFirst = (a: NftEvent, b: NftEvent) => b.height - a.height || b.eventIndex - a.eventIndex;
      // Holdings: the values each principal was left holding by its newest event, newest acquired first.
      const last = new Map<string, NftEvent>();
      for (const e of events) last.set(`${e.asset} ${e.value}`, e);
      const held = [...last.values()].filter((e) => e.type !== 'nft_burn_event');
      for (const p of new Set(held.map((e) => e.recipient!))) {
        const want = held.filter((e) => e.recipient === p).sort(newestFirst);
        const { status, body, headers } = await replayed.api.get(`/extended/v1/tokens/nft/holdings?principal=${p}&limit=200`);
        expectMessage(p, () => expect(status).toBe(200));
        expect(headers.get('warning')).toMatch(/^299 /);
        expectMessage(p, () =>
          expect(
            body.results.map((r: { asset_identifier: string; value: { hex: string }; tx_id: string }) => [
              r.asset_identifier,
              r.value.hex,
              r.tx_id,
            ]),
          ).toEqual(want.map((e) => [e.asset, e.value, e.txId])),
        );
        const withTx = await replayed.api.get(
          `/extended/v1/tokens/nft/holdings?principal=${p}&tx_metadata=true&asset_identifiers=${want[0]!.asset}`,
        );
        expect(withTx.body.results.map((r: { tx: { tx_id: string } }) => r.tx.tx_id)).toEqual(
          want.filter((e) => e.asset === want[0]!.asset).map((e) => e.txId),
        );
      }
      // History of every value, newest first.
      for (const key of new Set(events.map((e) => `${e.asset} ${e.value}`))) {
        const [asset, value] = key.split(' ') as [string, string];
        const want = events.filter((e) => e.asset === asset && e.value === value).sort(newestFirst);
        const { status, body } = await replayed.api.get(
          `/extended/v1/tokens/nft/history?asset_identifier=${asset}&value=${value}`,
        );
        expectMessage(key, () => expect(status).toBe(200));
        expectMessage(key, () =>
          expect(
            body.results.map(
              (r: {
                sender: string | null;
                recipient?: string;
                event_index: number;
                asset_event_type: string;
                tx_id: string;
              }) => [r.sender, r.recipient ?? null, r.event_index, r.asset_event_type, r.tx_id],
            ),
          ).toEqual(want.map((e) => [e.sender, e.recipient, e.eventIndex, e.type.replace(/^nft_(.*)_event$/, '$1'), e.txId])),
        );
      }
      // Mints of every class.
      for (const asset of new Set(events.map((e) => e.asset))) {
        const want = events.filter((e) => e.asset === asset && e.type === 'nft_mint_event').sort(newestFirst);
        const { body } = await replayed.api.get(`/extended/v1/tokens/nft/mints?asset_identifier=${asset}&tx_metadata=true`);
        expectMessage(asset, () =>
          expect(
            body.results.map((r: { recipient: string; value: { hex: string }; tx: { tx_id: string } }) => [
              r.recipient,
              r.value.hex,
              r.tx.tx_id,
            ]),
          ).toEqual(want.map((e) => [e.recipient, e.value, e.txId])),
        );
        expect(body.total).toBe(want.length);
      }
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(events.some((e) => e.type === 'nft_mint_event')).toBe(true);
      // Holders of every fungible token and of STX: largest first, with the sum of the balances.
      const tokens = new Set([...replayed.ledger.principals].flatMap((p) => [...replayed.ledger.tokensAt(p, 'ft').keys()]));
      const byBalance = (a: [string, bigint], b: [string, bigint]) =>
        a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] > b[1] ? -1 : 1;
      for (const token of tokens) {
        const want = [...replayed.ledger.principals]
          .filter((p) => replayed.ledger.tokensAt(p, 'ft').has(token))
          .map((p): [string, bigint] => [p, replayed.ledger.tokensAt(p, 'ft').get(token)!])
          .sort(byBalance);
        const { status, body } = await replayed.api.get(`/extended/v1/tokens/ft/${token}/holders`);
        expectMessage(token, () => expect(status).toBe(200));
        expectMessage(token, () =>
          expect(body).toMatchObject({
            total: want.length,
            total_supply: want.reduce((s, [, v]) => s + v, 0n).toString(),
            results: want.map(([address, v]) => ({ address, balance: v.toString() })),
          }),
        );
      }
      const stx = [...replayed.ledger.principals]
        .map((p): [string, bigint] => [p, replayed.ledger.stxAt(p).balance])
        .filter(([, v]) => v !== 0n)
        .sort(byBalance);
      const { body: stxBody } = await replayed.api.get(`/extended/v1/tokens/ft/stx/holders?limit=200`);
      expect(stxBody.total_supply).toBe(stx.reduce((s, [, v]) => s + v, 0n).toString());
      expect(
        stxBody.results
          .filter((r: { balance: string }) => r.balance !== '0')
          .map((r: { address: string; balance: string }) => [r.address, r.balance]),
      ).toEqual(stx.map(([p, v]) => [p, v.toString()]));
      const bad = await replayed.api.get(`/extended/v1/tokens/nft/history?asset_identifier=nope&value=0x01`);
      expect(bad.status).toBe(400);
      const missing = await replayed.api.get(`/extended/v1/tokens/nft/holdings`);
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/principal/);
    });

    it('answers every address’s nonces as the raw transactions and the v1 endpoint give them, and 400 for a contract', async () => {
      for (const p of replayed.ledger.principals) {
        if (p.includes('.')) continue;
        const { status, body } = await replayed.api.get(`/extended/v3/principals/${p}/nonces`);
        expectMessage(p, () => expect(status).toBe(200));
        const last = replayed.ledger.nonceAt(p);
        expectMessage(p, () => expect(body.last_confirmed_nonce).toBe(last === null ? null : Number(last)));
        const v1 = await replayed.api.get(`/extended/v1/address/${p}/nonces`);
        expectMessage(p, () =>
          expect(body).toEqual({
            next_nonce: v1.body.possible_next_nonce,
            last_confirmed_nonce: v1.body.last_executed_tx_nonce,
            mempool: {
              last_nonce: v1.body.last_mempool_tx_nonce,
              pending_nonces: v1.body.detected_mempool_nonces,
              missing_nonces: v1.body.detected_missing_nonces,
            },
          }),
        );
      }
      const contract = await replayed.api.get(`/extended/v3/principals/SP000000000000000000002Q6VF78.pox-4/nonces`);
      expect(contract.status).toBe(400);
      expect(contract.body.message).toMatch(/principal/);
    });
  });
}
