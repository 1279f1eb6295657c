import type { Knex } from 'knex';
import type { DbBnsName, DbBnsNamespace, DbBnsSubdomain } from '@bda/db';
import { BNS_CONTRACT_IDS, BNS_NAMES_ASSET_IDS, isBnsContract } from './bns-contract';
import { type BnsBlockInput, type BnsEventInput, bnsBlockChanges, bnsKeysOf, type BnsTxInput, touchesBns } from './bns-changes';
import { namespacesWithNewLeaseRules, refreshBnsCurrent } from './refresh-bns-current';
import { subdomainRows } from './subdomain-rows';

const NAME_KEY = ['fqn', 'index_block_hash', 'tx_id', 'event_index'];
const NAMESPACE_KEY = ['namespace_id', 'index_block_hash', 'tx_id', 'event_index'];
const SUBDOMAIN_KEY = ['fqn', 'index_block_hash', 'tx_id', 'parent_zonefile_hash'];
/** Rows a statement inserts at most (PostgreSQL takes 65,535 parameters; the widest row has 17 columns). */
const INSERT_CHUNK = 2_000;

async function insertRows(trx: Knex | Knex.Transaction, table: string, rows: object[], key: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx(table)
      .insert(rows.slice(i, i + INSERT_CHUNK))
      .onConflict(key)
      .ignore();
  }
}

/** The newest row of each name / namespace: the state a change starts from. */
async function priorState(trx: Knex.Transaction, keys: { names: string[]; namespaces: string[] }) {
  const names =
    keys.names.length === 0
      ? []
      : await trx
          .raw<{ rows: DbBnsName[] }>(
            `SELECT DISTINCT ON (fqn) * FROM bns_names WHERE fqn = ANY(?::text[])
           ORDER BY fqn, block_height DESC, tx_index DESC, event_index DESC`,
            [keys.names],
          )
          .then((r) => r.rows);
  const namespaces =
    keys.namespaces.length === 0
      ? []
      : await trx
          .raw<{ rows: DbBnsNamespace[] }>(
            `SELECT DISTINCT ON (namespace_id) * FROM bns_namespaces WHERE namespace_id = ANY(?::text[])
           ORDER BY namespace_id, block_height DESC, tx_index DESC, event_index DESC`,
            [keys.namespaces],
          )
          .then((r) => r.rows);
  const byName = new Map(names.map((r) => [r.fqn, r]));
  const byNamespace = new Map(namespaces.map((r) => [r.namespace_id, r]));
  return { name: (fqn: string) => byName.get(fqn), namespace: (id: string) => byNamespace.get(id) };
}

/**
 * Subdomain rows of the changes that set a zonefile already stored (the others get theirs when it arrives); returns the
 * subdomains they name.
 */
async function writeSubdomains(trx: Knex.Transaction, changes: readonly DbBnsName[]): Promise<string[]> {
  const setting = changes.filter((c) => c.sets_zonefile);
  if (setting.length === 0) return [];
  const hashes = [...new Set(setting.map((c) => c.zonefile_hash))];
  const stored: Array<{ zonefile_hash: string; zonefile: string }> = await trx('bns_zonefiles')
    .whereIn('zonefile_hash', hashes)
    .select('zonefile_hash', 'zonefile');
  const byHash = new Map(stored.map((z) => [z.zonefile_hash, z.zonefile]));
  const rows: DbBnsSubdomain[] = [];
  for (const c of setting) {
    const zonefile = byHash.get(c.zonefile_hash);
    if (zonefile !== undefined) rows.push(...subdomainRows(c, zonefile));
  }
  await insertRows(trx, 'bns_subdomains', rows, SUBDOMAIN_KEY);
  return rows.map((r) => r.fqn);
}

/**
 * Applies one canonical block to the BNS read models (ADR 0022): called for each block that joins the canonical chain,
 * in height order, after its rows are stored. A block without BNS events or calls costs one scan of its rows in memory.
 * The current rows of what it changed are recomputed (and of every name of a namespace it launched).
 */
export async function applyBnsBlock(trx: Knex.Transaction, block: BnsBlockInput): Promise<void> {
  if (!touchesBns(block)) return;
  const changes = bnsBlockChanges(block, await priorState(trx, bnsKeysOf(block)));
  const namespaces = await namespacesWithNewLeaseRules(
    trx,
    changes.namespaces.map((n) => n.namespace_id),
    () => insertRows(trx, 'bns_namespaces', changes.namespaces, NAMESPACE_KEY),
  );
  await insertRows(trx, 'bns_names', changes.names, NAME_KEY);
  const subdomains = await writeSubdomains(trx, changes.names);
  await refreshBnsCurrent(trx, { names: changes.names.map((n) => n.fqn), subdomains, namespaces });
}

/**
 * Removes what blocks leaving the canonical chain wrote: the newest remaining rows are current again, and the current
 * rows of what they touched are recomputed from them.
 */
export async function removeBnsBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const hashes = [...blockHashes];
  const deleted = async (table: string, key: string): Promise<string[]> => {
    const rows: Array<Record<string, string>> = await trx(table)
      .whereRaw('index_block_hash = ANY(?::text[])', [hashes])
      .delete()
      .returning(key);
    return rows.map((r) => r[key]!);
  };
  const subdomains = await deleted('bns_subdomains', 'fqn');
  const names = await deleted('bns_names', 'fqn');
  const touched: Array<{ namespace_id: string }> = await trx('bns_namespaces')
    .whereRaw('index_block_hash = ANY(?::text[])', [hashes])
    .distinct('namespace_id');
  const namespaces = await namespacesWithNewLeaseRules(
    trx,
    touched.map((r) => r.namespace_id),
    async () => void (await deleted('bns_namespaces', 'namespace_id')),
  );
  await refreshBnsCurrent(trx, { names, subdomains, namespaces });
}

/**
 * Blocks that joined the canonical chain in a reorg (their rows already flagged canonical): the BNS rows of every
 * canonical block from the lowest of them up are written again in height order, each from the states its ancestors
 * left. Above a reorg's fork point that is exactly the new branch; when a late parent joins under a canonical child,
 * the child's rows are recomputed from the parent's states.
 */
export async function addCanonicalBnsBlocks(trx: Knex.Transaction, blockHashes: readonly string[]): Promise<void> {
  if (blockHashes.length === 0) return;
  const lowest = await trx('blocks')
    .whereRaw('index_block_hash = ANY(?::text[])', [[...blockHashes]])
    .min<{ h: number | null }>({ h: 'block_height' })
    .first();
  if (lowest?.h == null) return;
  const blocks: Array<{ index_block_hash: string; block_height: number }> = await trx('blocks')
    .where('canonical', true)
    .andWhere('block_height', '>=', lowest.h)
    .orderBy('block_height')
    .select('index_block_hash', 'block_height');
  const hashes = blocks.map((b) => b.index_block_hash);
  await removeBnsBlocks(trx, hashes);
  const events = await trx.raw<{ rows: Array<BnsEventInput & { index_block_hash: string }> }>(
    `SELECT index_block_hash, tx_id, event_index, type, committed, contract_identifier, topic, asset_identifier, value_hex, recipient
     FROM events
     WHERE index_block_hash = ANY(?::text[]) AND (contract_identifier = ANY(?::text[]) OR asset_identifier = ANY(?::text[]))`,
    [hashes, [...BNS_CONTRACT_IDS], [...BNS_NAMES_ASSET_IDS]],
  );
  const txs = await trx.raw<{ rows: Array<BnsTxInput & { index_block_hash: string }> }>(
    `SELECT t.index_block_hash, t.tx_id, t.tx_index, t.status, t.sender_address, t.contract_id, t.payload::text AS payload
     FROM txs t
     WHERE t.index_block_hash = ANY(?::text[])
       AND (t.contract_id = ANY(?::text[])
            OR EXISTS (SELECT 1 FROM events e WHERE e.tx_id = t.tx_id AND e.index_block_hash = t.index_block_hash
                         AND (e.contract_identifier = ANY(?::text[]) OR e.asset_identifier = ANY(?::text[]))))`,
    [hashes, [...BNS_CONTRACT_IDS], [...BNS_CONTRACT_IDS], [...BNS_NAMES_ASSET_IDS]],
  );
  for (const b of blocks) {
    const blockEvents = events.rows.filter((e) => e.index_block_hash === b.index_block_hash);
    const blockTxs = txs.rows.filter((t) => t.index_block_hash === b.index_block_hash);
    if (blockEvents.length === 0 && blockTxs.length === 0) continue;
    await applyBnsBlock(trx, {
      index_block_hash: b.index_block_hash,
      block_height: b.block_height,
      txs: blockTxs,
      events: blockEvents,
    });
  }
}

/** An attachment of `/attachments/new`, as `attachments` stores it. */
export interface BnsAttachmentInput {
  content_hash: string;
  contract_id: string;
  content: Buffer;
}

/**
 * Zonefiles arriving through `/attachments/new`: stored by hash (without `0x`), and the subdomains of the canonical
 * name changes that set that hash — before or after the zonefile arrived — are written now.
 */
export async function applyBnsAttachments(trx: Knex.Transaction, items: readonly BnsAttachmentInput[]): Promise<void> {
  const zonefiles = new Map<string, string>();
  for (const a of items) {
    if (!isBnsContract(a.contract_id)) continue;
    zonefiles.set(a.content_hash.replace(/^0x/, '').toLowerCase(), a.content.toString('utf8'));
  }
  if (zonefiles.size === 0) return;
  await insertRows(
    trx,
    'bns_zonefiles',
    [...zonefiles].map(([zonefile_hash, zonefile]) => ({ zonefile_hash, zonefile })),
    ['zonefile_hash'],
  );
  const changes: DbBnsName[] = await trx('bns_names')
    .whereIn('zonefile_hash', [...zonefiles.keys()])
    .andWhere('sets_zonefile', true);
  await refreshBnsCurrent(trx, { subdomains: await writeSubdomains(trx, changes) });
}
