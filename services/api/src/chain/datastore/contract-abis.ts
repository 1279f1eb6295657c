/** The ABI of each deployed contract a page of transactions calls, by contract id (as the node reported it). */
export type ContractAbis = ReadonlyMap<string, unknown>;

/**
 * SQL: the contract a transaction row (`alias`, with `type_id` and `payload`) calls — its payload's `contract_id`
 * when it is a contract call naming one as a string — else null.
 */
export function calledContract(alias: string): string {
  return `CASE WHEN ${alias}.type_id = 'contract_call' AND jsonb_typeof(${alias}.payload->'contract_id') = 'string'
            THEN ${alias}.payload->>'contract_id' END`;
}

/**
 * SQL over a page's rows (`alias`, with a `called` column from `calledContract` and the page's `pos`): the called
 * contract on the first row of the page that calls it, null on the others. A statement looks up each contract's ABI
 * (`deployAbi`) on that row only, not once per call: an ABI can be tens of kilobytes, and a page of calls to one
 * contract would carry and parse it on every row.
 */
export function firstCallOf(alias: string): string {
  return `CASE WHEN row_number() OVER (PARTITION BY ${alias}.called ORDER BY ${alias}.pos) = 1 THEN ${alias}.called END`;
}

/**
 * SQL: joins `abi` (`contract_id`, `contract_abi`) to each row: the ABI of contract `contract` (an SQL expression,
 * no row when null) from its canonical deploy transaction (partial index `txs_contract_deploy`), the first deploy
 * if there were several. Contracts deployed before the indexed history began (boot contracts of a chain not indexed
 * from genesis) have none. `contract IS NOT NULL` is a one-time filter: a row calling no contract (or not the first row
 * calling its contract) reads nothing (under a generic plan, the lookup otherwise ran for each row of the page).
 */
export function deployAbi(contract: string): string {
  return `LEFT JOIN LATERAL (
     SELECT d.contract_id, d.contract_abi FROM txs d
     WHERE ${contract} IS NOT NULL AND d.contract_id = ${contract} AND d.type_id = 'smart_contract' AND d.canonical AND d.contract_abi IS NOT NULL
     ORDER BY d.block_height LIMIT 1
   ) abi ON true`;
}

/** The columns of `deployAbi` a statement selects (read back by `abisOf`). */
export const ABI_SELECT = 'abi.contract_id AS abi_contract_id, abi.contract_abi';

/** The ABIs a statement's rows carry (`ABI_SELECT`), by contract id. */
export function abisOf(rows: ReadonlyArray<{ abi_contract_id: string | null; contract_abi: unknown }>): ContractAbis {
  const abis = new Map<string, unknown>();
  for (const r of rows) if (r.abi_contract_id !== null) abis.set(r.abi_contract_id, r.contract_abi);
  return abis;
}
