import { NAMES_OF_ADDRESS } from './datastore/bns-addresses';
import { NAME_STATE } from './datastore/bns-names';
import { SUBDOMAIN } from './datastore/bns-subdomains';

export { namesRouter } from './names-router';
export { nameLookupRoutes } from './routes/name-lookup-routes';
export { knexNamesDb, pooledNamesDb } from './datastore/names-db';

/** The statements of the hot lookups (`$1` the name, address or subdomain), for the benchmark's EXPLAIN. */
export const NAME_LOOKUP_STATEMENTS = { name: NAME_STATE.text, address: NAMES_OF_ADDRESS.text, subdomain: SUBDOMAIN.text };
