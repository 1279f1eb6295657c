import type { DbBnsSubdomain } from '@bda/db';
import { KeyedBatchLoader } from '../../datastore/keyed-batch-loader';
import type { GetRoute } from '../../plain-routes';
import { ownedNamesJson } from '../datastore/bns-addresses';
import { getNameStates, type DbBnsNameState } from '../datastore/bns-names';
import { getSubdomains } from '../datastore/bns-subdomains';
import type { NamesDb } from '../datastore/names-db';
import { toNameInfoResponse, toSubdomainInfoResponse } from '../mappers/name-info';
import { BnsNotFoundError } from './bns-errors';
import { parseBnsAddress, parseName } from './bns-params';

/**
 * The two lookups a wallet makes most, `/v1/names/{name}` (a name or a subdomain) and
 * `/v1/addresses/{blockchain}/{address}`, as routes: the api serves them on plain node:http (`plain-routes.ts`, as
 * the `/runes/v1` reads: express cost more CPU than their statements), `namesRouter` mounts the same handlers on
 * express. One statement each, shared by the lookups of the same kind that arrive in the same turn of the event loop
 * (`KeyedBatchLoader`).
 */
export function nameLookupRoutes(db: NamesDb): GetRoute[] {
  const names = new KeyedBatchLoader<DbBnsNameState>((fqns) => getNameStates(db, fqns));
  const subdomains = new KeyedBatchLoader<DbBnsSubdomain>((fqns) => getSubdomains(db, fqns));
  const owned = new KeyedBatchLoader<string>((addresses) => ownedNamesJson(db, addresses));
  return [
    {
      path: '/v1/names/:name',
      async handle(params) {
        const parsed = parseName(params.name!);
        if (parsed.subdomain !== null) {
          const row = await subdomains.load(parsed.fqn);
          if (!row) throw new BnsNotFoundError(`cannot find subdomain ${parsed.fqn}`);
          return JSON.stringify(toSubdomainInfoResponse(row));
        }
        const row = await names.load(parsed.fqn);
        if (!row) throw new BnsNotFoundError(`cannot find name ${parsed.fqn}`);
        return JSON.stringify(toNameInfoResponse(row));
      },
    },
    {
      path: '/v1/addresses/:blockchain/:address',
      async handle(params) {
        const address = parseBnsAddress(params.blockchain!, params.address!);
        // The names array is JSON written by PostgreSQL (see `NAMES_OF_ADDRESSES`): every address gets a row.
        return `{"names":${(await owned.load(address)) ?? '[]'}}`;
      },
    },
  ];
}
