import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';

/**
 * What `/extended/v1/search/{id}` needs besides the chain's own lookups of a transaction and a block (read through the
 * chain family): a contract's deploy — its pending one first, else its canonical one, as the reference looks — and
 * whether a standard address has any activity. `$1` is the principal.
 */
const CONTRACT_DEPLOY = statement(
  `SELECT m.tx_id AS mempool_tx_id, m.type_id AS mempool_type_id,
          t.tx_id, t.type_id, t.block_hash, t.block_height, t.burn_block_time, t.canonical
   FROM (SELECT 1) one
   LEFT JOIN LATERAL (
     SELECT x.tx_id, x.type_id FROM mempool_txs x
     WHERE x.status = 'pending' AND x.contract_id = $1 AND x.type_id = 'smart_contract' LIMIT 1
   ) m ON true
   LEFT JOIN LATERAL (
     SELECT x.tx_id, x.type_id, x.block_hash, x.block_height, x.burn_block_time, x.canonical FROM txs x
     WHERE x.contract_id = $1 AND x.type_id = 'smart_contract' AND x.canonical ORDER BY x.block_height DESC LIMIT 1
   ) t ON true`,
);

interface DbContractDeploy {
  mempool_tx_id: string | null;
  mempool_type_id: string | null;
  tx_id: string | null;
  type_id: string | null;
  block_hash: string | null;
  block_height: number | null;
  burn_block_time: string | null;
  canonical: boolean | null;
}

export async function getContractDeploy(db: Knex, contractId: string): Promise<DbContractDeploy> {
  const [row] = await query<DbContractDeploy>(db, CONTRACT_DEPLOY, [contractId]);
  return row!;
}

/**
 * A standard address is known when a canonical transaction names it or moves its assets (its rows in
 * `principal_tx_counts`, migration 070) or when its STX balance ever changed (`stx_balance_changes`: miner rewards
 * too). Two index reads.
 */
const ADDRESS_KNOWN = statement(
  `SELECT EXISTS (SELECT 1 FROM principal_tx_counts c WHERE c.principal = $1 AND c.tx_count > 0)
       OR EXISTS (SELECT 1 FROM stx_balance_changes s WHERE s.principal = $1) AS known`,
);

export async function isAddressKnown(db: Knex, address: string): Promise<boolean> {
  const [row] = await query<{ known: boolean }>(db, ADDRESS_KNOWN, [address]);
  return row!.known;
}
