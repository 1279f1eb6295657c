import type { Knex } from 'knex';

/** The ABI of each deployed contract a page of transactions calls, by contract id (as the node reported it). */
export type ContractAbis = ReadonlyMap<string, unknown>;

/**
 * ABIs of the contracts that the page's contract-call transactions call, from their canonical deploy transaction
 * (partial index `txs_contract_deploy`; one query per page, none when the page calls nothing). Contracts deployed before
 * the indexed history began (boot contracts of a chain not indexed from genesis) have none.
 */
export async function getContractAbis(
  db: Knex,
  rows: ReadonlyArray<{ type_id: string; payload: Record<string, unknown> }>,
): Promise<ContractAbis> {
  const ids = new Set<string>();
  for (const r of rows) {
    const id = r.payload['contract_id'];
    if (r.type_id === 'contract_call' && typeof id === 'string') ids.add(id);
  }
  if (ids.size === 0) return new Map();
  const found = (await db('txs')
    .distinctOn('contract_id')
    .select('contract_id', 'contract_abi')
    .whereIn('contract_id', [...ids])
    .andWhere({ type_id: 'smart_contract', canonical: true })
    .whereNotNull('contract_abi')
    .orderBy([{ column: 'contract_id' }, { column: 'block_height' }])) as Array<{ contract_id: string; contract_abi: unknown }>;
  return new Map(found.map((r) => [r.contract_id, r.contract_abi]));
}
