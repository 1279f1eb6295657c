import type { Knex } from 'knex';
import { KeyedBatchLoader } from '../../datastore/keyed-batch-loader';
import { query, statement } from '../../datastore/read-statement';

/** The highest nonces an address used (origin or sponsor), mined and pending; null when none. bigint columns as text. */
export interface DbAddressNonces {
  executed: string | null;
  executed_sponsor: string | null;
  mempool: string | null;
  mempool_sponsor: string | null;
}

/**
 * `$1` addresses (one request, or the requests of one turn of the event loop, see `NoncesLoader`): four index probes
 * each (migration 044), a row per address.
 */
const NONCES = statement(
  `SELECT p.address,
     (SELECT nonce FROM txs WHERE canonical AND sender_address = p.address ORDER BY nonce DESC LIMIT 1) AS executed,
     (SELECT sponsor_nonce FROM txs WHERE canonical AND sponsored AND sponsor_address = p.address
       ORDER BY sponsor_nonce DESC LIMIT 1) AS executed_sponsor,
     (SELECT nonce FROM mempool_txs WHERE status = 'pending' AND sender_address = p.address ORDER BY nonce DESC LIMIT 1) AS mempool,
     (SELECT sponsor_nonce FROM mempool_txs WHERE status = 'pending' AND sponsor_address IS NOT NULL
       AND sponsor_address = p.address ORDER BY sponsor_nonce DESC LIMIT 1) AS mempool_sponsor
   FROM unnest($1::text[]) AS p(address)`,
);

async function getNoncesOf(db: Knex, addresses: string[]): Promise<Map<string, DbAddressNonces>> {
  const rows = await query<DbAddressNonces & { address: string }>(db, NONCES, [addresses]);
  return new Map(rows.map(({ address, ...nonces }) => [address, nonces]));
}

const NO_NONCES: DbAddressNonces = { executed: null, executed_sponsor: null, mempool: null, mempool_sponsor: null };

/**
 * The nonce reads of one turn of the event loop, by one statement (`KeyedBatchLoader`): wallets ask for them before
 * every transaction they build.
 */
export class NoncesLoader {
  private readonly loader: KeyedBatchLoader<DbAddressNonces>;

  constructor(db: Knex) {
    this.loader = new KeyedBatchLoader((addresses) => getNoncesOf(db, addresses));
  }

  async load(address: string): Promise<DbAddressNonces> {
    return (await this.loader.load(address)) ?? NO_NONCES;
  }
}

/** `$1` address, `$2` lowest, `$3` highest: its pending nonces (origin or sponsor) in that range, highest first. */
const PENDING_IN_RANGE = statement(
  `SELECT nonce FROM mempool_txs WHERE status = 'pending' AND sender_address = $1 AND nonce BETWEEN $2 AND $3
   UNION
   SELECT sponsor_nonce FROM mempool_txs WHERE status = 'pending' AND sponsor_address IS NOT NULL AND sponsor_address = $1
     AND sponsor_nonce BETWEEN $2 AND $3
   ORDER BY 1 DESC`,
);

export async function getPendingNoncesBetween(db: Knex, address: string, low: bigint, high: bigint): Promise<bigint[]> {
  const rows = await query<{ nonce: string }>(db, PENDING_IN_RANGE, [address, low.toString(), high.toString()]);
  return rows.map((r) => BigInt(r.nonce));
}

/**
 * `$1` address, `$2` block height or null, `$3` block hash (block or index block hash) or null: the canonical block
 * (absent: null `height`) and the highest nonce the address used up to it, as origin or sponsor.
 */
const NONCE_AT_BLOCK = statement(
  `SELECT b.block_height AS height,
     (SELECT max(n) FROM (
        (SELECT nonce AS n FROM txs WHERE canonical AND sender_address = $1 AND block_height <= b.block_height
          ORDER BY nonce DESC LIMIT 1)
        UNION ALL
        (SELECT sponsor_nonce FROM txs WHERE canonical AND sponsored AND sponsor_address = $1
          AND block_height <= b.block_height ORDER BY sponsor_nonce DESC LIMIT 1)
      ) x) AS executed
   FROM (SELECT 1) one
   LEFT JOIN LATERAL (
     SELECT block_height FROM blocks
     WHERE canonical AND (block_height = $2::integer OR index_block_hash = $3::text OR block_hash = $3::text) LIMIT 1
   ) b ON true`,
);

export async function getNonceAtBlock(
  db: Knex,
  address: string,
  block: { height: number } | { hash: string },
): Promise<{ found: boolean; executed: string | null }> {
  const [row] = await query<{ height: number | null; executed: string | null }>(db, NONCE_AT_BLOCK, [
    address,
    'height' in block ? block.height : null,
    'hash' in block ? block.hash : null,
  ]);
  return { found: row?.height != null, executed: row?.executed ?? null };
}
