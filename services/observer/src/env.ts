import { z } from 'zod';
import { envList, envPort, parseEnv } from '@bda/common';

export const observerEnvSchema = z.object({
  /** Port the node's event emitter POSTs to (the node's `[[events_observer]] endpoint`). */
  OBSERVER_PORT: envPort.default(3700),
  /** Interface to bind. */
  OBSERVER_HOST: z.string().default('0.0.0.0'),
  /** Largest accepted body; the mainnet genesis `/new_block` is about 80 MB. */
  OBSERVER_BODY_LIMIT: z
    .string()
    .default('512mb')
    .refine((v) => /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb)?\s*$/i.test(v), 'a byte size such as 512mb, 100kb or 1048576'),
  /** Kafka bootstrap brokers (comma-separated). Empty: the embedded bus in PostgreSQL. */
  KAFKA_BROKERS: envList.default(''),
  /** Kafka produce batches of at least this many bytes are gzip-compressed, smaller ones sent as they are (0: all). */
  KAFKA_COMPRESS_MIN_BYTES: z.coerce.number().int().min(0).default(65_536),
  /** PostgreSQL holding the embedded bus (used when KAFKA_BROKERS is empty). */
  DATABASE_URL: z.string().default('postgres://postgres:postgres@127.0.0.1:5432/postgres'),
  /** Database of the embedded bus, when it is not DATABASE_URL (several indexers reading one bus). */
  BUS_DATABASE_URL: z.string().optional(),
  /**
   * Isolates systems sharing one bus (test runs sharing a broker): Kafka topic and group names start with it (a `.`
   * is added), and the PostgreSQL log lives in schema `bus_<prefix>`. Stored positions keep the plain topic names.
   */
  BUS_TOPIC_PREFIX: z.string().default(''),
  /** bitcoind JSON-RPC URL to follow (`http://host:8332`); empty: no follower (blocks only via POST /new_bitcoin_block). */
  BITCOIND_RPC_URL: z.string().default(''),
  /** bitcoind RPC user (`rpcuser`). */
  BITCOIND_RPC_USER: z.string().default(''),
  /** bitcoind RPC password (`rpcpassword`). */
  BITCOIND_RPC_PASSWORD: z.string().default(''),
  /**
   * First height the follower publishes when `bitcoin.blocks` is still empty (e.g. a little below 840000 on mainnet:
   * commits of the first etchings). Once the topic holds blocks, the follower resumes after the newest of them.
   */
  BITCOIND_START_HEIGHT: z.coerce.number().int().min(0).default(0),
  /** How often the follower asks bitcoind for new blocks. */
  BITCOIND_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(5_000),
  /**
   * An indexer's HTTP server (any replica, e.g. `http://indexer:3702`). Set: bounded staleness (ADR 0015), POSTs are
   * held while the api trails the node by more than OBSERVER_PACE_STALENESS_MS. Empty: every POST is answered as soon
   * as its event is durable, however far behind the indexer is.
   */
  OBSERVER_INDEXER_URL: z
    .union([z.literal(''), z.string().url().startsWith('http://', 'the indexer serves plain http://')])
    .default(''),
  /** How far (ms) the api may trail the node before POSTs are held. 0: each POST waits until its event is applied. */
  OBSERVER_PACE_STALENESS_MS: z.coerce.number().int().min(0).default(250),
  /** Longest one POST is held (ms). Keep it well below the node's `timeout_ms` for this observer. */
  OBSERVER_PACE_MAX_HOLD_MS: z.coerce.number().int().min(1).max(5_000).default(250),
  /** Staleness (ms) beyond which the indexer is replaying a backlog and POSTs are not held at all. */
  OBSERVER_PACE_GIVE_UP_MS: z.coerce.number().int().min(1).default(10_000),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type ObserverEnv = z.infer<typeof observerEnvSchema>;

export function loadObserverEnv(source: NodeJS.ProcessEnv = process.env): ObserverEnv {
  return parseEnv(observerEnvSchema, source);
}
