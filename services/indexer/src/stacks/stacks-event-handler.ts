import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Envelope } from '@bda/bus';
import { applyAttachments } from './apply-attachments';
import { applyNewBlock, prepareNewBlock } from './apply-block';
import { DeferredReadModels } from './read-models';
import { applyBurnBlock } from './apply-burn-block';
import { applyDropMempoolTxs, applyNewMempoolTxs, prepareNewMempoolTxs } from './apply-mempool';
import { applyNewMicroblocks } from './apply-microblocks';
import { LiveAnnouncer } from './live-announcer';
import type { NodeAttachment, NodeBlock, NodeBurnBlock, NodeDropMempoolTx, NodeMicroblocks } from './node-payloads';
import { DEFAULT_PARKING_BOUNDS, type ParkingBounds } from './parked-blocks';

/**
 * Dispatches `stacks.node-events` envelopes by the observer path they came in on. The read models of
 * blocks that simply extend the tip are written once per batch (`flush`), not once per block. Blocks waiting for their
 * parent are parked within `parking` (ADR 0019).
 */
export function stacksEventHandler(logger: Logger, parking: ParkingBounds = DEFAULT_PARKING_BOUNDS) {
  const readModels = new DeferredReadModels();
  // Announces what each transaction made canonical (and the mempool's changes) as it commits (ADR 0025).
  const live = new LiveAnnouncer();
  const handle = async (trx: Knex.Transaction, env: Envelope): Promise<void> => {
    await live.note(trx, env);
    switch (env.path) {
      case '/new_block':
        await applyNewBlock(trx, env.body as NodeBlock, env.received_at, readModels, parking);
        return;
      case '/new_burn_block':
        await applyBurnBlock(trx, env.body as NodeBurnBlock);
        return;
      case '/new_mempool_tx':
        await applyNewMempoolTxs(trx, env.body as string[], env.received_at, logger);
        return;
      case '/drop_mempool_tx':
        await applyDropMempoolTxs(trx, env.body as NodeDropMempoolTx);
        return;
      case '/new_microblocks':
        await applyNewMicroblocks(trx, env.body as NodeMicroblocks);
        return;
      case '/attachments/new':
        await applyAttachments(trx, env.body as NodeAttachment[]);
        return;
      default:
        // Signer traffic and paths of newer nodes: kept on the bus, nothing to index.
        return;
    }
  };
  const prepare = (env: Envelope): void => {
    if (env.path === '/new_block' && typeof env.body === 'object' && env.body !== null) prepareNewBlock(env.body as NodeBlock);
    else if (env.path === '/new_mempool_tx' && Array.isArray(env.body))
      prepareNewMempoolTxs(env.body as string[], env.received_at);
  };
  return {
    handle,
    prepare,
    beforeCommit: async (trx: Knex.Transaction) => {
      await readModels.flush(trx);
      await live.flush(trx);
    },
    onBatchStart: () => {
      readModels.reset();
      live.reset();
    },
  };
}
