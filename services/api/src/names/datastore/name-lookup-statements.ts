import { NAMES_OF_ADDRESSES } from './bns-addresses';
import { NAME_STATES } from './bns-names';
import { SUBDOMAINS } from './bns-subdomains';

/**
 * The statements of the hot lookups, for the benchmark's EXPLAIN: `$1` is an array of names, addresses or subdomains
 * (one element for a lone request, more when requests share a statement, see `KeyedBatchLoader`).
 */
export const NAME_LOOKUP_STATEMENTS = { name: NAME_STATES.text, address: NAMES_OF_ADDRESSES.text, subdomain: SUBDOMAINS.text };
