import type { DbSmartContract } from '../datastore/contracts';

/** `/extended/v1/contract/{contract_id}` and the items of `/by_trait`: the ABI as a JSON string, as the reference API. */
export interface SmartContractResponse {
  tx_id: string;
  canonical: boolean;
  contract_id: string;
  block_height: number;
  clarity_version: number | null;
  source_code: string;
  abi: string | null;
}

export function toSmartContractResponse(row: DbSmartContract): SmartContractResponse {
  const version = row.payload['clarity_version'];
  const source = row.payload['source_code'];
  return {
    tx_id: row.tx_id,
    canonical: true,
    contract_id: row.contract_id,
    block_height: row.block_height,
    clarity_version: typeof version === 'number' ? version : null,
    source_code: typeof source === 'string' ? source : '',
    abi: row.contract_abi === null || row.contract_abi === undefined ? null : JSON.stringify(row.contract_abi),
  };
}
