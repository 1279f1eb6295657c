import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Knex } from 'knex';
import type { DbBnsName, DbBnsNamespace } from '@bda/db';
import { fenceDataEpoch, type DataFence } from '../data-epoch';
import { toStacksAddress } from './bitcoin-address';
import { namespacesWithNewLeaseRules, refreshBnsCurrent } from './refresh-bns-current';

/**
 * The genesis import (ADR 0022): the Stacks 1.0 names, namespaces, zonefiles and subdomains that Stacks 2.0 carried
 * into its chain without a transaction, from the files of the genesis data (`chainstate.txt`, `name_zonefiles.txt`,
 * `subdomains.csv`, `subdomain_zonefiles.txt`, each plain or `.gz`). Files are read line by line (the mainnet ones are
 * tens of MB) and written in batches; every row has a fixed key (block and transaction empty), so running it again
 * changes nothing. Their position is height 0, before any block: a change on the chain supersedes them.
 *
 * Namespaces and names count as revealed, launched and imported at block 1, where mainnet has them: a name's lease
 * runs from 1 for its namespace's lifetime.
 *
 * The import may run while the api serves (nothing stops it), so it is a writer of the answer fence (ADR 0048): with
 * a fence, each batch is one transaction that ends by raising `data_epoch` and fencing it, as the indexer's do.
 * Without one, each statement commits on its own, as before.
 */
const GENESIS_FILES = {
  chainstate: 'chainstate.txt',
  nameZonefiles: 'name_zonefiles.txt',
  subdomains: 'subdomains.csv',
  subdomainZonefiles: 'subdomain_zonefiles.txt',
} as const;

/** The block the genesis names exist from. */
const GENESIS_HEIGHT = 1;
const BATCH = 1_000;

export interface GenesisImportCounts {
  namespaces: number;
  names: number;
  zonefiles: number;
  subdomains: number;
  /** Rows skipped: an owner that is no address, a malformed line. */
  skipped: number;
}

/** The file `name` in `dir`, plain or gzipped (`name.gz`); null when neither exists. */
function findFile(dir: string, name: string): string | null {
  for (const candidate of [join(dir, name), join(dir, `${name}.gz`)]) if (existsSync(candidate)) return candidate;
  return null;
}

/** The lines of a file, gunzipped when its name ends in `.gz`. */
function lines(path: string): AsyncIterable<string> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  return createInterface({ input, crlfDelay: Infinity });
}

const genesisPosition = { tx_id: '', block_height: 0, tx_index: 0, event_index: 0, index_block_hash: '' };

/** Runs one batch's writes: in a transaction that ends with the fence when there is one, else statement by statement. */
async function writeBatch(db: Knex, fence: DataFence | undefined, write: (db: Knex) => Promise<void>): Promise<void> {
  if (!fence) return write(db);
  await db.transaction(async (trx) => {
    await write(trx);
    await fenceDataEpoch(trx, fence);
  });
}

async function insertIgnoring(db: Knex, table: string, rows: object[], key: string[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db(table).insert(rows).onConflict(key).ignore().returning(key[0]!);
  return inserted.length;
}

/** `a;b;c` CSV of the chainstate sections (no quoting in these files). */
const csv = (line: string) => line.split(',');

async function importChainstate(db: Knex, path: string, counts: GenesisImportCounts, fence?: DataFence): Promise<void> {
  let section: string | null = null;
  let header = true;
  let namespaces: DbBnsNamespace[] = [];
  let names: DbBnsName[] = [];
  // Each batch's current rows are recomputed whether or not its rows were new (a re-run repairs an interrupted one).
  const flush = async () => {
    if (namespaces.length + names.length === 0) return;
    await writeBatch(db, fence, async (db) => {
      const launched = await namespacesWithNewLeaseRules(
        db,
        namespaces.map((n) => n.namespace_id),
        async () => {
          counts.namespaces += await insertIgnoring(db, 'bns_namespaces', namespaces, [
            'namespace_id',
            'index_block_hash',
            'tx_id',
            'event_index',
          ]);
        },
      );
      counts.names += await insertIgnoring(db, 'bns_names', names, ['fqn', 'index_block_hash', 'tx_id', 'event_index']);
      await refreshBnsCurrent(db, { names: names.map((n) => n.fqn), namespaces: launched });
    });
    namespaces = [];
    names = [];
  };
  for await (const line of lines(path)) {
    const begin = /^-----BEGIN (.+)-----$/.exec(line);
    if (begin) {
      section = begin[1]!;
      header = true;
      continue;
    }
    if (/^-----END .+-----$/.test(line)) {
      section = null;
      continue;
    }
    if (section === null || line === '') continue;
    if (header) {
      header = false;
      continue;
    }
    if (section === 'NAMESPACES') {
      const [id, address, buckets, base, coeff, nonalpha, noVowel, lifetime] = csv(line);
      const owner = toStacksAddress(address ?? '');
      const numbers = [base, coeff, nonalpha, noVowel, lifetime];
      const bucketList = (buckets ?? '').split(';');
      if (
        !id ||
        !owner ||
        numbers.some((n) => !/^\d+$/.test(n ?? '')) ||
        bucketList.length !== 16 ||
        !bucketList.every((b) => /^\d+$/.test(b))
      ) {
        counts.skipped += 1;
        continue;
      }
      namespaces.push({
        namespace_id: id,
        address: owner,
        revealed_at: GENESIS_HEIGHT,
        launched_at: GENESIS_HEIGHT,
        lifetime: lifetime!,
        buckets: bucketList.join(';'),
        base: base!,
        coeff: coeff!,
        nonalpha_discount: nonalpha!,
        no_vowel_discount: noVowel!,
        can_update_price_function: false,
        status: 'ready',
        ...genesisPosition,
      });
    } else if (section === 'NAMES') {
      const [fqn, address, zonefileHash] = csv(line);
      const dot = fqn?.lastIndexOf('.') ?? -1;
      const owner = toStacksAddress(address ?? '');
      if (!fqn || dot <= 0 || !owner) {
        counts.skipped += 1;
        continue;
      }
      const hash = (zonefileHash ?? '').toLowerCase();
      names.push({
        fqn,
        name: fqn.slice(0, dot),
        namespace_id: fqn.slice(dot + 1),
        address: owner,
        zonefile_hash: hash,
        sets_zonefile: hash !== '',
        registered_at: null,
        imported_at: GENESIS_HEIGHT,
        revoked: false,
        status: 'name-import',
        ...genesisPosition,
      });
    }
    if (namespaces.length + names.length >= BATCH) await flush();
  }
  await flush();
}

/** Alternating lines: a zonefile hash, then the zonefile with its newlines written as `\n`. */
async function importZonefiles(db: Knex, path: string, counts: GenesisImportCounts, fence?: DataFence): Promise<void> {
  let hash: string | null = null;
  let rows: Array<{ zonefile_hash: string; zonefile: string }> = [];
  const flush = async () => {
    if (rows.length === 0) return;
    await writeBatch(db, fence, async (db) => {
      counts.zonefiles += await insertIgnoring(db, 'bns_zonefiles', rows, ['zonefile_hash']);
    });
    rows = [];
  };
  for await (const line of lines(path)) {
    if (hash === null) {
      if (line === '') continue;
      hash = line.trim().toLowerCase();
      continue;
    }
    if (/^[0-9a-f]{40}$/.test(hash)) rows.push({ zonefile_hash: hash, zonefile: line.replace(/\\n/g, '\n') });
    else counts.skipped += 1;
    hash = null;
    if (rows.length >= BATCH) await flush();
  }
  await flush();
}

const INSERT_SUBDOMAINS = `INSERT INTO bns_subdomains (fqn, name, namespace_id, owner, seqn, zonefile_hash, zonefile, parent_zonefile_hash,
                              parent_zonefile_index, resolver, tx_id, block_height, tx_index, index_block_hash)
   SELECT s.fqn, s.name, s.namespace_id, s.owner, 0, s.zonefile_hash, coalesce(z.zonefile, ''), s.parent_zonefile_hash,
          s.parent_zonefile_index, nullif(s.resolver, ''), '', 0, 0, ''
   FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[])
          AS s(fqn, name, namespace_id, owner, zonefile_hash, parent_zonefile_hash, parent_zonefile_index, resolver)
   LEFT JOIN bns_zonefiles z ON z.zonefile_hash = s.zonefile_hash
   ON CONFLICT (fqn, index_block_hash, tx_id, parent_zonefile_hash) DO NOTHING
   RETURNING 1`;

/**
 * `subdomains.csv`: zonefile_hash, parent_zonefile_hash, fully_qualified_subdomain, owner, block_height,
 * parent_zonefile_index, zonefile_offset, resolver. Each subdomain's zonefile is taken from `bns_zonefiles` (the
 * subdomain zonefiles are imported first); its sequence number counts as 0.
 */
async function importSubdomains(db: Knex, path: string, counts: GenesisImportCounts, fence?: DataFence): Promise<void> {
  let header = true;
  let rows: string[][] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    const column = (i: number) => rows.map((r) => r[i]!);
    await writeBatch(db, fence, async (db) => {
      const result = await db.raw<{ rows: unknown[] }>(INSERT_SUBDOMAINS, [
        column(0),
        column(1),
        column(2),
        column(3),
        column(4),
        column(5),
        column(6).map(Number),
        column(7),
      ]);
      counts.subdomains += result.rows.length;
      await refreshBnsCurrent(db, { subdomains: column(0) });
    });
    rows = [];
  };
  for await (const line of lines(path)) {
    if (header) {
      header = false;
      continue;
    }
    if (line === '') continue;
    const [zonefileHash, parentHash, fqn, owner, , parentIndex, , resolver] = csv(line);
    const parts = (fqn ?? '').split('.');
    const stacksOwner = toStacksAddress(owner ?? '');
    if (parts.length !== 3 || parts.some((p) => p === '') || !stacksOwner || !/^\d+$/.test(parentIndex ?? '')) {
      counts.skipped += 1;
      continue;
    }
    rows.push([
      fqn!,
      parts.slice(1).join('.'),
      parts[2]!,
      stacksOwner,
      (zonefileHash ?? '').toLowerCase(),
      (parentHash ?? '').toLowerCase(),
      parentIndex!,
      resolver ?? '',
    ]);
    if (rows.length >= BATCH) await flush();
  }
  await flush();
}

/**
 * Imports the genesis files of `dir` (each optional); returns how many rows were new. `fence`: each batch is a
 * transaction that ends with the answer fence (ADR 0048).
 */
export async function importBnsGenesis(db: Knex, dir: string, fence?: DataFence): Promise<GenesisImportCounts> {
  const counts: GenesisImportCounts = { namespaces: 0, names: 0, zonefiles: 0, subdomains: 0, skipped: 0 };
  const chainstate = findFile(dir, GENESIS_FILES.chainstate);
  if (!chainstate) throw new Error(`no ${GENESIS_FILES.chainstate}(.gz) in ${dir}`);
  await importChainstate(db, chainstate, counts, fence);
  for (const name of [GENESIS_FILES.nameZonefiles, GENESIS_FILES.subdomainZonefiles]) {
    const path = findFile(dir, name);
    if (path) await importZonefiles(db, path, counts, fence);
  }
  const subdomains = findFile(dir, GENESIS_FILES.subdomains);
  if (subdomains) await importSubdomains(db, subdomains, counts, fence);
  return counts;
}
