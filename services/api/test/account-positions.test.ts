/**
 * The v3 principal positions (`/extended/v3/principals/{principal}/balances/ft`, `/balances/ft/{asset_identifier}`,
 * `/balances/nft`, `/nonces`) on fixtures replayed through the real observer and indexer, against FT balances, NFT
 * owners and nonces computed here from the fixtures' raw events and transactions (`support/account-ledger.ts` and the
 * NFT owners below), independently of the indexer. Every answer is validated against the documented schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectMessage, testInfra } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { accountLedger, type AccountLedger } from './support/account-ledger';
import { loadRecordedEvents } from './support/replayed-database';

interface RawBlock {
  index_block_hash: string;
  transactions: Array<{ txid: string; status: string }>;
  events: Array<{ txid: string; type: string; committed?: boolean; event_index: number; [body: string]: unknown }>;
}

/** The owner of every NFT value after the canonical chain's committed mints, transfers and burns (null: burnt). */
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
    let api: ApiHarness;
    let ledger: AccountLedger;

    beforeAll(async () => {
      ledger = accountLedger(fixture);
      api = await startApi(testInfra().databaseUrl, { fixture });
    }, 300_000);

    afterAll(async () => {
      await api?.close();
    });

    it('lists every principal’s positive FT balances largest first, whole and walked by cursor', async () => {
      for (const p of ledger.principals) {
        const want = [...ledger.tokensAt(p, 'ft')]
          .filter(([, v]) => v > 0n)
          .sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x > y ? -1 : 1))
          .map(([asset_identifier, v]) => ({ asset_identifier, balance: v.toString() }));
        const { status, body, headers } = await api.get(`/extended/v3/principals/${p}/balances/ft?limit=200`);
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
          } = await api.get(`/extended/v3/principals/${p}/balances/ft?limit=1${q}`);
          if (walked.length > 0) expect(page.body.cursor.previous).not.toBeNull();
          walked.push(...page.body.results);
          cursor = page.body.cursor.next;
        } while (cursor !== null);
        expect(walked).toEqual(want);
        for (const [asset, v] of ledger.tokensAt(p, 'ft')) {
          const one = await api.get(`/extended/v3/principals/${p}/balances/ft/${asset}`);
          expect(one.body).toEqual({ asset_identifier: asset, balance: v.toString() });
        }
      }
      const p = [...ledger.principals][0]!;
      const none = await api.get(
        `/extended/v3/principals/${p}/balances/ft/SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.nothing::none`,
      );
      expect(none.body).toEqual({ asset_identifier: 'SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.nothing::none', balance: '0' });
      const bad = await api.get(`/extended/v3/principals/${p}/balances/ft?cursor=abc`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/cursor/);
      const badAsset = await api.get(`/extended/v3/principals/${p}/balances/ft/not-an-asset`);
      expect(badAsset.status).toBe(400);
    });

    it('lists the NFT values every principal holds now, as the raw mints, transfers and burns leave them', async () => {
      const owners = nftOwners(fixture, ledger);
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(owners.size).toBeGreaterThan(2);
      const holders = new Set([...ledger.principals, ...[...owners.values()].flatMap((o) => (o.owner ? [o.owner] : []))]);
      let walkedSome = false;
      for (const p of holders) {
        const want = [...owners.values()]
          .filter((o) => o.owner === p)
          .sort((a, b) => (a.asset === b.asset ? (a.value < b.value ? -1 : 1) : a.asset < b.asset ? -1 : 1))
          .map((o) => [o.asset, o.value]);
        const { status, body } = await api.get(`/extended/v3/principals/${p}/balances/nft?limit=200`);
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
            } = await api.get(`/extended/v3/principals/${p}/balances/nft?limit=1${q}`);
            walked.push(...page.body.results.map((r) => [r.asset_identifier, r.value.hex]));
            cursor = page.body.cursor.next;
          } while (cursor !== null);
          expect(walked).toEqual(want);
        }
      }
      if (fixture === 'mainnet-out-of-order-microblock.tsv') expect(walkedSome).toBe(true);
    });

    it('answers every address’s nonces as the raw transactions and the v1 endpoint give them, and 400 for a contract', async () => {
      for (const p of ledger.principals) {
        if (p.includes('.')) continue;
        const { status, body } = await api.get(`/extended/v3/principals/${p}/nonces`);
        expectMessage(p, () => expect(status).toBe(200));
        const last = ledger.nonceAt(p);
        expectMessage(p, () => expect(body.last_confirmed_nonce).toBe(last === null ? null : Number(last)));
        const v1 = await api.get(`/extended/v1/address/${p}/nonces`);
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
      const contract = await api.get(`/extended/v3/principals/SP000000000000000000002Q6VF78.pox-4/nonces`);
      expect(contract.status).toBe(400);
      expect(contract.body.message).toMatch(/principal/);
    });
  });
}
