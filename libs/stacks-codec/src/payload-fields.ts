import type { TransactionPayload } from './decode-transaction';

/**
 * A decoded payload in the reference API's field names, as the indexer stores it (`txs.payload`, `mempool_txs.payload`)
 * and as the api reads it back: amounts as decimal strings, byte strings as `0x` hex, a contract call's arguments with
 * their hex, repr and type (their names come from the contract's ABI, which the payload does not carry: null).
 */
export function payloadFields(p: TransactionPayload): Record<string, unknown> {
  switch (p.typeId) {
    case 'token_transfer':
      return { recipient_address: p.recipient, amount: p.amount.toString(), memo: p.memoHex };
    case 'smart_contract':
      return { contract_id: p.contractId, source_code: p.sourceCode, clarity_version: p.clarityVersion };
    case 'contract_call':
      return {
        contract_id: p.contractId,
        function_name: p.functionName,
        function_args: p.functionArgs.map((a) => ({ hex: a.hex, repr: a.repr, name: null, type: a.typeSignature })),
      };
    case 'coinbase':
      return { data: p.payloadHex, alt_recipient: p.altRecipient, vrf_proof: p.vrfProofHex };
    case 'poison_microblock':
      return { microblock_header_1: p.microblockHeader1Hex, microblock_header_2: p.microblockHeader2Hex };
    case 'tenure_change':
      return {
        tenure_consensus_hash: p.tenureConsensusHash,
        prev_tenure_consensus_hash: p.prevTenureConsensusHash,
        burn_view_consensus_hash: p.burnViewConsensusHash,
        previous_tenure_end: p.previousTenureEnd,
        previous_tenure_blocks: p.previousTenureBlocks,
        cause: p.cause,
        pubkey_hash: p.pubkeyHash,
      };
  }
}

/** The contract a payload deploys or calls, else null. */
export function payloadContractId(p: TransactionPayload): string | null {
  return p.typeId === 'smart_contract' || p.typeId === 'contract_call' ? p.contractId : null;
}
