import { z } from 'zod';
import { envList, envPort, parseEnv } from '@bda/common';

export const indexerEnvSchema = z.object({
  /** PostgreSQL the indexer writes (it owns the schema and runs the migrations). */
  DATABASE_URL: z.string().default('postgres://postgres:postgres@127.0.0.1:5432/postgres'),
  /** Kafka bootstrap brokers (comma-separated). Empty: the embedded bus in PostgreSQL (same database). */
  KAFKA_BROKERS: envList.default(''),
  /** Database of the embedded bus, when it is not DATABASE_URL (several indexers reading one bus). */
  BUS_DATABASE_URL: z.string().optional(),
  /**
   * Isolates systems sharing one bus (test runs sharing a broker): Kafka topic and group names start with it (a `.`
   * is added), and the PostgreSQL log lives in schema `bus_<prefix>`. Stored positions keep the plain topic names.
   */
  BUS_TOPIC_PREFIX: z.string().default(''),
  /** Consumer group; standby indexers in the same group take over when the active one stops. */
  INDEXER_GROUP_ID: z.string().default('indexer'),
  /**
   * Kafka group session timeout (ms): how long a crashed indexer keeps its partition before a standby (or
   * its own restart) takes over. The broker bounds it (group.min.session.timeout.ms, 6 s by default).
   */
  INDEXER_KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Most bus records applied in one database transaction. */
  INDEXER_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * A transaction that has run this long (ms) commits after its current record, and the batch's other records go in
   * the next one: while the indexer works through a backlog, the tip (and `/progress`) moves at least this often
   * instead of once per INDEXER_MAX_BATCH records. 0: no limit.
   */
  INDEXER_MAX_BATCH_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(100)
    .transform((v) => (v === 0 ? undefined : v)),
  /** Port of the indexer's health and metrics server. */
  INDEXER_PORT: envPort.default(3702),
  /**
   * Interface of that server. Loopback by default: `/status`, `/progress` and `/metrics` are for this machine's
   * observer and scraper; bind the internal network (`0.0.0.0` in a container) only where nothing public reaches it.
   */
  INDEXER_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Most blocks parked waiting for a parent that is not known yet (ADR 0002). Past it, the oldest parked block goes to
   * the dead letters (ADR 0019; counted by `indexer_parked_dropped_stored`). A node sends blocks in order: a handful
   * park at most, unless their parent never comes.
   */
  INDEXER_PARKED_MAX_BLOCKS: z.coerce.number().int().min(1).default(1_000),
  /** Most bytes of parked block bodies in all (the mainnet genesis block is about 80 MB); past it, as above. */
  INDEXER_PARKED_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(256 * 1024 * 1024),
  /**
   * Redis shared with the gateway's workers. Set: every transaction raises `data_epoch` and fences it there before
   * committing (ADR 0048), so that the gateway may serve kept answers. Unset: no fence, and no gateway serves kept
   * answers (none is granted a lease). Empty counts as unset.
   */
  REDIS_URL: z
    .string()
    .transform((v) => v || undefined)
    .pipe(z.string().url().optional())
    .optional(),
  /** Prefix of the answer fence's Redis keys: the same in the indexer and the gateway of one deployment. */
  ANSWER_FENCE_PREFIX: z.string().min(1).default('bda:fence:'),
  /**
   * How long (ms) one heartbeat of the fence writer lets gateway workers be granted leases. A commit waits at most
   * this long when Redis cannot be reached (no lease allowed before can then still run); sent three times as often.
   */
  INDEXER_FENCE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(3_000),
  /** Bitcoin network of the rune ledger: address encoding and the runes activation height. */
  BITCOIN_NETWORK: z.enum(['mainnet', 'testnet', 'signet', 'regtest']).default('mainnet'),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type IndexerEnv = z.infer<typeof indexerEnvSchema>;

export function loadIndexerEnv(source: NodeJS.ProcessEnv = process.env): IndexerEnv {
  return parseEnv(indexerEnvSchema, source);
}
