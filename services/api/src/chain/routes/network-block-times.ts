import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { InputError } from '@bda/common';
import { echo } from '../../params';

/**
 * Target block times in seconds, as the reference API states them: mainnet follows Bitcoin's ten minutes, testnet the
 * two minutes of its regtest controller. Fixed values, no read.
 */
const TARGET_BLOCK_TIMES = { mainnet: 600, testnet: 120 } as const;

/** `/extended/v1/info/network_block_times` and `/network_block_time/{network}`. */
export function networkBlockTimesRoutes(): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/info/network_block_times', (_req, res) => {
    res.json({
      testnet: { target_block_time: TARGET_BLOCK_TIMES.testnet },
      mainnet: { target_block_time: TARGET_BLOCK_TIMES.mainnet },
    });
  });

  router.get('/extended/v1/info/network_block_time/:network', (req, res) => {
    const network = req.params.network;
    if (network !== 'mainnet' && network !== 'testnet') {
      throw new InputError(`network: must be mainnet or testnet, got ${echo(network)}`);
    }
    res.json({ target_block_time: TARGET_BLOCK_TIMES[network] });
  });

  return router.routes;
}
