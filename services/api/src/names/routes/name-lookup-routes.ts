import type { GetRoute } from '../../plain-routes';
import { namesOwnedBy } from '../datastore/bns-addresses';
import { getNameState } from '../datastore/bns-names';
import { getSubdomain } from '../datastore/bns-subdomains';
import type { NamesDb } from '../datastore/names-db';
import { toNameInfoResponse, toSubdomainInfoResponse } from '../mappers/name-info';
import { BnsNotFoundError } from './bns-errors';
import { parseBnsAddress, parseName } from './bns-params';

/**
 * The two lookups a wallet makes most, `/v1/names/{name}` (a name or a subdomain) and
 * `/v1/addresses/{blockchain}/{address}`, as routes: the api serves them on plain node:http (`plain-routes.ts`, as
 * the `/runes/v1` reads: express cost more CPU than their statements), `namesRouter` mounts the same handlers on
 * express. One statement each.
 */
export function nameLookupRoutes(db: NamesDb): GetRoute[] {
  return [
    {
      path: '/v1/names/:name',
      async handle(params) {
        const parsed = parseName(params.name!);
        if (parsed.subdomain !== null) {
          const row = await getSubdomain(db, parsed.fqn);
          if (!row) throw new BnsNotFoundError(`cannot find subdomain ${parsed.fqn}`);
          return JSON.stringify(toSubdomainInfoResponse(row));
        }
        const row = await getNameState(db, parsed.fqn);
        if (!row) throw new BnsNotFoundError(`cannot find name ${parsed.fqn}`);
        return JSON.stringify(toNameInfoResponse(row));
      },
    },
    {
      path: '/v1/addresses/:blockchain/:address',
      async handle(params) {
        const address = parseBnsAddress(params.blockchain!, params.address!);
        return JSON.stringify({ names: await namesOwnedBy(db, address) });
      },
    },
  ];
}
