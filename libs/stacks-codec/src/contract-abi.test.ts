import { describe, expect, it } from '@jest/globals';
import { type ContractAbi, describeContractCall, normalizeContractAbi } from './contract-abi';
import { decodeClarityValue } from './clarity-value';
import { decodeTransaction } from './decode-transaction';
import { fixtureTransactions } from './read-node-events.test-helper';

/** contractId → ABI for every deployment in the fixtures that carries one. */
function fixtureAbis(): Map<string, ContractAbi> {
  const abis = new Map<string, ContractAbi>();
  for (const { tx } of fixtureTransactions()) {
    if (tx.raw_tx === '0x00' || !('contract_abi' in tx || 'contract_interface' in tx)) continue;
    const abi = normalizeContractAbi(tx as { contract_abi?: unknown; contract_interface?: unknown });
    const d = decodeTransaction(tx.raw_tx);
    if (abi && d.payload.typeId === 'smart_contract') abis.set(d.payload.contractId, abi);
  }
  return abis;
}

describe('normalizeContractAbi', () => {
  const abi = { functions: [{ name: 'f', access: 'public', args: [], outputs: { type: 'bool' } }], maps: [] };

  it('reads contract_interface, then contract_abi, and fills the missing lists', () => {
    const expected = { ...abi, variables: [], fungible_tokens: [], non_fungible_tokens: [] };
    expect(normalizeContractAbi({ contract_interface: abi })).toEqual(expected);
    expect(normalizeContractAbi({ contract_abi: abi })).toEqual(expected);
    expect(normalizeContractAbi({ contract_interface: null, contract_abi: abi })).toEqual(expected);
    expect(normalizeContractAbi({ contract_abi: JSON.stringify(abi) })).toEqual(expected);
  });

  it('returns null when there is no ABI', () => {
    expect(normalizeContractAbi({})).toBeNull();
    expect(normalizeContractAbi({ contract_abi: null })).toBeNull();
    expect(normalizeContractAbi({ contract_interface: 'not json' })).toBeNull();
    expect(normalizeContractAbi({ contract_abi: [1, 2] })).toBeNull();
  });

  it('normalizes every ABI in the fixtures, keeping epoch and clarity_version', () => {
    const abis = fixtureAbis();
    expect(abis.size).toBeGreaterThan(5);
    for (const abi of abis.values()) {
      for (const key of ['functions', 'variables', 'maps', 'fungible_tokens', 'non_fungible_tokens']) {
        expect(Array.isArray(abi[key])).toBe(true);
      }
    }
    expect(abis.get('ST000000000000000000002AMW42H.pox-4')).toMatchObject({ clarity_version: 'Clarity2' });
  });
});

describe('describeContractCall', () => {
  it('names and types the arguments of fixture calls from the callee ABI', () => {
    const abis = fixtureAbis();
    let described = 0;
    for (const { tx } of fixtureTransactions()) {
      if (tx.raw_tx === '0x00') continue;
      const p = decodeTransaction(tx.raw_tx).payload;
      if (p.typeId !== 'contract_call' || !abis.has(p.contractId)) continue;
      const abi = abis.get(p.contractId)!;
      const fn = abi.functions.find((f) => f.name === p.functionName)!;
      const out = describeContractCall(p.functionName, p.functionArgs, abi);
      expect(out.functionArgs.map((a) => a.name)).toEqual(fn.args.map((a) => a.name));
      expect(out.functionSignature).toMatch(new RegExp(`^\\(define-(public|read-only|private) \\(${p.functionName}`));
      described++;
    }
    expect(described).toBeGreaterThan(0);
  });

  it('gives pox-4 stack-stx its declared names and types', () => {
    const abi = fixtureAbis().get('ST000000000000000000002AMW42H.pox-4')!;
    const tx = fixtureTransactions().find(
      (t) => t.tx.txid === '0xcd11b52349955422f0c875a95f2ac2651394b3ddc1b084acb4657375e3870103',
    )!;
    const p = decodeTransaction(tx.tx.raw_tx).payload;
    if (p.typeId !== 'contract_call') throw new Error('expected a contract call');
    const out = describeContractCall(p.functionName, p.functionArgs, abi);
    expect(out.functionArgs.map((a) => [a.name, a.type])).toEqual([
      ['amount-ustx', 'uint'],
      ['pox-addr', '(tuple (hashbytes (buff 32)) (version (buff 1)))'],
      ['start-burn-ht', 'uint'],
      ['lock-period', 'uint'],
      ['signer-sig', '(optional (buff 65))'],
      ['signer-key', '(buff 33)'],
      ['max-amount', 'uint'],
      ['auth-id', 'uint'],
    ]);
    expect(out.functionArgs[0]).toMatchObject({ repr: 'u686251350000000000' });
  });

  it('falls back to the values without an ABI or function', () => {
    const args = [decodeClarityValue('0x0100000000000000000000000000000005')];
    const expected = {
      functionSignature: '',
      functionArgs: [{ hex: args[0]!.hex, repr: 'u5', name: '', type: 'uint' }],
    };
    expect(describeContractCall('f', args, null)).toEqual(expected);
    expect(describeContractCall('missing', args, normalizeContractAbi({ contract_abi: { functions: [] } }))).toEqual(expected);
  });
});
