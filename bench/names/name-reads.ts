/**
 * bench/names/name-reads: the BNS lookups' speed on large read models (not a test; no assertions).
 *
 * Fills a fresh database directly (SQL, not through the pipeline): BENCH_NAMES names in one namespace (every tenth
 * with a second, older row, as a name that changed once), owned by BENCH_NAMES / 10 addresses (ten names each), and
 * BENCH_SUBDOMAINS subdomains spread over the names and owned by the same addresses. Then the api (in this process,
 * one worker) serves, and `wrk` (else a small Node keep-alive generator) measures each lookup for BENCH_SECONDS with
 * BENCH_CONNECTIONS connections: requests/s, p50, p99 and non-200 answers.
 *
 *   npx tsx bench/names/name-reads.ts
 *   env: BENCH_NAMES=1000000 BENCH_SUBDOMAINS=5000000 BENCH_SECONDS=5 BENCH_CONNECTIONS=16
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildRequestListener } from '@bda/api';
import { closeServer, createHttpServer, createLogger, createMetricsRegistry } from '@bda/common';
import { createDb, migrateLatest } from '@bda/db';
import { encodeStacksAddress } from '@bda/stacks-codec';
import { startPostgres } from '@bda/test-support';
import { ROOT } from '../../scripts/lib/service-process';
import { removeBenchDir } from '../ingest/bench-dir';
import { httpLoad } from '../http-load';

const NAMES = Number(process.env.BENCH_NAMES ?? 1_000_000);
const SUBDOMAINS = Number(process.env.BENCH_SUBDOMAINS ?? 5_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const dir = join(ROOT, '.tmp', `bench-names-${process.pid}`);
const pgServer = await startPostgres({ dataDir: dir, fresh: true, settings: { fsync: 'off', synchronous_commit: 'off' } });
const db = createDb({ connectionString: pgServer.url, maxConnections: 10 });
try {
  await migrateLatest(db);
  const addressCount = Math.max(1, Math.floor(NAMES / 10));
  const addresses = Array.from({ length: addressCount }, (_, i) =>
    encodeStacksAddress(22, createHash('sha256').update(`owner ${i}`).digest().subarray(0, 20)),
  );
  const started = Date.now();
  await db.raw(
    `INSERT INTO bns_namespaces (namespace_id, address, revealed_at, launched_at, lifetime, buckets, base, coeff, nonalpha_discount,
                                 no_vowel_discount, can_update_price_function, status, tx_id, block_height, tx_index, event_index, index_block_hash)
     VALUES ('btc', ?, 1, 2, 0, '1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1', 10, 1000, 1, 1, true, 'ready', '0x01', 2, 0, 0, '0xb2')`,
    [addresses[0]!],
  );
  await db.raw(`CREATE TEMP TABLE owners AS SELECT row_number() OVER () - 1 AS i, a FROM unnest(?::text[]) a`, [addresses]);
  await db.raw(
    `INSERT INTO bns_names (fqn, name, namespace_id, address, zonefile_hash, sets_zonefile, registered_at, imported_at, revoked,
                            status, tx_id, block_height, tx_index, event_index, index_block_hash)
     SELECT 'n' || g || '.btc', 'n' || g, 'btc', o.a, md5(g::text) || '00000000', true, 10 + g % 1000, NULL, false, 'name-register',
            '0x' || md5('tx' || g), 10 + g % 1000, 0, 1, '0x' || md5('b' || (10 + g % 1000))
     FROM generate_series(0, ? - 1) g JOIN owners o ON o.i = g % ?`,
    [NAMES, addressCount],
  );
  await db.raw(
    `INSERT INTO bns_names (fqn, name, namespace_id, address, zonefile_hash, sets_zonefile, registered_at, imported_at, revoked,
                            status, tx_id, block_height, tx_index, event_index, index_block_hash)
     SELECT 'n' || g || '.btc', 'n' || g, 'btc', o.a, '', false, 5, NULL, false, 'name-register', '0x' || md5('old' || g), 5, 0, 1, '0xb5'
     FROM generate_series(0, ? - 1, 10) g JOIN owners o ON o.i = (g + 1) % ?`,
    [NAMES, addressCount],
  );
  await db.raw(
    `INSERT INTO bns_subdomains (fqn, name, namespace_id, owner, seqn, zonefile_hash, zonefile, parent_zonefile_hash,
                                 parent_zonefile_index, resolver, tx_id, block_height, tx_index, index_block_hash)
     SELECT 's' || g || '.n' || (g % ?) || '.btc', 'n' || (g % ?) || '.btc', 'btc', o.a, 0, md5('z' || g) || '00000000',
            '$ORIGIN s' || g, md5((g % ?)::text) || '00000000', g / ?, NULL, '0x' || md5('tx' || (g % ?)), 10, 0, '0xb10'
     FROM generate_series(0, ? - 1) g JOIN owners o ON o.i = g % ?`,
    [NAMES, NAMES, NAMES, NAMES, NAMES, SUBDOMAINS, addressCount],
  );
  await db.raw('ANALYZE');
  const { rows } = await db.raw<{ rows: Array<{ names: string; subdomains: string }> }>(
    `SELECT (SELECT count(*) FROM bns_names) AS names, (SELECT count(*) FROM bns_subdomains) AS subdomains`,
  );
  console.log(
    `filled in ${Math.round((Date.now() - started) / 1000)} s: ${rows[0]!.names} name rows, ${rows[0]!.subdomains} subdomain rows`,
  );

  // The api as `main.ts` runs its connections: generic plans (ADR 0017).
  const apiDb = createDb({
    connectionString: `${pgServer.url}?options=-c%20plan_cache_mode%3Dforce_generic_plan`,
    maxConnections: 10,
  });
  const listener = buildRequestListener({
    db: apiDb,
    logger: createLogger('bench', 'silent'),
    metrics: createMetricsRegistry('bench'),
    isShuttingDown: () => false,
  });
  const server = createHttpServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mid = Math.floor(NAMES / 2) + 3;
  const endpoints: Array<[string, string]> = [
    ['name', `/v1/names/n${mid}.btc`],
    ['name (changed once)', `/v1/names/n${Math.floor(NAMES / 2)}.btc`],
    ['address', `/v1/addresses/stacks/${addresses[mid % addressCount]!}`],
    ['subdomain', `/v1/names/s${mid}.n${mid % NAMES}.btc`],
    ['name price', `/v2/prices/names/n${mid}.btc`],
  ];
  // A lookup that does not answer 200, or any error answer under load, makes the figures invalid (issue #19's rule).
  const invalid: string[] = [];
  for (const [label, path] of endpoints) {
    const check = await fetch(`${base}${path}`);
    const body = await check.text();
    if (check.status !== 200) invalid.push(`${label} answered ${check.status}`);
    const load = await httpLoad(`${base}${path}`, { seconds: SECONDS, connections: CONNECTIONS });
    if (load.errors > 0) invalid.push(`${label}: ${load.errors} error answers under load`);
    console.log(
      `${label.padEnd(20)} ${String(Math.round(load.rps)).padStart(6)} req/s  p50 ${load.p50.toFixed(2)} ms  p99 ${load.p99.toFixed(2)} ms  non-200 ${load.errors}  (${check.status}, ${body.length} bytes)`,
    );
  }
  if (invalid.length > 0) {
    console.error(`BENCH INVALID: ${invalid.join('; ')}`);
    process.exitCode = 1;
  }
  await closeServer(server);
  await apiDb.destroy();
} finally {
  await db.destroy();
  await pgServer.stop();
  removeBenchDir(dir);
}
