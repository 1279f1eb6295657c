import { z } from 'zod';
import { envList, envPort, parseEnv } from '@bda/common';
import { parsePeerAllowList } from './peer-allow-list';

const byteSize = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb)?\s*$/i.test(v), 'a byte size such as 512mb, 100kb or 1048576');

export const observerEnvSchema = z.object({
  /** Port the node's event emitter POSTs to (the node's `[[events_observer]] endpoint`). */
  OBSERVER_PORT: envPort.default(3700),
  /**
   * Interface to bind. Loopback by default: a node on the same machine. Whoever can post here writes the chain
   * (ADR 0019), so bind another interface only on a network that only the nodes reach, with OBSERVER_ALLOWED_CIDRS.
   */
  OBSERVER_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Peers that may POST events, as comma-separated IPv4/IPv6 CIDRs (the Stacks nodes' addresses, e.g.
   * `10.0.3.0/24,fd00::/8`; a bare address is one host); anyone else gets 403 before the body is read. Empty: loopback
   * (`127.0.0.0/8,::1/128`) when OBSERVER_HOST is a loopback address; bound elsewhere, the observer refuses to start
   * without it (`0.0.0.0/0,::/0` allows everyone, when a firewall already does this job). GETs (health, metrics) are
   * not checked.
   */
  OBSERVER_ALLOWED_CIDRS: z
    .string()
    .default('')
    .refine((v) => {
      if (v.trim() === '') return true;
      try {
        parsePeerAllowList(v);
        return true;
      } catch {
        return false;
      }
    }, 'comma-separated IPv4/IPv6 CIDRs such as 10.0.0.0/8,fd00::/8'),
  /** Largest accepted body; the mainnet genesis `/new_block` is about 80 MB. */
  OBSERVER_BODY_LIMIT: byteSize('512mb'),
  /**
   * Slow bodies: after this grace (ms) from the end of the headers, a body must have arrived at OBSERVER_BODY_MIN_RATE
   * on average, or the answer is 408 and the connection is closed. 1 byte a second is cut off after about 10 s.
   */
  OBSERVER_BODY_GRACE_MS: z.coerce.number().int().min(1).default(10_000),
  /**
   * Slowest accepted average rate of a body after the grace. 64kb (65,536 bytes/s, 512 kbit/s): an 80 MB genesis
   * block may take up to 10 s + 80e6 / 65,536 ≈ 1,230 s (20 minutes), far slower than any link between a node and
   * its observer.
   */
  OBSERVER_BODY_MIN_RATE: byteSize('64kb'),
  /**
   * Node's `server.requestTimeout` (ms): the longest a whole request may take to arrive, whatever its rate. 3,600,000
   * (an hour) lets an 80 MB block arrive at 22 KiB/s; at the minimum rate above, bodies up to about 225 MiB fit in it.
   * Raise it with OBSERVER_BODY_LIMIT. Node checks it every 30 s.
   */
  OBSERVER_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(3_600_000),
  /** Node's `server.headersTimeout` (ms): the request line and headers must arrive within it. */
  OBSERVER_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(30_000),
  /**
   * A gzip or deflate body may inflate to at most this many times its compressed size (and never past
   * OBSERVER_BODY_LIMIT); beyond, 413. Real node events compress 3 to 12 times; every body may reach 1 MiB.
   */
  OBSERVER_INFLATE_MAX_RATIO: z.coerce.number().int().min(1).default(100),
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
