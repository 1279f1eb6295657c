import type { Knex } from 'knex';
import { createLogger } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { type Network, parseBitcoinBlock } from '@bda/runes';
import type { BuiltBlock } from '@bda/runes/src/testing/bitcoin-block-builder';
import { createTestDatabase } from '@bda/test-support';
import { applyBitcoinBlock, type RuneBlockOutcome } from '../src/runes/bitcoin-block-handler';

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
