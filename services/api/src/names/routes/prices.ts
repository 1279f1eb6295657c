import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import type { Knex } from 'knex';
import { echo } from '../../params';
import { getNamespace } from '../datastore/bns-namespaces';
import { namePrice, namespacePrice, toPriceResponse } from '../mappers/name-price';
import { BnsInputError } from './bns-errors';
import { isNamespaceId, MAX_NAME_LENGTH } from './bns-params';

const NAME_PART = /^[a-z0-9\-_]+$/;

/**
 * `/v2/prices/…`: what the BNS contract's `get-namespace-price` and `get-name-price` return, computed from the stored
 * price function (no node call).
 */
export function pricesRoutes(db: Knex): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/v2/prices/namespaces/:tld', (req, res) => {
    const tld = req.params.tld;
    if (!isNamespaceId(tld))
      throw new BnsInputError(
        'Invalid namespace',
        `path parameter tld: ${echo(tld)} is not a namespace (lower-case letters, digits, - and _, 1 to 20)`,
      );
    res.json(toPriceResponse(namespacePrice(tld)));
  });

  router.get('/v2/prices/names/:name', async (req, res) => {
    const raw = req.params.name;
    const parts = raw.split('.');
    const [name, namespace] = parts as [string, string | undefined];
    if (
      parts.length !== 2 ||
      namespace === undefined ||
      !NAME_PART.test(name) ||
      name.length > MAX_NAME_LENGTH ||
      !isNamespaceId(namespace)
    ) {
      throw new BnsInputError(
        'Invalid name',
        `path parameter name: ${echo(raw)} is not name.namespace (lower-case letters, digits, - and _)`,
      );
    }
    const ns = await getNamespace(db, namespace);
    if (!ns) throw new BnsInputError('No such namespace', `path parameter name: no namespace ${echo(namespace)}`);
    const amount = namePrice(name, ns);
    if (amount === null)
      throw new BnsInputError('Invalid name', `path parameter name: the contract's price function fails for ${echo(raw)}`);
    res.json(toPriceResponse(amount));
  });

  return router.routes;
}
