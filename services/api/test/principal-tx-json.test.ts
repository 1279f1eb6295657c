/**
 * `principal_tx_json` (migration 102, ADR 0039): the per-principal parts of the address histories' items, kept by the
 * indexer. After each replayed fixture (mocknet, the reorg recording, the out-of-order microblock recording, the
 * epoch-3 transition): exactly one row per (principal, canonical transaction) pair of `principal_txs` or
 * `principal_transfer_txs` (none left of orphaned blocks), each text equal byte for byte to the one written here from
 * the raw rows (`txs`, the committed canonical asset events, `principal_txs`) by this test's own rendering, and
 * migration 102's backfill writes the same rows again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Knex } from 'knex';
import {
  clarityValueView,
  createDb,
  MIGRATIONS,
  TX_JSON_COLUMNS,
  toTransactionSummaryResponse,
  type DbTxSummaryFields,
} from '@bda/db';
import { expectMessage, testInfra } from '@bda/test-support';
import { replayedDatabase } from './support/replayed-database';

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

const key = (r: { principal: string; tx_id: string; index_block_hash: string }) =>
  `${r.principal} ${r.tx_id} ${r.index_block_hash}`;

async function keptRows(db: Knex): Promise<KeptRow[]> {
  return (await db.raw('SELECT * FROM principal_tx_json ORDER BY principal, tx_id, index_block_hash')).rows as KeptRow[];
}

describe.each(['mocknet.tsv', 'mainnet-reorg-scenario1.tsv', 'mainnet-out-of-order-microblock.tsv', 'epoch-3-transition.tsv'])(
  'kept per-principal history texts after replaying %s',
  (fixture) => {
    let db: Knex;

    beforeAll(async () => {
      db = createDb({ connectionString: await replayedDatabase(testInfra().databaseUrl, fixture), maxConnections: 2 });
    }, 300_000);

    afterAll(async () => {
      await db?.destroy();
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
  },
);
