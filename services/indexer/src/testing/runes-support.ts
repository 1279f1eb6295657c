import type { Knex } from 'knex';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { type Network, parseBitcoinBlock } from '@bda/runes';
import type { BuiltBlock } from '@bda/runes/testing';
import { createTestDatabase } from '@bda/test-support';
import { applyBitcoinBlock, type RuneBlockOutcome } from '../runes/bitcoin-block-handler';

export const RUNE_TABLES = [
  'rune_blocks',
  'runes',
  'rune_outputs',
  'rune_taproot_outputs',
  'rune_activity',
  'rune_txs',
  'rune_balances',
  'rune_addresses',
] as const;

export const silentLogger = createLogger('runes-test', 'silent');

/** A fresh, migrated database. */
export async function ledgerDb(serverUrl: string): Promise<Knex> {
  const url = await createTestDatabase(serverUrl, 'runes');
  const db = createDb({ connectionString: url, maxConnections: 4 });
  await migrateLatest(db);
  return db;
}

/** Applies each block in its own transaction, as the bus consumer does. */
export async function applyBlocks(
  db: Knex,
  blocks: BuiltBlock[],
  opts: { network?: Network; undoDepth?: number } = {},
): Promise<RuneBlockOutcome[]> {
  const outcomes: RuneBlockOutcome[] = [];
  for (const b of blocks) {
    outcomes.push(
      await db.transaction((trx) =>
        applyBitcoinBlock(trx, parseBitcoinBlock(b.hex, b.height), {
          network: opts.network ?? 'regtest',
          logger: silentLogger,
          undoDepth: opts.undoDepth,
        }),
      ),
    );
  }
  return outcomes;
}

/** Row count and an order-independent digest of every rune table. */
export async function runeChecksums(db: Knex): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of RUNE_TABLES) {
    const { rows } = await db.raw<{ rows: Array<{ n: string; digest: string | null }> }>(
      `SELECT count(*) AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
    );
    out[table] = `${rows[0]!.n}:${rows[0]!.digest ?? '-'}`;
  }
  return out;
}

/**
 * Every way the maintained counters could disagree with the rows they summarize, as SQL returning the offending
 * keys. All must return nothing.
 */
const INVARIANTS: Record<string, string> = {
  'rune totals = its activity rows': `
    SELECT r.number FROM runes r LEFT JOIN (
      SELECT rune_number, count(*) n, count(*) FILTER (WHERE operation = 1) m, count(*) FILTER (WHERE operation = 2) b,
             coalesce(sum(amount) FILTER (WHERE operation = 2), 0) burned, max(rune_seq) mx
      FROM rune_activity GROUP BY 1) a ON a.rune_number = r.number
    WHERE r.activity_count <> coalesce(a.n, 0) OR r.mints <> coalesce(a.m, 0) OR r.burn_count <> coalesce(a.b, 0)
       OR r.burned <> coalesce(a.burned, 0) OR coalesce(a.mx, -1) <> r.activity_count - 1`,
  'supply = premine + minted - burned = unspent outputs': `
    SELECT r.number FROM runes r LEFT JOIN (
      SELECT rune_number, sum(amount) s FROM rune_outputs WHERE spent_height IS NULL GROUP BY 1) o ON o.rune_number = r.number
    WHERE r.premine + r.mints * coalesce(r.terms_amount, 0) - r.burned <> coalesce(o.s, 0)`,
  'balances = unspent outputs per address': `
    SELECT rune_number, address FROM (
      SELECT rune_number, address, sum(amount) s FROM rune_outputs WHERE spent_height IS NULL AND address IS NOT NULL GROUP BY 1, 2) o
    FULL JOIN rune_balances b USING (rune_number, address) WHERE coalesce(o.s, 0) <> coalesce(b.balance, 0)`,
  'pair activity counts = rows (a pair row exists iff it has rows)': `
    SELECT rune_number, address FROM (
      SELECT rune_number, address, count(*) n, max(rune_address_seq) mx FROM rune_activity WHERE address IS NOT NULL GROUP BY 1, 2) a
    FULL JOIN rune_balances b USING (rune_number, address)
    WHERE coalesce(a.n, 0) <> coalesce(b.activity_count, 0) OR a.mx <> b.activity_count - 1 OR b.activity_count = 0`,
  'holder counts': `
    SELECT r.number FROM runes r LEFT JOIN (SELECT rune_number, count(*) n FROM rune_balances WHERE balance > 0 GROUP BY 1) h
      ON h.rune_number = r.number WHERE r.holder_count <> coalesce(h.n, 0)`,
  'address totals': `
    SELECT address FROM (SELECT address, count(*) n, max(address_seq) mx FROM rune_activity WHERE address IS NOT NULL GROUP BY 1) a
    FULL JOIN rune_addresses d USING (address)
    LEFT JOIN (SELECT address, count(*) k FROM rune_balances WHERE balance > 0 GROUP BY 1) k USING (address)
    WHERE coalesce(a.n, 0) <> coalesce(d.activity_count, 0) OR a.mx <> d.activity_count - 1 OR coalesce(k.k, 0) <> coalesce(d.rune_count, 0)`,
  'block counts = rows per operation, positions dense': `
    SELECT b.block_height FROM rune_blocks b LEFT JOIN (
      SELECT block_height, count(*) n, max(position) mx, count(*) FILTER (WHERE operation = 0) e, count(*) FILTER (WHERE operation = 1) m,
             count(*) FILTER (WHERE operation = 2) u, count(*) FILTER (WHERE operation = 3) s, count(*) FILTER (WHERE operation = 4) r
      FROM rune_activity GROUP BY 1) a USING (block_height)
    WHERE b.activity_count <> coalesce(a.n, 0) OR coalesce(a.mx, -1) <> b.activity_count - 1 OR b.etching_count <> coalesce(a.e, 0)
       OR b.mint_count <> coalesce(a.m, 0) OR b.burn_count <> coalesce(a.u, 0) OR b.send_count <> coalesce(a.s, 0)
       OR b.receive_count <> coalesce(a.r, 0)`,
  'per-operation positions and counts before each row': `
    SELECT block_height, position FROM (
      SELECT a.*,
        count(*) FILTER (WHERE operation = 0) OVER w - (operation = 0)::int be, count(*) FILTER (WHERE operation = 1) OVER w - (operation = 1)::int bm,
        count(*) FILTER (WHERE operation = 2) OVER w - (operation = 2)::int bb, count(*) FILTER (WHERE operation = 3) OVER w - (operation = 3)::int bs,
        count(*) FILTER (WHERE operation = 4) OVER w - (operation = 4)::int br
      FROM rune_activity a WINDOW w AS (PARTITION BY block_height ORDER BY position)) x
    WHERE before_etching <> be OR before_mint <> bm OR before_burn <> bb OR before_send <> bs OR before_receive <> br
       OR op_position <> (ARRAY[be, bm, bb, bs, br])[operation + 1]`,
  'transaction ranges': `
    SELECT t.tx_id FROM rune_txs t LEFT JOIN (
      SELECT tx_id, block_height, min(position) f, count(*) n, min(tx_index) i FROM rune_activity GROUP BY 1, 2) a USING (tx_id)
    WHERE a.f IS DISTINCT FROM t.first_position OR a.n IS DISTINCT FROM t.activity_count::bigint OR a.block_height <> t.block_height
       OR a.i <> t.tx_index`,
};

export async function ledgerInvariantViolations(db: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(INVARIANTS)) {
    const { rows } = await db.raw<{ rows: unknown[] }>(sql);
    if (rows.length > 0) out[name] = rows.slice(0, 5);
  }
  return out;
}
