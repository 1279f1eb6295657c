import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { RosettaError } from '../mappers/rosetta-errors';
import { loadGenesisBalances } from '../datastore/rosetta-genesis-balances';
import { getRosettaChainState } from '../datastore/rosetta-network';

/** The api's Rosetta settings (`ROSETTA_*` of `env.ts`). */
export interface RosettaOptions {
  /** Serve only the construction endpoints that need neither database nor node. */
  offline: boolean;
  /** `auto`: from the indexed chain. */
  network: 'auto' | 'mainnet' | 'testnet';
  /** Stacks node RPC base URLs for `/construction/metadata` and `/construction/submit`, tried in order. */
  nodeRpcUrls: string[];
  nodeTimeoutMs: number;
  /** Genesis allocations no node event records (`datastore/rosetta-genesis-balances.ts`). */
  genesisBalancesFile?: string;
}

export const DEFAULT_ROSETTA_OPTIONS: RosettaOptions = { offline: false, network: 'auto', nodeRpcUrls: [], nodeTimeoutMs: 5_000 };

export interface RosettaContext {
  db: Knex;
  logger: Logger;
  options: RosettaOptions;
  /** `mainnet` or `testnet`: configured, or read once from the chain (throws `notReady` while nothing is indexed). */
  network(): Promise<'mainnet' | 'testnet'>;
  /** Genesis allocations by address (empty without a file). */
  genesisBalances: ReadonlyMap<string, bigint>;
  /** Throws the catalogued `offline` error in offline mode (every endpoint that reads the database or a node). */
  requireOnline(): void;
}

export function createRosettaContext(db: Knex, logger: Logger, options: RosettaOptions): RosettaContext {
  let known: 'mainnet' | 'testnet' | null = options.network === 'auto' ? null : options.network;
  return {
    db,
    genesisBalances: options.genesisBalancesFile ? loadGenesisBalances(options.genesisBalancesFile) : new Map(),
    logger,
    options,
    async network() {
      if (known) return known;
      if (options.offline) throw new RosettaError('offline');
      const state = await getRosettaChainState(db);
      if (state.tx_version === null) throw new RosettaError('notReady');
      // The version byte of a transaction: 0x00 mainnet, 0x80 testnet (chain ids 0x00000001 and 0x80000000).
      known = state.tx_version === 0 ? 'mainnet' : 'testnet';
      return known;
    },
    requireOnline() {
      if (options.offline) throw new RosettaError('offline');
    },
  };
}
