import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { envBoolean, envList, envPort, parseEnv } from '@bda/common';
import type { RosettaOptions } from './rosetta';

const pageLimit = (fallback: number) => z.coerce.number().int().min(1).max(10_000).default(fallback);

export const apiEnvSchema = z
  .object({
    /** Port the HTTP API listens on (the gateway forwards `/extended/…` and friends here). */
    API_PORT: envPort.default(3001),
    /**
     * Interface to bind. Loopback by default: the api answers without a key, so only the gateway (on this machine, or
     * on an internal network: `0.0.0.0` in a container that nothing public reaches) may talk to it.
     */
    API_HOST: z.string().min(1).default('127.0.0.1'),
    /** PostgreSQL the indexer writes (or a read replica of it). The api only reads; it never migrates. */
    DATABASE_URL: z.string().default('postgres://postgres:postgres@127.0.0.1:5432/postgres'),
    /**
     * Serving processes (node:cluster workers behind one port; 1 = a single process, no cluster). Default: one per
     * CPU. Each worker has its own pools, so the api opens up to 3 × API_DB_POOL × API_WORKERS connections.
     */
    API_WORKERS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
    /** Connection pool size per api process (worker), for each of its three pools (knex; the `/runes/v1` reads; the naming lookups). */
    API_DB_POOL: z.coerce.number().int().min(1).max(500).default(10),
    /** Per-statement timeout in ms; a slow query becomes a 500 instead of holding a connection forever. */
    API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    /**
     * Identical GET requests (same target, same `If-None-Match` and `Cache-Control`) read in the same turn of the event
     * loop share one answer (`same-turn-answers.ts`, ADR 0033). `false` computes each on its own (benchmarks measure the
     * cost of an answer with it).
     */
    API_SHARE_ANSWERS: envBoolean.default(true),
    /** Directory with `openapi.json` and `components/` (default: the repository's `schemas/`); set it in images. */
    API_SCHEMAS_DIR: z.string().min(1).optional(),
    /** pino log level. */
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Default page size of transaction lists (address history, mempool). The reference API uses 20. */
    API_TX_LIMIT_DEFAULT: pageLimit(20),
    /** Largest page of transaction lists; larger `limit` → 400. The reference API uses 50. */
    API_TX_LIMIT_MAX: pageLimit(50),
    /** Default page size of `/extended/v2/blocks`. The reference API uses 20. */
    API_BLOCK_LIMIT_DEFAULT: pageLimit(20),
    /** Largest page of `/extended/v2/blocks`. The reference API uses 30. */
    API_BLOCK_LIMIT_MAX: pageLimit(30),
    /** Default `event_limit` of `/extended/v1/tx/{tx_id}`. The reference API uses 20. */
    API_EVENT_LIMIT_DEFAULT: pageLimit(20),
    /** Largest `event_limit` of `/extended/v1/tx/{tx_id}`. The reference API uses 100. */
    API_EVENT_LIMIT_MAX: pageLimit(100),
    /** Default `limit` of every `/runes/v1` list. The reference Runes API uses 20. */
    API_RUNES_LIMIT_DEFAULT: pageLimit(20),
    /** Largest `limit` of every `/runes/v1` list; larger → 400. The reference Runes API uses 60. */
    API_RUNES_LIMIT_MAX: pageLimit(60),
    /**
     * Rosetta offline mode: `/rosetta/v1` serves only construction derive, preprocess, payloads, combine, parse and
     * hash, touching neither the database nor a node (everything else answers the catalogued "offline" error).
     */
    ROSETTA_OFFLINE: envBoolean.default(false),
    /**
     * Rosetta network: `mainnet` or `testnet`, or `auto` to take it from the indexed chain (the version byte of its
     * transactions). Offline mode has no chain to ask: set it there.
     */
    ROSETTA_NETWORK: z.enum(['auto', 'mainnet', 'testnet']).default('auto'),
    /**
     * Stacks node RPC base URLs for `/rosetta/v1/construction/metadata` (nonce, fee rate) and `/construction/submit`
     * (comma-separated, tried in order; the gateway's node pool, e.g. `http://127.0.0.1:3999`, works too). Empty:
     * those two endpoints answer the catalogued "node unavailable" error.
     */
    ROSETTA_NODE_RPC_URLS: envList.default(''),
    /**
     * Genesis STX allocations no node event records (a mainnet node sends none), as a rosetta-cli
     * `bootstrap_balances` JSON file: shown as `mint` operations of the Rosetta genesis block and counted in balances.
     */
    ROSETTA_GENESIS_BALANCES_FILE: z.string().min(1).optional(),
    /** Timeout of each node RPC call of the Rosetta construction endpoints, ms. */
    ROSETTA_NODE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /**
     * Live updates (ADR 0025): socket.io at `/socket.io/` and JSON-RPC over WebSocket at `/extended/v1/ws`, fed by the
     * indexer's LISTEN/NOTIFY announcements. `false`: no WebSocket endpoint and no LISTEN connection.
     */
    LIVE_ENABLED: envBoolean.default(true),
    /**
     * Where the live listener runs `LISTEN` (one connection per api process). Default: DATABASE_URL. Set it to the
     * primary the indexer writes when DATABASE_URL is a streaming replica, which does not relay notifications.
     */
    LIVE_LISTEN_DATABASE_URL: z.string().min(1).optional(),
    /** Topics one live connection may hold at once; a subscription past it is refused with an error. */
    LIVE_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Bytes of messages a live connection may leave unread before it is dropped (close code 4008). */
    LIVE_MAX_BUFFERED_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    /** Time a dropped live connection gets to receive its close frame before its socket is destroyed, ms. */
    LIVE_DROP_GRACE_MS: z.coerce.number().int().min(0).default(2_000),
    /** WebSocket ping period of live connections, ms; one that did not answer the previous ping is closed. */
    LIVE_PING_INTERVAL_MS: z.coerce.number().int().min(1_000).default(25_000),
  })
  .superRefine((env, ctx) => {
    if (env.ROSETTA_OFFLINE && env.ROSETTA_NETWORK === 'auto') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['ROSETTA_NETWORK'], message: 'set mainnet or testnet in offline mode' });
    }
    for (const kind of ['TX', 'BLOCK', 'EVENT', 'RUNES'] as const) {
      if (env[`API_${kind}_LIMIT_DEFAULT`] > env[`API_${kind}_LIMIT_MAX`]) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [`API_${kind}_LIMIT_DEFAULT`],
          message: `must not exceed API_${kind}_LIMIT_MAX`,
        });
      }
    }
  });

export type ApiEnv = z.infer<typeof apiEnvSchema>;

export function loadApiEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseEnv(apiEnvSchema, source);
}

/** The default and the largest `limit` of one kind of list. */
export interface PageLimit {
  default: number;
  max: number;
}

/** Page-size rules per list kind. */
export interface PageLimits {
  tx: PageLimit;
  block: PageLimit;
  event: PageLimit;
  /** Every `/runes/v1` list. */
  runes: PageLimit;
}

export function pageLimitsFromEnv(env: ApiEnv): PageLimits {
  return {
    tx: { default: env.API_TX_LIMIT_DEFAULT, max: env.API_TX_LIMIT_MAX },
    block: { default: env.API_BLOCK_LIMIT_DEFAULT, max: env.API_BLOCK_LIMIT_MAX },
    event: { default: env.API_EVENT_LIMIT_DEFAULT, max: env.API_EVENT_LIMIT_MAX },
    runes: { default: env.API_RUNES_LIMIT_DEFAULT, max: env.API_RUNES_LIMIT_MAX },
  };
}

/** The `/rosetta/v1` settings of the environment. */
export function rosettaOptionsFromEnv(env: ApiEnv): RosettaOptions {
  return {
    offline: env.ROSETTA_OFFLINE,
    network: env.ROSETTA_NETWORK,
    nodeRpcUrls: env.ROSETTA_NODE_RPC_URLS,
    nodeTimeoutMs: env.ROSETTA_NODE_TIMEOUT_MS,
    genesisBalancesFile: env.ROSETTA_GENESIS_BALANCES_FILE,
  };
}

/** The live endpoints' limits of the environment (`LiveLimits` of `src/live/`). */
export function liveLimitsFromEnv(env: ApiEnv) {
  return {
    maxSubscriptions: env.LIVE_MAX_SUBSCRIPTIONS,
    maxBufferedBytes: env.LIVE_MAX_BUFFERED_BYTES,
    dropGraceMs: env.LIVE_DROP_GRACE_MS,
    pingIntervalMs: env.LIVE_PING_INTERVAL_MS,
  };
}

/** The reference API's page sizes; used when the caller does not pass its own. */
export const DEFAULT_PAGE_LIMITS: PageLimits = {
  tx: { default: 20, max: 50 },
  block: { default: 20, max: 30 },
  event: { default: 20, max: 100 },
  runes: { default: 20, max: 60 },
};
