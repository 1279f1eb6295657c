import { type ClarityAbiFunction, type ClarityAbiType, abiFunctionToString, getTypeString } from '@stacks/transactions';
import type { DecodedClarityValue } from './clarity-value';

/**
 * A deployed contract's interface as the node reports it. The five lists are always present after normalization;
 * `epoch` and `clarity_version` appear for contracts deployed from Stacks 2.1 on. Entries are kept as the node sent
 * them (function arg/output types in the node's ABI type JSON).
 */
export interface ContractAbi {
  functions: ClarityAbiFunction[];
  variables: unknown[];
  maps: unknown[];
  fungible_tokens: unknown[];
  non_fungible_tokens: unknown[];
  epoch?: string;
  clarity_version?: string;
  [key: string]: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

/**
 * The ABI of a node transaction: newer nodes send `contract_interface`, older ones `contract_abi` (either may be
 * `null`, absent, or — defensively — a JSON string). Returns one normalized object, or `null` when there is none or
 * it is not an object.
 */
export function normalizeContractAbi(tx: { contract_interface?: unknown; contract_abi?: unknown }): ContractAbi | null {
  const raw = parseMaybeJson(tx.contract_interface ?? null) ?? parseMaybeJson(tx.contract_abi ?? null);
  if (!isRecord(raw)) return null;
  const list = (key: string): unknown[] => (Array.isArray(raw[key]) ? (raw[key] as unknown[]) : []);
  return {
    ...raw,
    functions: list('functions') as ClarityAbiFunction[],
    variables: list('variables'),
    maps: list('maps'),
    fungible_tokens: list('fungible_tokens'),
    non_fungible_tokens: list('non_fungible_tokens'),
  };
}

/** A contract-call argument as the reference API shows it: value plus the ABI's argument name and type. */
export interface NamedFunctionArg {
  hex: string;
  repr: string;
  /** The ABI's argument name, or `''` without an ABI. */
  name: string;
  /** The ABI's declared type (e.g. `(buff 32)`), or the value's own type signature without an ABI. */
  type: string;
}

function abiTypeString(type: ClarityAbiType): string | null {
  try {
    return getTypeString(type);
  } catch {
    return null;
  }
}

/**
 * Names and types contract-call arguments from the called contract's ABI (`null`/missing ABI or unknown function:
 * names are `''`, types are the values' own signatures, the signature is `''`).
 */
export function describeContractCall(
  functionName: string,
  functionArgs: readonly DecodedClarityValue[],
  abi: ContractAbi | null,
): { functionSignature: string; functionArgs: NamedFunctionArg[] } {
  const fn = abi?.functions.find((f) => isRecord(f) && f.name === functionName);
  let functionSignature = '';
  if (fn) {
    try {
      functionSignature = abiFunctionToString(fn);
    } catch {
      functionSignature = '';
    }
  }
  return {
    functionSignature,
    functionArgs: functionArgs.map((arg, i) => {
      const abiArg = fn && Array.isArray(fn.args) ? fn.args[i] : undefined;
      return {
        hex: arg.hex,
        repr: arg.repr,
        name: typeof abiArg?.name === 'string' ? abiArg.name : '',
        type: (abiArg && abiTypeString(abiArg.type)) ?? arg.typeSignature,
      };
    }),
  };
}
