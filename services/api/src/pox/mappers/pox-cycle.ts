import type { DbPoxCycle, DbPoxCycleSigner, DbPoxCycleStacker } from '../datastore/pox-cycles';

/** A reward cycle (`/extended/v2/pox/cycles`…). */
interface PoxCycleResponse {
  block_height: number;
  index_block_hash: string;
  cycle_number: number;
  total_weight: number;
  total_stacked_amount: string;
  total_signers: number;
}

/** A signer of a cycle. */
interface PoxSignerResponse {
  signing_key: string;
  signer_address: string;
  weight: number;
  stacked_amount: string;
  weight_percent: number;
  stacked_amount_percent: number;
  solo_stacker_count: number;
  pooled_stacker_count: number;
}

/** A stacker behind a signer in a cycle. */
interface PoxStackerResponse {
  stacker_address: string;
  stacked_amount: string;
  pox_address: string | null;
  stacker_type: 'solo' | 'pooled';
}

export function toPoxCycleResponse(row: DbPoxCycle): PoxCycleResponse {
  return {
    block_height: row.block_height,
    index_block_hash: row.index_block_hash,
    cycle_number: row.cycle_number,
    total_weight: row.total_weight,
    total_stacked_amount: row.total_stacked_amount,
    total_signers: row.total_signers,
  };
}

export function toPoxSignerResponse(row: DbPoxCycleSigner): PoxSignerResponse {
  return {
    signing_key: row.signing_key,
    signer_address: row.signer_address,
    weight: row.weight,
    stacked_amount: row.stacked_amount,
    weight_percent: row.weight_percent,
    stacked_amount_percent: row.stacked_amount_percent,
    solo_stacker_count: row.solo_stacker_count,
    pooled_stacker_count: row.pooled_stacker_count,
  };
}

export function toPoxStackerResponse(row: DbPoxCycleStacker): PoxStackerResponse {
  return {
    stacker_address: row.stacker,
    stacked_amount: row.locked,
    pox_address: row.pox_addr,
    stacker_type: row.stacker_type,
  };
}
