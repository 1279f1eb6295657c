/**
 * The kept list texts of mined transactions (`tx_list_json`, migration 095, ADR 0035) held to the api's own rendering
 * of each transaction by id (`getTxById` + `toTransactionResponse`, the statement and mapper of `/extended/v1/tx/{id}`,
 * with `events: []` as lists show them).
 */
import { expect } from '@jest/globals';
import type { Knex } from 'knex';
import { MIGRATIONS } from '@bda/db';
import { getTxById } from '../../src/chain/datastore/txs';
import { toTransactionResponse } from '../../src/chain/mappers/tx';

/** Each canonical transaction's kept text, by id; the number of rows of `txs` and of `tx_list_json`. */
async function keptTexts(db: Knex): Promise<{ texts: Map<string, string>; txRows: number; keptRows: number }> {
  const { rows } = (await db.raw(
    `SELECT t.tx_id, j.json FROM txs t LEFT JOIN tx_list_json j USING (tx_id, index_block_hash) WHERE t.canonical`,
  )) as { rows: Array<{ tx_id: string; json: string | null }> };
  const [{ n: txRows }] = (await db.raw('SELECT count(*)::int AS n FROM txs')).rows as [{ n: number }];
  const [{ n: keptRows }] = (await db.raw('SELECT count(*)::int AS n FROM tx_list_json')).rows as [{ n: number }];
  const texts = new Map<string, string>();
  for (const r of rows) {
    expect(r.json).not.toBeNull();
    texts.set(r.tx_id, r.json!);
  }
  return { texts, txRows, keptRows };
}

/**
 * Every canonical transaction has its kept text, byte for byte the api's rendering by id; every `txs` row has one.
 * Then migration 095 is run again from scratch (in a transaction rolled back after) and fills the same texts.
 * Returns how many transactions were compared.
 */
export async function expectKeptTxTextsAsRendered(db: Knex): Promise<number> {
  const kept = await keptTexts(db);
  expect(kept.keptRows).toBe(kept.txRows);
  const rendered = new Map<string, string>();
  for (const id of kept.texts.keys()) {
    const found = await getTxById(db, id, { limit: 0, offset: 0 });
    if (found?.kind !== 'mined') throw new Error(`${id}: not mined by id`);
    rendered.set(id, JSON.stringify(toTransactionResponse(found.tx, [], found.abis)));
  }
  expect(kept.texts.size).toBeGreaterThan(0);
  expect(kept.texts).toEqual(rendered);

  const [, migration] = MIGRATIONS.find(([name]) => name === '095-tx-list-json')!;
  const trx = await db.transaction();
  try {
    await migration.down(trx);
    await migration.up(trx);
    const again = await keptTexts(trx);
    expect(again.keptRows).toBe(kept.txRows);
    expect(again.texts).toEqual(rendered);
  } finally {
    await trx.rollback();
  }
  return rendered.size;
}
