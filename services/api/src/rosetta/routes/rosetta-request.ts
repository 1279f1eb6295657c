import { isValidPrincipal, type StacksNetworkName } from '@bda/stacks-codec';
import { RosettaError } from '../mappers/rosetta-errors';
import { ROSETTA_BLOCKCHAIN, STX } from '../mappers/rosetta-types';
import type { RosettaBlockLookup } from '../datastore/rosetta-block';
import type { RosettaContext } from './rosetta-context';

/**
 * Reading Rosetta request bodies: each helper returns the typed field or throws a catalogued error naming the field
 * in `details`. Nothing here trusts the body's shape.
 */
export type Body = Record<string, unknown>;

export function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The request body, which must be a JSON object. */
export function bodyOf(raw: unknown): Body {
  if (!isObject(raw)) throw new RosettaError('malformedRequest', { reason: 'the body must be a JSON object' });
  return raw;
}

export function invalid(field: string, reason: string): RosettaError {
  return new RosettaError('invalidRequest', { field, reason });
}

export function requireObject(body: Body, field: string): Body {
  const v = body[field];
  if (!isObject(v)) throw invalid(field, 'must be an object');
  return v;
}

export function optionalObject(body: Body, field: string): Body | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid(field, 'must be an object');
  return v;
}

function requireString(body: Body, field: string, path = field): string {
  const v = body[field];
  if (typeof v !== 'string' || v.length === 0) throw invalid(path, 'must be a non-empty string');
  return v;
}

export function requireArray(body: Body, field: string): unknown[] {
  const v = body[field];
  if (!Array.isArray(v)) throw invalid(field, 'must be an array');
  return v;
}

/** Checks `network_identifier` against the network this server serves; returns it. */
export async function checkNetwork(ctx: RosettaContext, body: Body): Promise<'mainnet' | 'testnet'> {
  const id = body['network_identifier'];
  if (id === undefined || id === null) throw new RosettaError('networkMissing');
  if (!isObject(id)) throw invalid('network_identifier', 'must be an object');
  const blockchain = requireString(id, 'blockchain', 'network_identifier.blockchain');
  const network = requireString(id, 'network', 'network_identifier.network');
  if (blockchain !== ROSETTA_BLOCKCHAIN) throw new RosettaError('blockchainMismatch', { blockchain });
  if (id['sub_network_identifier'] !== undefined) throw new RosettaError('subNetworkUnsupported');
  const served = await ctx.network();
  if (network !== served) throw new RosettaError('networkMismatch', { network, served });
  return served;
}

const HASH_RE = /^0x[0-9a-f]{64}$/;

/** A 32-byte hash as the api stores it (lower-case 0x hex); `0x` may be omitted, case is ignored. */
export function parseHash(v: unknown, field: string, kind: 'invalidBlockHash' | 'invalidTransactionHash'): string {
  if (typeof v !== 'string') throw invalid(field, 'must be a string');
  const h = (v.startsWith('0x') || v.startsWith('0X') ? `0x${v.slice(2)}` : `0x${v}`).toLowerCase();
  if (!HASH_RE.test(h)) throw new RosettaError(kind, { [field]: v });
  return h;
}

function parseIndex(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > 2_147_483_647) {
    throw invalid(field, 'must be a non-negative integer');
  }
  return v;
}

/** A (partial) block identifier: by hash (with an index that must agree), by index, or neither (the tip). */
export function blockLookupOf(id: Body | undefined, field: string): { lookup: RosettaBlockLookup; index?: number } {
  if (!id) return { lookup: { tip: true } };
  const index = id['index'] === undefined || id['index'] === null ? undefined : parseIndex(id['index'], `${field}.index`);
  const hash =
    id['hash'] === undefined || id['hash'] === null ? undefined : parseHash(id['hash'], `${field}.hash`, 'invalidBlockHash');
  if (hash !== undefined) return { lookup: { hash }, index };
  if (index !== undefined) return { lookup: { height: index }, index };
  return { lookup: { tip: true } };
}

/** `currencies`, when given, may name STX only. */
export function checkCurrencies(body: Body): void {
  const list = body['currencies'];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw invalid('currencies', 'must be an array');
  for (const c of list) {
    if (!isObject(c) || c['symbol'] !== STX.symbol || c['decimals'] !== STX.decimals) {
      throw new RosettaError('invalidCurrency', { currency: c as unknown });
    }
  }
}

/** A Stacks principal of `network`: a c32check standard address, optionally `.contract-name`. */
export function parsePrincipal(v: unknown, field: string, network: StacksNetworkName): string {
  if (!isValidPrincipal(v, network)) throw new RosettaError('invalidAccount', { [field]: v ?? null, network });
  return v;
}
