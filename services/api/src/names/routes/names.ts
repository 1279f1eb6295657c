import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { echo } from '../../params';
import { getNameState, getNameZonefileByHash, listNames } from '../datastore/bns-names';
import { getSubdomain, getSubdomainZonefileByHash, listSubdomains } from '../datastore/bns-subdomains';
import { knexNamesDb } from '../datastore/names-db';
import { BnsInputError, BnsNotFoundError } from './bns-errors';
import { parseName, parseNamesPage, parseZonefileHash } from './bns-params';

/**
 * `/v1/names…`: the list of names, zonefiles and a name's subdomains (`/v1/names/{name}` itself is in
 * `name-lookup-routes.ts`).
 */
export function namesRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();
  const names = knexNamesDb(db);

  router.get('/v1/names', async (req, res) => {
    const page = parseNamesPage(req.query);
    const names = await listNames(db, page.offset);
    if (names.length === 0 && page.explicit) throw new BnsInputError('Invalid page', 'query parameter page: past the last page');
    res.json(names);
  });

  router.get('/v1/names/:name/zonefile', async (req, res) => {
    const parsed = parseName(req.params.name);
    const missing = () => new BnsNotFoundError('No such name or zonefile does not exist', `no zonefile for ${echo(parsed.fqn)}`);
    if (parsed.subdomain !== null) {
      const row = await getSubdomain(names, parsed.fqn);
      if (!row) throw missing();
      res.json({ zonefile: row.zonefile });
      return;
    }
    const row = await getNameState(names, parsed.fqn);
    if (!row || row.zonefile === null || row.zonefile_hash === '') throw missing();
    res.json({ zonefile: row.zonefile });
  });

  router.get('/v1/names/:name/zonefile/:zonefile_hash', async (req, res) => {
    const parsed = parseName(req.params.name);
    const hash = parseZonefileHash(req.params.zonefile_hash);
    const missing = () => new BnsNotFoundError('No such name or zonefile', `no zonefile ${hash} for ${echo(parsed.fqn)}`);
    const zonefile =
      parsed.subdomain !== null
        ? await getSubdomainZonefileByHash(db, parsed.fqn, hash)
        : await getNameZonefileByHash(db, parsed.fqn, hash);
    if (zonefile === undefined) throw missing();
    res.json({ zonefile });
  });

  router.get('/v1/names/:name/subdomains', async (req, res) => {
    const parsed = parseName(req.params.name);
    if (parsed.subdomain !== null) {
      res.json([]);
      return;
    }
    res.json(await listSubdomains(db, parsed.fqn));
  });

  return router.routes;
}
