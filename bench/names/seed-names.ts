/**
 * The naming read models of bench/names, generated in SQL (generate_series) straight into the tables, and what each
 * lookup must answer, computed from the same numbering (not by the api's code).
 *
 * For `names` names and `subdomains` subdomains, with A = max(1, names / 10) owner addresses (owner i is the Stacks
 * address of sha256(`owner i`)):
 * - namespace `btc`, lifetime 52,595 blocks, launched at height 2; the chain tip at height 2,000 (no name expired);
 * - name g (0 ≤ g < names) is `n{g}.btc`, registered at height 10 + g % 1000 by owner g % A, zonefile hash
 *   md5(g) + `00000000` (its zonefile stored), tx `0x` + md5(`tx{g}`); every tenth name (g % 10 = 0) also has an older
 *   row (height 5, owner (g + 1) % A, no zonefile), as a name that changed hands once;
 * - subdomain g (0 ≤ g < subdomains) is `s{g}.n{g % names}.btc`, owned by owner g % A, seqn 0, zonefile hash
 *   md5(`z{g}`) + `00000000`, zonefile `$ORIGIN s{g}`, carried by its parent's tx.
 * So every address holds 10 names and subdomains / A subdomains, whatever the table sizes (the answer of
 * `/v1/addresses/stacks/{addr}` has the same size in a small and a big database).
 *
 * The current-state tables (`bns_names_current`, `bns_subdomains_current`) are then computed from that history by the
 * indexer's own `rebuildBnsCurrent`. Indexes other than primary keys are dropped during the load and made again after
 * it (the migrations' own definitions, read from pg_indexes), then VACUUM ANALYZE: the state of tables the indexer has
 * filled and autovacuum has visited.
 */
import { createHash } from 'node:crypto';
import { createDb, migrateLatest } from '@bda/db';
import { rebuildBnsCurrent } from '@bda/indexer';
import { encodeStacksAddress } from '@bda/stacks-codec';

export interface NamesShape {
  names: number;
  subdomains: number;
}

export const LIFETIME = 52_595;
export const TIP_HEIGHT = 2_000;
const GRACE = 5_000;

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
export const addressCount = (shape: NamesShape) => Math.max(1, Math.floor(shape.names / 10));
export const ownerAddress = (i: number) =>
  encodeStacksAddress(22, createHash('sha256').update(`owner ${i}`).digest().subarray(0, 20));

/** What `/v1/names/n{g}.btc` answers. */
export function expectedName(shape: NamesShape, g: number): Record<string, unknown> {
  const registeredAt = 10 + (g % 1000);
  const hash = `${md5(String(g))}00000000`;
  return {
    address: ownerAddress(g % addressCount(shape)),
    blockchain: 'stacks',
    expire_block: registeredAt + LIFETIME,
    grace_period: registeredAt + LIFETIME + GRACE,
    last_txid: `0x${md5(`tx${g}`)}`,
    status: 'name-register',
    zonefile_hash: hash,
    zonefile: zonefileOf(g),
  };
}

/** What `/v1/names/s{g}.n{g % names}.btc` answers. */
export function expectedSubdomain(shape: NamesShape, g: number): Record<string, unknown> {
  return {
    address: ownerAddress(g % addressCount(shape)),
    blockchain: 'stacks',
    last_txid: `0x${md5(`tx${g % shape.names}`)}`,
    status: 'registered_subdomain',
    zonefile: `$ORIGIN s${g}`,
    zonefile_hash: `${md5(`z${g}`)}00000000`,
  };
}

/** What `/v1/addresses/stacks/{owner i}` answers: its names, then its subdomains, in byte order. */
export function expectedAddressNames(shape: NamesShape, i: number): string[] {
  const a = addressCount(shape);
  const out: string[] = [];
  for (let g = i; g < shape.names; g += a) out.push(`n${g}.btc`);
  for (let g = i; g < shape.subdomains; g += a) out.push(`s${g}.n${g % shape.names}.btc`);
  return out.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

const zonefileOf = (g: number) => `$ORIGIN n${g}.btc\n$TTL 3600\n_http._tcp IN URI 10 1 "https://n${g}.example.com/"\n`;
const ZONEFILE_SQL = `'$ORIGIN n' || g || E'.btc\\n$TTL 3600\\n_http._tcp IN URI 10 1 "https://n' || g || E'.example.com/"\\n'`;

const TABLES = [
  'bns_names',
  'bns_subdomains',
  'bns_zonefiles',
  'bns_names_current',
  'bns_subdomains_current',
  'bns_address_names',
];

/** Migrates `databaseUrl` and fills it, unless a previous run did (same shape): returns the seconds it took, or null. */
export async function seedNames(databaseUrl: string, shape: NamesShape): Promise<number | null> {
  const db = createDb({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    await migrateLatest(db);
    await db.raw('CREATE TABLE IF NOT EXISTS bench_names_seed (names int NOT NULL, subdomains int NOT NULL)');
    const done = await db('bench_names_seed').first();
    if (done && done.names === shape.names && done.subdomains === shape.subdomains) {
      // Filled by an earlier run: a migration that came since may have filled new tables from the history.
      await db.raw('VACUUM ANALYZE bns_names_current, bns_subdomains_current, bns_address_names');
      return null;
    }
    if (done) throw new Error(`${databaseUrl} holds another shape (${done.names} names, ${done.subdomains} subdomains)`);
    const started = Date.now();
    const a = addressCount(shape);
    const { names: n, subdomains: s } = shape;
    await db.raw(`SET maintenance_work_mem = '512MB'`);
    const { rows: indexes } = await db.raw<{ rows: Array<{ indexname: string; indexdef: string }> }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(?) AND indexname NOT LIKE '%_pkey'`,
      [TABLES],
    );
    for (const ix of indexes) await db.raw(`DROP INDEX ${ix.indexname}`);
    await db.raw(
      `INSERT INTO bns_namespaces (namespace_id, address, revealed_at, launched_at, lifetime, buckets, base, coeff, nonalpha_discount,
                                   no_vowel_discount, can_update_price_function, status, tx_id, block_height, tx_index, event_index, index_block_hash)
       VALUES ('btc', ?, 1, 2, ${LIFETIME}, '1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1', 10, 1000, 1, 1, true, 'ready', '0x01', 2, 0, 0, '0xb2')`,
      [ownerAddress(0)],
    );
    await db.raw(
      `INSERT INTO chain_tip (id, block_height, block_hash, index_block_hash, burn_block_height, block_count)
       VALUES (true, ${TIP_HEIGHT}, '0xtip', '0xtipindex', ${TIP_HEIGHT + 100}, ${TIP_HEIGHT})`,
    );
    await db.raw(`CREATE TEMP TABLE owners AS SELECT (row_number() OVER () - 1)::int AS i, a FROM unnest(?::text[]) a`, [
      Array.from({ length: a }, (_, i) => ownerAddress(i)),
    ]);
    await db.raw('CREATE INDEX ON owners (i)');
    await db.raw(
      `INSERT INTO bns_names (fqn, name, namespace_id, address, zonefile_hash, sets_zonefile, registered_at, imported_at, revoked,
                              status, tx_id, block_height, tx_index, event_index, index_block_hash)
       SELECT 'n' || g || '.btc', 'n' || g, 'btc', o.a, md5(g::text) || '00000000', true, 10 + g % 1000, NULL, false,
              'name-register', '0x' || md5('tx' || g), 10 + g % 1000, 0, 1, '0x' || md5('b' || (10 + g % 1000))
       FROM generate_series(0, ${n - 1}) g JOIN owners o ON o.i = g % ${a}`,
    );
    await db.raw(
      `INSERT INTO bns_names (fqn, name, namespace_id, address, zonefile_hash, sets_zonefile, registered_at, imported_at, revoked,
                              status, tx_id, block_height, tx_index, event_index, index_block_hash)
       SELECT 'n' || g || '.btc', 'n' || g, 'btc', o.a, '', false, 5, NULL, false, 'name-register', '0x' || md5('old' || g), 5, 0, 1, '0xb5'
       FROM generate_series(0, ${n - 1}, 10) g JOIN owners o ON o.i = (g + 1) % ${a}`,
    );
    await db.raw(
      `INSERT INTO bns_zonefiles (zonefile_hash, zonefile) SELECT md5(g::text) || '00000000', ${ZONEFILE_SQL}
       FROM generate_series(0, ${n - 1}) g`,
    );
    await db.raw(
      `INSERT INTO bns_subdomains (fqn, name, namespace_id, owner, seqn, zonefile_hash, zonefile, parent_zonefile_hash,
                                   parent_zonefile_index, resolver, tx_id, block_height, tx_index, index_block_hash)
       SELECT 's' || g || '.n' || (g % ${n}) || '.btc', 'n' || (g % ${n}) || '.btc', 'btc', o.a, 0, md5('z' || g) || '00000000',
              '$ORIGIN s' || g, md5((g % ${n})::text) || '00000000', g / ${n}, NULL, '0x' || md5('tx' || (g % ${n})),
              10 + (g % ${n}) % 1000, 0, '0x' || md5('b' || (10 + (g % ${n}) % 1000))
       FROM generate_series(0, ${s - 1}) g JOIN owners o ON o.i = g % ${a}`,
    );
    // The current-state tables, as the indexer keeps them (migration 075), recomputed from the history.
    await rebuildBnsCurrent(db);
    for (const ix of indexes) await db.raw(ix.indexdef);
    await db.raw('VACUUM ANALYZE');
    await db('bench_names_seed').insert(shape);
    return (Date.now() - started) / 1000;
  } finally {
    await db.destroy();
  }
}
