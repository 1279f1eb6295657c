/**
 * The kept v3 summaries of mined transactions (`tx_summary_json`, migration 108, ADR 0042) held to the api's mapper
 * (`toTransactionSummaryResponse`) over each `txs` row read here, and the v3 block pages to `JSON.stringify` of the
 * page object built from those renderings.
 */
import { expect } from '@jest/globals';
import type { Knex } from 'knex';
import { MIGRATIONS } from '@bda/db';
import {
  ANCHORED_SEQUENCE,
  toTransactionSummaryResponse,
  type DbTxSummaryFields,
} from '../../src/mappers/v3-transaction-summary';
import type { ApiHarness } from './api-harness';

type Row = DbTxSummaryFields & { seq: number; canonical: boolean };

/** Every `txs` row (canonical or not) rendered by the api's mapper, keyed `tx_id index_block_hash`. */
async function rendered(db: Knex): Promise<{ rows: Row[]; texts: Map<string, string> }> {
  const { rows } = (await db.raw(
    `SELECT tx_id, sender_address, nonce, sponsor_address, sponsor_nonce, fee_rate, block_height, block_hash,
            index_block_hash, block_time, burn_block_time, burn_block_height, tx_index,
            coalesce(microblock_sequence, ${ANCHORED_SEQUENCE}) AS seq, status, type_id, payload, canonical
     FROM txs`,
  )) as { rows: Row[] };
  return {
    rows,
    texts: new Map(rows.map((r) => [`${r.tx_id} ${r.index_block_hash}`, JSON.stringify(toTransactionSummaryResponse(r))])),
  };
}

/** The kept texts, keyed as `rendered`, each with its key columns checked against its `txs` row. */
async function kept(db: Knex): Promise<Map<string, { seq: number; tx_index: number; text: string }>> {
  const { rows } = (await db.raw('SELECT index_block_hash, seq, tx_index, tx_id, summary_json FROM tx_summary_json')) as {
    rows: Array<{ index_block_hash: string; seq: number; tx_index: number; tx_id: string; summary_json: string }>;
  };
  return new Map(
    rows.map((r) => [`${r.tx_id} ${r.index_block_hash}`, { seq: r.seq, tx_index: r.tx_index, text: r.summary_json }]),
  );
}

/**
 * Every `txs` row has its kept summary, byte for byte the api's mapper's text, at its place; migration 108 run again
 * from scratch (rolled back after) fills the same. Then every canonical block's first v3 page (limit 50) is
 * `JSON.stringify` of the page with those renderings as results. Returns how many transactions were compared.
 */
export async function expectKeptSummariesAsRendered(api: ApiHarness): Promise<number> {
  const want = await rendered(api.db);
  expect(want.rows.length).toBeGreaterThan(0);
  const places = new Map(want.rows.map((r) => [`${r.tx_id} ${r.index_block_hash}`, { seq: r.seq, tx_index: r.tx_index }]));
  const check = (got: Map<string, { seq: number; tx_index: number; text: string }>) => {
    expect(new Map([...got].map(([k, v]) => [k, v.text]))).toEqual(want.texts);
    expect(new Map([...got].map(([k, v]) => [k, { seq: v.seq, tx_index: v.tx_index }]))).toEqual(places);
  };
  check(await kept(api.db));

  const [, migration] = MIGRATIONS.find(([name]) => name === '108-tx-summary-json')!;
  const trx = await api.db.transaction();
  try {
    await migration.down(trx);
    await migration.up(trx);
    check(await kept(trx));
  } finally {
    await trx.rollback();
  }

  const byBlock = new Map<string, Row[]>();
  for (const r of want.rows) byBlock.set(r.index_block_hash, [...(byBlock.get(r.index_block_hash) ?? []), r]);
  const { rows: blocks } = (await api.db.raw('SELECT index_block_hash, block_height FROM blocks WHERE canonical')) as {
    rows: Array<{ index_block_hash: string; block_height: number }>;
  };
  for (const b of blocks) {
    const res = await api.get(`/extended/v3/blocks/${b.block_height}/transactions?limit=50`);
    expect(res.status).toBe(200);
    const txs = (byBlock.get(b.index_block_hash) ?? []).sort((x, y) => y.seq - x.seq || y.tx_index - x.tx_index).slice(0, 50);
    const page = { total: res.body.total, limit: 50, cursor: res.body.cursor, results: txs.map(toTransactionSummaryResponse) };
    expect(res.text).toBe(JSON.stringify(page));
  }
  return want.rows.length;
}
