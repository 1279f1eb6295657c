import { describe, expect, it } from '@jest/globals';
import { payloadContractId, payloadFields } from './payload-fields';

describe('payloadFields', () => {
  it('writes a token transfer with its amount as a decimal string (u128, no rounding)', () => {
    const p = {
      typeId: 'token_transfer' as const,
      recipient: 'SP000000000000000000002Q6VF78',
      amount: 340282366920938463463374607431768211455n,
      memoHex: '0x68690000',
    };
    expect(payloadFields(p)).toEqual({
      recipient_address: 'SP000000000000000000002Q6VF78',
      amount: '340282366920938463463374607431768211455',
      memo: '0x68690000',
    });
    expect(payloadContractId(p)).toBeNull();
  });

  it('writes a contract call with unnamed arguments and names its contract', () => {
    const p = {
      typeId: 'contract_call' as const,
      contractId: 'SP000000000000000000002Q6VF78.bns',
      contractAddress: 'SP000000000000000000002Q6VF78',
      contractName: 'bns',
      functionName: 'name-register',
      functionArgs: [{ hex: '0x0100000000000000000000000000000001', repr: 'u1', typeSignature: 'uint' }],
    };
    expect(payloadFields(p as never)).toEqual({
      contract_id: 'SP000000000000000000002Q6VF78.bns',
      function_name: 'name-register',
      function_args: [{ hex: '0x0100000000000000000000000000000001', repr: 'u1', name: null, type: 'uint' }],
    });
    expect(payloadContractId(p as never)).toBe('SP000000000000000000002Q6VF78.bns');
  });
});
