import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { listNamespaceNames, listNamespaces } from '../datastore/bns-namespaces';
import { echo } from '../../params';
import { BnsInputError } from './bns-errors';
import { isNamespaceId, parseNamesPage } from './bns-params';

/** `/v1/namespaces` and a namespace's names. */
export function namespacesRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/v1/namespaces', async (_req, res) => {
    res.json({ namespaces: await listNamespaces(db) });
  });

  router.get('/v1/namespaces/:tld/names', async (req, res) => {
    const tld = req.params.tld;
    const page = parseNamesPage(req.query);
    if (!isNamespaceId(tld))
      throw new BnsInputError(
        'No such namespace',
        `path parameter tld: ${echo(tld)} is not a namespace (lower-case letters, digits, - and _, 1 to 20)`,
      );
    const { known, names } = await listNamespaceNames(db, tld, page.offset);
    if (!known) throw new BnsInputError('No such namespace', `path parameter tld: no namespace ${echo(tld)}`);
    if (names.length === 0 && page.explicit) throw new BnsInputError('Invalid page', 'query parameter page: past the last page');
    res.json(names);
  });

  return router.routes;
}
