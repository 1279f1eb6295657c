import { isValidStacksAddress } from '@bda/stacks-codec';
import { echo, queryString } from '../../params';
import { BnsInputError } from './bns-errors';

/** Names in a page of `/v1/names` and `/v1/namespaces/{tld}/names`, as the reference API pages them. */
export const NAMES_PAGE_SIZE = 100;
/** Highest page number accepted: beyond it no list has names (and the offset stays an int4). */
const MAX_PAGE = 20_000_000;

const LABEL = /^[a-z0-9\-_]+$/;
/** The contract's limits: a name is a `(buff 48)`, a namespace a `(buff 20)`. */
export const MAX_NAME_LENGTH = 48;
const MAX_NAMESPACE_LENGTH = 20;
const MAX_SUBDOMAIN_LABEL_LENGTH = 37;

/** A name the contract could hold: its name and namespace parts, and the label when it is a subdomain. */
export interface ParsedName {
  fqn: string;
  name: string;
  namespace: string;
  /** `label.name.namespace`: the subdomain's label. */
  subdomain: string | null;
}

const isLabel = (s: string, max: number) => s.length > 0 && s.length <= max && LABEL.test(s);

/** `true` when `s` is a valid namespace id (lower-case letters, digits, `-` and `_`, 1–20 characters). */
export const isNamespaceId = (s: string): boolean => isLabel(s, MAX_NAMESPACE_LENGTH);

/**
 * `name.namespace` or `label.name.namespace`, as the contract's charset allows (lower-case letters, digits, `-`, `_`;
 * no empty part; at most 48 and 20 characters): anything else is a 400 `Invalid name or subdomain`.
 */
export function parseName(raw: string): ParsedName {
  const parts = raw.split('.');
  const bad = () =>
    new BnsInputError(
      'Invalid name or subdomain',
      `path parameter name: ${echo(raw)} is not name.namespace or label.name.namespace (lower-case letters, digits, - and _)`,
    );
  if (parts.length < 2 || parts.length > 3) throw bad();
  const [first, second, third] = parts as [string, string, string | undefined];
  if (third === undefined) {
    if (!isLabel(first, MAX_NAME_LENGTH) || !isNamespaceId(second)) throw bad();
    return { fqn: raw, name: first, namespace: second, subdomain: null };
  }
  if (!isLabel(first, MAX_SUBDOMAIN_LABEL_LENGTH) || !isLabel(second, MAX_NAME_LENGTH) || !isNamespaceId(third)) throw bad();
  return { fqn: raw, name: second, namespace: third, subdomain: first };
}

/**
 * `?page=N` (from 0): absent is page 0; not a number in range is a 400 `Invalid page`, as a page past the end is.
 * Returns the offset and whether the page was asked for (a page past the end is then an error, not an empty list).
 */
export function parseNamesPage(query: Record<string, unknown>): { offset: number; explicit: boolean } {
  const raw = queryString(query, 'page');
  if (raw === undefined) return { offset: 0, explicit: false };
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) > MAX_PAGE) {
    throw new BnsInputError('Invalid page', `query parameter page: ${echo(raw)} is not a page number (0 or more)`);
  }
  return { offset: Number(raw) * NAMES_PAGE_SIZE, explicit: true };
}

/** A zonefile hash in a path: 40 hex digits (hash160), with or without `0x`; anything else is a 400. */
export function parseZonefileHash(raw: string): string {
  const hex = raw.replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(hex)) {
    throw new BnsInputError('Invalid zonefile hash', `path parameter zonefile_hash: ${echo(raw)} is not 40 hex digits`);
  }
  return hex;
}

/** The blockchain of `/v1/addresses/{blockchain}/{address}`: only `stacks`, with a valid Stacks address. */
export function parseBnsAddress(blockchain: string, address: string): string {
  if (blockchain !== 'stacks') {
    throw new BnsInputError(
      'Unsupported blockchain',
      `path parameter blockchain: ${echo(blockchain)} is not supported (only stacks)`,
    );
  }
  if (!isValidStacksAddress(address))
    throw new BnsInputError('Invalid address', `path parameter address: ${echo(address)} is not a Stacks address`);
  return address;
}
