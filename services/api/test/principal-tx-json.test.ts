/**
 * `principal_tx_json` (migration 102, ADR 0039): the per-principal parts of the address histories' items, kept by the
 * indexer. After each replayed fixture (mocknet, the reorg recording, the out-of-order microblock recording, the
 * epoch-3 transition): exactly one row per (principal, canonical transaction) pair of `principal_txs` or
 * `principal_transfer_txs` (none left of orphaned blocks), each text equal byte for byte to the one written here from
 * the raw rows (`txs`, the committed canonical asset events, `principal_txs`) by this test's own rendering, and
 * migration 102's backfill writes the same rows again. Then every page of each principal's three histories (v2
 * `/addresses/{a}/transactions` by offset, by cursor and without function arguments, v1
 * `/transactions_with_transfers`, v3 `/principals/{p}/transactions` by cursor) is held byte for byte to the page
 * written here from those rows, the transactions' kept list texts and the lists' rows in the lists' documented orders
 * (ADR 0046: the page's items are joined by PostgreSQL), including after the reorg and the microblock recordings.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Knex } from 'knex';
import { clarityValueView, MIGRATIONS, TX_JSON_COLUMNS, toTransactionSummaryResponse, type DbTxSummaryFields } from '@bda/db';
import { expectMessage, testInfra } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';

interface KeptRow {
  principal: string;
  tx_id: string;
  index_block_hash: string;
  v2_tail: string;
  transfers_tail: string;
  v3_json: string | null;
}

interface EventRow {
  tx_id: string;
  index_block_hash: string;
  event_index: number;
  type: string;
  amount: string | null;
  sender: string | null;
  recipient: string | null;
  asset_identifier: string | null;
  value_hex: string | null;
  value_repr: string | null;
}

type TxRow = DbTxSummaryFields & { sponsored: boolean; fee_rate: string };

interface ActivityRow {
  principal: string;
  tx_id: string;
  index_block_hash: string;
  stx_sent: string;
  stx_received: string;
  stx_balance_affected: boolean;
  ft_balance_affected: boolean;
  nft_balance_affected: boolean;
}

const q = (s: string | null) => JSON.stringify(s);

/** The expected texts of a pair, written here from the raw rows (the reference's field order, as the api answers). */
function expectedTexts(p: string, tx: TxRow, events: EventRow[], activity: ActivityRow | undefined) {
  // The principal's committed asset events of the transaction, highest index first.
  const mine = events.filter((e) => e.sender === p || e.recipient === p).sort((a, b) => b.event_index - a.event_index);
  const amount = (e: EventRow) => BigInt(e.amount ?? '0');
  const stx = mine.filter((e) => e.type.startsWith('stx_'));
  const stxIn = stx.filter((e) => e.recipient === p).reduce((s, e) => s + amount(e), 0n);
  const stxOut = stx.filter((e) => e.sender === p).reduce((s, e) => s + amount(e), 0n);
  // v2: the fee counts for the payer (the sponsor of a sponsored transaction); each event once per side it is on.
  const payer = tx.sponsored && tx.sponsor_address ? tx.sponsor_address : tx.sender_address;
  const count = (family: string, action: string) =>
    mine
      .filter((e) => e.type === `${family}_${action}_event`)
      .reduce((n, e) => n + (e.sender === p ? 1 : 0) + (e.recipient === p ? 1 : 0), 0);
  const counts = (family: string) =>
    `{"transfer":${count(family, 'transfer')},"mint":${count(family, 'mint')},"burn":${count(family, 'burn')}}`;
  const v2 =
    `"stx_sent":"${(payer === p ? BigInt(tx.fee_rate) : 0n) + stxOut}","stx_received":"${stxIn}",` +
    `"events":{"stx":${counts('stx')},"ft":${counts('ft')},"nft":${counts('nft')}}`;
  // v1 with transfers: the fee counts for the origin, sponsored or not; a missing party is left out.
  const parties = (e: EventRow) =>
    `${e.sender !== null ? `,"sender":${q(e.sender)}` : ''}${e.recipient !== null ? `,"recipient":${q(e.recipient)}` : ''}`;
  const value = (e: EventRow) =>
    e.value_hex && e.value_repr !== null
      ? `{"hex":${q(e.value_hex)},"repr":${q(e.value_repr)}}`
      : JSON.stringify(clarityValueView(e.value_hex));
  const list = (family: string, item: (e: EventRow) => string) =>
    `[${mine
      .filter((e) => e.type.startsWith(`${family}_`))
      .map(item)
      .join(',')}]`;
  const transfers =
    `"stx_sent":"${(tx.sender_address === p ? BigInt(tx.fee_rate) : 0n) + stxOut}","stx_received":"${stxIn}",` +
    `"stx_transfers":${list('stx', (e) => `{"amount":"${e.amount ?? '0'}"${parties(e)}}`)},` +
    `"ft_transfers":${list('ft', (e) => `{"amount":"${e.amount ?? '0'}","asset_identifier":${q(e.asset_identifier ?? '')}${parties(e)}}`)},` +
    `"nft_transfers":${list('nft', (e) => `{"value":${value(e)},"asset_identifier":${q(e.asset_identifier ?? '')}${parties(e)}}`)}`;
  let v3: string | null = null;
  if (activity) {
    const involvement = tx.sender_address === p ? 'sender' : tx.sponsored && tx.sponsor_address === p ? 'sponsor' : 'affected';
    const net = BigInt(activity.stx_received) - BigInt(activity.stx_sent);
    v3 =
      `{"transaction":${JSON.stringify(toTransactionSummaryResponse(tx))},"involvement":"${involvement}",` +
      `"balance_changes":{"stx":{"sent":"${activity.stx_sent}","received":"${activity.stx_received}","net":"${net}"}},` +
      `"affected_balances":{"stx":${activity.stx_balance_affected},"ft":${activity.ft_balance_affected},"nft":${activity.nft_balance_affected}}}`;
  }
  return { v2, transfers, v3 };
}

interface KeyRow {
  tx_id: string;
  index_block_hash: string;
}

/** A transaction as `exclude_function_args=true` lists it: a contract call without its arguments. */
function withoutArgs(tx: Record<string, unknown>): Record<string, unknown> {
  const call = tx.contract_call as Record<string, unknown> | undefined;
  if (!call || !('function_args' in call)) return tx;
  const rest = Object.fromEntries(Object.entries(call).filter(([k]) => k !== 'function_args'));
  return { ...tx, contract_call: rest };
}

const key = (r: { principal: string; tx_id: string; index_block_hash: string }) =>
  `${r.principal} ${r.tx_id} ${r.index_block_hash}`;

async function keptRows(db: Knex): Promise<KeptRow[]> {
  return (await db.raw('SELECT * FROM principal_tx_json ORDER BY principal, tx_id, index_block_hash')).rows as KeptRow[];
}

describe.each(['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv', 'epoch-3-transition.tsv'])(
  'kept per-principal history texts after replaying %s',
  (fixture) => {
    let api: ApiHarness;
    let db: Knex;

    beforeAll(async () => {
      api = await startApi(testInfra().databaseUrl, { fixture });
      db = api.db;
    }, 300_000);

    afterAll(async () => {
      await api?.close();
    });

    it('keeps one row per canonical (principal, transaction) pair, each text as written from the raw rows, and 102 backfills the same', async () => {
      const pairs = (
        await db.raw(
          `SELECT principal, tx_id, index_block_hash FROM principal_txs
           UNION SELECT principal, tx_id, index_block_hash FROM principal_transfer_txs`,
        )
      ).rows as Array<{ principal: string; tx_id: string; index_block_hash: string }>;
      const kept = await keptRows(db);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.map(key).sort()).toEqual(pairs.map(key).sort());
      // Every kept pair is a canonical transaction's (orphaned blocks' rows went with them).
      const txs = new Map(
        (
          (await db.raw(`SELECT ${TX_JSON_COLUMNS.join(', ')} FROM txs WHERE canonical`)).rows as Array<
            TxRow & { tx_id: string; index_block_hash: string }
          >
        ).map((t) => [`${t.tx_id} ${t.index_block_hash}`, t]),
      );
      const events = new Map<string, EventRow[]>();
      for (const e of (
        await db.raw(
          `SELECT tx_id, index_block_hash, event_index, type, amount::text AS amount, sender, recipient, asset_identifier,
                  value_hex, value_repr
           FROM events WHERE canonical AND committed AND type ~ '^(stx|ft|nft)_(transfer|mint|burn)_event$'`,
        )
      ).rows as EventRow[]) {
        const k = `${e.tx_id} ${e.index_block_hash}`;
        events.set(k, [...(events.get(k) ?? []), e]);
      }
      const activity = new Map(
        (
          (await db.raw('SELECT *, stx_sent::text AS stx_sent, stx_received::text AS stx_received FROM principal_txs'))
            .rows as ActivityRow[]
        ).map((a) => [key(a), a]),
      );
      let withV3 = 0;
      for (const row of kept) {
        const tx = txs.get(`${row.tx_id} ${row.index_block_hash}`);
        expectMessage(key(row), () => expect(tx).toBeDefined());
        const want = expectedTexts(
          row.principal,
          tx!,
          events.get(`${row.tx_id} ${row.index_block_hash}`) ?? [],
          activity.get(key(row)),
        );
        expectMessage(key(row), () => expect({ v2: row.v2_tail, transfers: row.transfers_tail, v3: row.v3_json }).toEqual(want));
        if (row.v3_json !== null) withV3 += 1;
      }
      expect(withV3).toBe(activity.size);
      if (fixture === 'mainnet-reorg-scenario1.tsv') {
        // The recording orphans blocks with transactions: their pairs were written while canonical and removed since.
        const orphaned = await db.raw('SELECT count(*)::int AS n FROM txs WHERE NOT canonical');
        expect(orphaned.rows[0].n).toBeGreaterThan(0);
      }
      // The backfill of an indexed database writes the same rows.
      const m102 = MIGRATIONS.find(([name]) => name === '102-principal-tx-json')![1];
      await db.transaction(async (trx) => {
        await m102.down(trx);
        await m102.up(trx);
      });
      expect(await keptRows(db)).toEqual(kept);
    });

    it('answers every page of each principal’s v2, with-transfers and v3 history as its kept texts in the list’s order, byte for byte', async () => {
      const kept = new Map((await keptRows(db)).map((r) => [key(r), r]));
      const texts = new Map(
        ((await db.raw('SELECT tx_id, index_block_hash, json FROM tx_list_json')).rows as Array<KeyRow & { json: string }>).map(
          (r) => [`${r.tx_id} ${r.index_block_hash}`, r.json],
        ),
      );
      const txRows = (await db.raw(
        'SELECT principal, tx_id, index_block_hash, block_height, microblock_sequence, tx_index FROM principal_txs',
      )) as { rows: Array<KeyRow & { principal: string; block_height: number; microblock_sequence: number; tx_index: number }> };
      const transferRows = (await db.raw(
        'SELECT principal, tx_id, index_block_hash, block_height, tx_index FROM principal_transfer_txs',
      )) as { rows: Array<KeyRow & { principal: string; block_height: number; tx_index: number }> };
      const principals = [...new Set([...txRows.rows, ...transferRows.rows].map((r) => r.principal))].sort();
      expect(principals.length).toBeGreaterThan(0);
      // `{"tx":<kept list text>,<the principal's kept members>}`: the item as `JSON.stringify` writes it, tx first.
      const item = (p: string, r: KeyRow, tail: 'v2_tail' | 'transfers_tail', noArgs = false) => {
        const row = kept.get(key({ principal: p, ...r }))!;
        const text = texts.get(`${r.tx_id} ${r.index_block_hash}`)!;
        if (row === undefined || text === undefined) throw new Error(`${key({ principal: p, ...r })}: no kept texts`);
        expect(row[tail]).not.toBe('');
        return `{"tx":${noArgs ? JSON.stringify(withoutArgs(JSON.parse(text) as Record<string, unknown>)) : text},${row[tail]}}`;
      };
      const body = (head: object, items: string[]) => `${JSON.stringify(head).slice(0, -1)},"results":[${items.join(',')}]}`;
      const get = async (path: string) => {
        const res = await api.get(path);
        expectMessage(`${path}: ${res.text.slice(0, 300)}`, () => expect(res.status).toBe(200));
        return res.text;
      };
      let pages = 0;
      for (const p of principals) {
        const base = encodeURIComponent(p);
        // v2 and v3: the principal's rows of principal_txs, newest first by (height, microblock sequence, index).
        const mine = txRows.rows
          .filter((r) => r.principal === p)
          .sort(
            (a, b) => b.block_height - a.block_height || b.microblock_sequence - a.microblock_sequence || b.tx_index - a.tx_index,
          );
        const v2Cursor = (r: (typeof mine)[number]) => `${r.index_block_hash}:${r.microblock_sequence}:${r.tx_index}`;
        const v2Page = (from: number, limit: number, offset: number, noArgs = false) => {
          const rows = mine.slice(from + offset, from + offset + limit);
          const after = mine[from + offset + limit];
          const before = from + offset - limit >= 0 && rows.length > 0 ? mine[from + offset - limit] : undefined;
          return body(
            {
              limit,
              offset,
              total: mine.length,
              next_cursor: before ? v2Cursor(before) : null,
              prev_cursor: after ? v2Cursor(after) : null,
              cursor: rows[0] ? v2Cursor(rows[0]) : null,
            },
            rows.map((r) => item(p, r, 'v2_tail', noArgs)),
          );
        };
        for (let offset = 0; offset <= mine.length; offset += 3) {
          await expectMessage(`${p} v2 offset ${offset}`, async () =>
            expect(await get(`/extended/v2/addresses/${base}/transactions?limit=3&offset=${offset}`)).toBe(v2Page(0, 3, offset)),
          );
          pages++;
        }
        expect(await get(`/extended/v2/addresses/${base}/transactions?limit=50&exclude_function_args=true`)).toBe(
          v2Page(0, 50, 0, true),
        );
        for (let at = 0; at < mine.length; at += 2) {
          await expectMessage(`${p} v2 cursor ${at}`, async () =>
            expect(await get(`/extended/v2/addresses/${base}/transactions?limit=2&cursor=${v2Cursor(mine[at]!)}`)).toBe(
              v2Page(at, 2, 0),
            ),
          );
        }
        // v3: by cursor (`<height>:<microblock sequence>:<index>`), three a page; the items are the kept v3 texts.
        const v3Cursor = (r: (typeof mine)[number]) => `${r.block_height}:${r.microblock_sequence}:${r.tx_index}`;
        for (let at = 0; at < Math.max(mine.length, 1); at += 3) {
          const rows = mine.slice(at, at + 3);
          const want = body(
            {
              total: mine.length,
              limit: 3,
              cursor: {
                next: mine[at + 3] ? v3Cursor(mine[at + 3]!) : null,
                previous: at > 0 ? v3Cursor(mine[Math.max(at - 3, 0)]!) : null,
                current: rows[0] ? v3Cursor(rows[0]) : null,
              },
            },
            rows.map((r) => kept.get(key(r))!.v3_json!),
          );
          const q = at === 0 ? '' : `&cursor=${v3Cursor(mine[at]!)}`;
          await expectMessage(`${p} v3 at ${at}`, async () =>
            expect(await get(`/extended/v3/principals/${base}/transactions?limit=3${q}`)).toBe(want),
          );
          pages++;
        }
        // With transfers: the principal's rows of principal_transfer_txs, newest first by (height, index, id).
        const transfers = transferRows.rows
          .filter((r) => r.principal === p)
          .sort((a, b) => b.block_height - a.block_height || b.tx_index - a.tx_index || (a.tx_id < b.tx_id ? 1 : -1));
        for (let offset = 0; offset <= transfers.length; offset += 3) {
          const want = body(
            { limit: 3, offset, total: transfers.length },
            transfers.slice(offset, offset + 3).map((r) => item(p, r, 'transfers_tail')),
          );
          await expectMessage(`${p} with transfers offset ${offset}`, async () =>
            expect(await get(`/extended/v1/address/${base}/transactions_with_transfers?limit=3&offset=${offset}`)).toBe(want),
          );
          pages++;
        }
      }
      expect(pages).toBeGreaterThan(principals.length);
      // A listed pair without its kept text is an indexer/api mismatch: a 500, not a page without the item.
      // The newest row of all is on the first page of its principal's v2 and v3 histories.
      const [newest] = [...txRows.rows].sort(
        (a, b) => b.block_height - a.block_height || b.microblock_sequence - a.microblock_sequence || b.tx_index - a.tx_index,
      );
      const gone = kept.get(key(newest!))!;
      await db.raw('DELETE FROM principal_tx_json WHERE principal = ? AND tx_id = ? AND index_block_hash = ?', [
        gone.principal,
        gone.tx_id,
        gone.index_block_hash,
      ]);
      try {
        for (const path of [
          `/extended/v2/addresses/${gone.principal}/transactions?limit=50`,
          `/extended/v3/principals/${gone.principal}/transactions?limit=50`,
        ]) {
          await expectMessage(path, async () => expect((await api.get(path)).status).toBe(500));
        }
      } finally {
        await db('principal_tx_json').insert(gone);
      }
    });
  },
);
