import type { FunctionArgJson } from './mined-tx-json';

type AbiType = string | { [kind: string]: unknown };

/**
 * A Clarity type of a contract ABI (`"uint128"`, `{"buffer": {"length": 32}}`, `{"tuple": […]}`, …) written the way
 * Clarity source writes it (`uint`, `(buff 32)`, `(tuple (a uint) …)`), as the reference API shows argument types.
 */
export function abiTypeString(type: unknown): string {
  if (typeof type === 'string') {
    if (type === 'uint128') return 'uint';
    if (type === 'int128') return 'int';
    return type; // bool, principal, trait_reference, none
  }
  if (typeof type !== 'object' || type === null) return '';
  const [kind, inner] = Object.entries(type as Exclude<AbiType, string>)[0] ?? [];
  const obj = (inner ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'buffer':
      return `(buff ${String(obj['length'])})`;
    case 'string-ascii':
    case 'string-utf8':
      return `(${kind} ${String(obj['length'])})`;
    case 'optional':
      return `(optional ${abiTypeString(inner)})`;
    case 'response':
      return `(response ${abiTypeString(obj['ok'])} ${abiTypeString(obj['error'])})`;
    case 'list':
      return `(list ${String(obj['length'])} ${abiTypeString(obj['type'])})`;
    case 'tuple': {
      const fields = Array.isArray(inner) ? (inner as Array<{ name?: unknown; type?: unknown }>) : [];
      return `(tuple ${fields.map((f) => `(${String(f.name)} ${abiTypeString(f.type)})`).join(' ')})`;
    }
    default:
      return '';
  }
}

/**
 * The call's arguments named and typed from the called function's ABI, when there is an ABI and it describes the call
 * (same function, same number of arguments); `null` otherwise, and the arguments stay as stored (names `''`, types
 * from the values).
 */
export function namedFromAbi(args: FunctionArgJson[], functionName: string, abi: unknown): FunctionArgJson[] | null {
  const functions = (abi as { functions?: unknown } | null)?.functions;
  if (!Array.isArray(functions)) return null;
  const fn = (functions as Array<{ name?: unknown; args?: unknown }>).find((f) => f.name === functionName);
  const params = Array.isArray(fn?.args) ? (fn.args as Array<{ name?: unknown; type?: unknown }>) : null;
  if (!params || params.length !== args.length) return null;
  return args.map((a, i) => ({
    ...a,
    name: typeof params[i]!.name === 'string' ? (params[i]!.name as string) : a.name,
    type: abiTypeString(params[i]!.type) || a.type,
  }));
}

/**
 * `c.called`: the contract a row of `alias` calls (null for other kinds), as a LATERAL to put after the row's FROM,
 * for the kept texts' statements that join a call's ABI (`FIRST_CALL_ABI_JOIN_SQL`).
 */
export function calledContractSql(alias: string): string {
  return `CROSS JOIN LATERAL (
        SELECT CASE WHEN ${alias}.type_id = 'contract_call' AND jsonb_typeof(${alias}.payload->'contract_id') = 'string'
                    THEN ${alias}.payload->>'contract_id' END AS called
      ) c`;
}

/**
 * The ABI (`abi.contract_id`, `abi.contract_abi`) of `r.first_call`, the first row calling each contract, from the
 * contract's first canonical deploy, as the api's statements join it.
 */
export const FIRST_CALL_ABI_JOIN_SQL = `LEFT JOIN LATERAL (
      SELECT d.contract_id, d.contract_abi FROM txs d
      WHERE r.first_call IS NOT NULL AND d.contract_id = r.first_call AND d.type_id = 'smart_contract' AND d.canonical
        AND d.contract_abi IS NOT NULL
      ORDER BY d.block_height LIMIT 1
    ) abi ON true`;
