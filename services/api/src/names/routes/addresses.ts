import express, { type Router } from 'express';
import type { Knex } from 'knex';
import { namesOwnedBy } from '../datastore/bns-addresses';
import { parseBnsAddress } from './bns-params';

/** `/v1/addresses/{blockchain}/{address}`: the names and subdomains an address holds. */
export function addressesRoutes(db: Knex): Router {
  const router = express.Router();
  router.get('/v1/addresses/:blockchain/:address', async (req, res) => {
    const address = parseBnsAddress(req.params.blockchain, req.params.address);
    res.json({ names: await namesOwnedBy(db, address) });
  });
  return router;
}
