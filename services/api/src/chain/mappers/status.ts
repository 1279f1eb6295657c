import type { DbChainTip } from '@bda/db';
import type { PoxUnlockHeights } from '../../datastore/chain-tip';
import type { ChainTipResponse, ServerStatusResponse } from '../../api-types';

/** `GET /extended`: the tip, and the PoX unlock heights the node sent with the tip block (null without them). */
export function toServerStatusResponse(
  serverVersion: string,
  tip: DbChainTip | null,
  unlock: PoxUnlockHeights | null = null,
): ServerStatusResponse {
  return {
    server_version: serverVersion,
    status: 'ready',
    pox_v1_unlock_height: unlock?.pox_v1_unlock_height ?? null,
    pox_v2_unlock_height: unlock?.pox_v2_unlock_height ?? null,
    pox_v3_unlock_height: unlock?.pox_v3_unlock_height ?? null,
    chain_tip: tip ? toChainTipResponse(tip) : null,
  };
}

function toChainTipResponse(tip: DbChainTip): ChainTipResponse {
  const out: ChainTipResponse = {
    block_height: tip.block_height,
    block_hash: tip.block_hash,
    index_block_hash: tip.index_block_hash,
    burn_block_height: tip.burn_block_height,
  };
  // The reference leaves the microblock fields out when there is no microblock on the tip.
  if (tip.microblock_hash) {
    out.microblock_hash = tip.microblock_hash;
    out.microblock_sequence = tip.microblock_sequence ?? 0;
  }
  return out;
}
