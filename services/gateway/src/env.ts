import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { envBoolean, envList, envPort, parseEnv } from '@bda/common';
import { parseRouteList } from './proxy/allowlist';
import { parseCorsOrigins } from './proxy/cors';
import { parseTrustProxy, type TrustProxy } from './proxy/client-ip';

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);
const urlList = envList.pipe(
  z
    .array(
      z
        .string()
        .url()
        .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http(s) URL'),
    )
    .min(1),
);

/**
 * The default node RPC allowlist: every route stacks-core's RPC documentation (`docs/rpc/openapi.yaml`, Stacks 3.x)
 * lists that reads without the node's auth token, plus `POST /v2/transactions`. GETs are retried on another node and
 * carry no body; the POSTs that only read (`call-read`, `map_entry`, `fees/transaction`) are retried and limited to
 * 256 KiB; a transaction goes once to every available node at the same time, the first success answering, and is
 * never sent twice to a node (2 MiB). Left out on purpose: the writes (`POST /v2/microblocks`,
 * `/v2/blocks/upload/…`, `/v3/blocks/upload`, `/v2/stackerdb/…/chunks`), the routes that need the node's auth token
 * (`/v3/block_proposal`, `/v3/contracts/fast-call-read/…`, `/v3/blocks/replay/…`) and the node-to-node mempool sync
 * (`POST /v2/mempool/query`).
 */
export const DEFAULT_NODE_ROUTES = [
  // Info, fees, accounts
  'GET /v2/info',
  'GET /v2/pox',
  'GET /v2/neighbors',
  'GET /v3/health',
  'GET /v2/fees/transfer',
  'POST /v2/fees/transaction retry limit=262144',
  'GET /v2/accounts/{principal}',
  // Smart contracts
  'GET /v2/contracts/interface/{address}/{contract}',
  'GET /v2/contracts/source/{address}/{contract}',
  'POST /v2/contracts/call-read/{address}/{contract}/{function} retry limit=262144',
  'POST /v2/map_entry/{address}/{contract}/{map} retry limit=262144',
  'GET /v2/data_var/{address}/{contract}/{var}',
  'GET /v2/constant_val/{address}/{contract}/{constant}',
  'GET /v2/traits/{address}/{contract}/{trait_address}/{trait_contract}/{trait}',
  'GET /v2/clarity/marf/{key_hash}',
  'GET /v2/clarity/metadata/{address}/{contract}/{key}',
  // Transactions
  'POST /v2/transactions broadcast limit=2097152',
  'GET /v2/transactions/unconfirmed/{txid}',
  'GET /v3/transaction/{txid}',
  // Blocks, tenures, sortitions (Nakamoto) and the 2.x block and microblock reads
  'GET /v3/blocks/{block_id}',
  'GET /v3/blocks/height/{height}',
  'GET /v3/tenures/info',
  'GET /v3/tenures/{block_id}',
  'GET /v3/tenures/blocks/{consensus_hash}',
  'GET /v3/tenures/blocks/hash/{burn_block_hash}',
  'GET /v3/tenures/blocks/height/{burn_block_height}',
  'GET /v3/tenures/fork_info/{start}/{stop}',
  'GET /v3/tenures/tip/{consensus_hash}',
  'GET /v3/sortitions',
  'GET /v3/sortitions/latest_and_last',
  'GET /v3/sortitions/consensus/{consensus_hash}',
  'GET /v3/sortitions/burn/{burn_header_hash}',
  'GET /v3/sortitions/burn_height/{height}',
  'GET /v2/blocks/{block_id}',
  'GET /v2/headers/{quantity}',
  'GET /v2/microblocks/confirmed/{block_id}',
  'GET /v2/microblocks/unconfirmed/{block_id}/{seq}',
  'GET /v2/microblocks/{microblock_id}',
  // Signers, StackerDB, Atlas
  'GET /v3/stacker_set/{cycle}',
  'GET /v3/signer/{signer_pubkey}/{cycle}',
  'GET /v2/stackerdb/{principal}/{contract}',
  'GET /v2/stackerdb/{principal}/{contract}/replicas',
  'GET /v2/stackerdb/{principal}/{contract}/{slot_id}',
  'GET /v2/stackerdb/{principal}/{contract}/{slot_id}/{slot_version}',
  'GET /v2/attachments/inv',
  'GET /v2/attachments/{hash}',
].join(', ');

/**
 * The gateway's whole configuration, parsed once at startup; any problem fails fast with every issue listed.
 */
export const envSchema = z.object({
  /** Port the gateway listens on (all workers share it): the public port, proxied requests plus `/healthz`, `/readyz`. */
  GATEWAY_PORT: envPort.default(3999),
  /** Interface to bind. */
  HOST: z.string().default('0.0.0.0'),
  /** Port of the admin listener: the gateway's `/metrics` (and `/healthz`, `/readyz`), never proxying; 0 = any free port. */
  GATEWAY_ADMIN_PORT: envPort.default(3998),
  /** Interface of the admin listener: loopback unless the scraper needs another (never the public interface). */
  GATEWAY_ADMIN_HOST: z.string().default('127.0.0.1'),
  /**
   * Time a client has to send the request line and headers (Node's `headersTimeout`; slow-header clients are closed
   * with a 408). 20 s: headers are at most 16 KiB, a few seconds on the slowest link.
   */
  GATEWAY_HEADERS_TIMEOUT_MS: positiveInt.default(20_000),
  /**
   * Time a client has to send its whole request body once the headers are in (408 and the connection closed after
   * it; a total, so 1 byte a second does not hold a connection). 120 s: the largest body the default routes take
   * (2 MiB, `POST /v2/transactions`) passes at 17.5 KB/s (140 kbit/s), a slow mobile link. Node's own `requestTimeout`
   * is set to this plus GATEWAY_HEADERS_TIMEOUT_MS plus 5 s, as a backstop (checked every 30 s by Node).
   */
  GATEWAY_BODY_TIMEOUT_MS: positiveInt.default(120_000),
  /** Worker processes (node:cluster); 1 runs everything in one process. Default: one per core. */
  GATEWAY_WORKERS: positiveInt.default(availableParallelism()),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** One JSON line per request (never headers, never the query string). */
  ACCESS_LOG: envBoolean.default(true),
  /**
   * Identical reads for the api (GET/HEAD, same target, `If-None-Match`, `Cache-Control`, `Accept-Encoding`) that reach
   * the forwarding step in the same event-loop turn share one upstream request (`proxy/same-turn-forwards.ts`, ADR 0033);
   * each still passes its own key check and rate limit. `false`: every request is forwarded on its own.
   */
  GATEWAY_SHARE_ANSWERS: envBoolean.default(true),
  /** Largest api answer shared that way, in bytes; a bigger one is forwarded to each request on its own. */
  GATEWAY_SHARE_MAX_BYTES: positiveInt.default(4 * 1024 * 1024),
  /**
   * The fast path (ADR 0044): a keep-alive `GET`/`HEAD` without a body that arrives whole in one read is parsed and
   * answered straight on its socket, without node:http's request and response streams; every other request, and its
   * connection from then on, is node:http's. `false` sends everything through node:http.
   */
  GATEWAY_FAST_PATH: envBoolean.default(true),
  /**
   * Origins whose browser scripts may call the gateway (CORS): `*` for any (the default; keys are headers, never
   * cookies), a comma-separated list of origins such as `https://wallet.example`, or empty to send no CORS headers.
   */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default('*')
    .transform((raw, ctx) => {
      try {
        return parseCorsOrigins(raw);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),

  /** PostgreSQL holding the `gateway` schema (API keys); migrations run at startup. */
  DATABASE_URL: z.string().min(1),
  /** Connections per process to PostgreSQL (key lookups are cached, so few are needed). */
  DATABASE_POOL_MAX: positiveInt.default(4),

  /** Redis for counters shared by every replica; unset = in-memory counters (embedded default). */
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Redis key the gateway writes. */
  REDIS_KEY_PREFIX: z.string().default('bda:gw:'),
  /** A Redis call slower than this counts as a failure and the local limiter decides. */
  REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(250),

  /**
   * Bytes of api answers each process keeps in memory to serve repeats without asking the api (least recently used
   * go first; ADR 0048). Only with REDIS_URL, where the answer fence runs: without it nothing is kept. 0 = off.
   */
  GATEWAY_ANSWER_CACHE_BYTES: nonNegativeInt.default(64 * 1024 * 1024),
  /** Largest answer body kept; a bigger one still streams to its client, and is not kept. */
  GATEWAY_ANSWER_CACHE_ENTRY_MAX_BYTES: positiveInt.default(1024 * 1024),
  /**
   * Lease each process asks of the answer fence (ms): an indexer commit waits at most this long for a process that
   * does not acknowledge its fence (one cut off from Redis), so it bounds how long a commit may stall.
   */
  GATEWAY_ANSWER_CACHE_LEASE_MS: positiveInt.default(1_000),
  /** A kept answer older than this is not served even when its data epoch is current (ms): a bound besides the fence. */
  GATEWAY_ANSWER_CACHE_MAX_AGE_MS: positiveInt.default(5_000),
  /** Prefix of the answer fence's Redis keys: the same in the indexer and every gateway of a deployment. */
  ANSWER_FENCE_PREFIX: z.string().min(1).default('bda:fence:'),

  /** Rate limiting on/off (off only for benchmarks and local debugging). */
  RATE_LIMIT_ENABLED: envBoolean.default(true),
  /** Requests a minute per client IP without a key. */
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt.default(50),
  /** Requests a minute per key (keys without a custom limit). */
  RATE_LIMIT_KEY_PER_MINUTE: positiveInt.default(500),
  /** Requests a second per client or key (burst limit); custom keys get it scaled to their limit. */
  RATE_LIMIT_BURST_PER_SECOND: positiveInt.default(20),
  /**
   * Units of a subject's quota one process may lease at once from Redis, or from the cluster primary without Redis
   * (ADR 0026); a lease is also at most 1/20 of the subject's burst and minute limits. 1 = no leasing.
   */
  RATE_LIMIT_LEASE_MAX: positiveInt.default(64),
  /** IPv6 clients are grouped by this prefix length. */
  RATE_LIMIT_IPV6_PREFIX: z.coerce.number().int().min(1).max(128).default(56),
  /** HTTP status of a limited `/rosetta/` request (Rosetta clients give up on 429; see ADR 0005). */
  ROSETTA_LIMITED_STATUS: z.coerce
    .number()
    .pipe(z.union([z.literal(503), z.literal(500)]))
    .default(503),
  /** Rosetta `Error.code` of a limited request. */
  ROSETTA_LIMITED_CODE: nonNegativeInt.default(429),

  /** Proxies we run in front of the gateway: that many `X-Forwarded-For` entries are believed (0 = none). */
  TRUSTED_PROXY_HOPS: nonNegativeInt.default(0),
  /** Or: comma-separated addresses/CIDRs of our proxies (instead of a hop count). */
  TRUSTED_PROXY_CIDRS: z.string().optional(),

  /**
   * Invalid keys (unknown or malformed) per client address, process and minute before the gateway stops looking keys
   * up for that address until the minute ends (429); each one also counts against the address's anonymous limit.
   */
  KEY_LOOKUP_FAILURES_PER_MINUTE: positiveInt.default(20),
  /** Key cache lifetime per process (revocations propagate faster, through the version poll). */
  KEY_CACHE_TTL_MS: positiveInt.default(60_000),
  /** How often each process checks the key version for revocations and new keys. */
  KEY_REVOCATION_POLL_MS: positiveInt.max(2_000).default(1_000),

  /** Api replicas (balanced); everything not node RPC goes there. */
  API_URLS: urlList.default('http://127.0.0.1:3001'),
  /** Path probed on each api replica; empty disables active checks. */
  API_HEALTH_PATH: z.string().default('/readyz'),
  /** Largest request body forwarded to the api. */
  API_BODY_LIMIT_BYTES: nonNegativeInt.default(1024 * 1024),

  /** Open live WebSocket connections (`/socket.io/`, `/extended/v1/ws`) per key and gateway process (ADR 0025). */
  GATEWAY_WS_MAX_CONNECTIONS_PER_KEY: positiveInt.default(100),
  /** Open live WebSocket connections per anonymous client address (grouped as for rate limits) and process. */
  GATEWAY_WS_MAX_CONNECTIONS_PER_ADDRESS: positiveInt.default(10),
  /** How often the keys of open live connections are verified again; a revoked key's connections are closed (ms). */
  GATEWAY_WS_KEY_RECHECK_MS: positiveInt.default(1_000),
  /** Time an api replica has to answer a WebSocket upgrade (ms). */
  GATEWAY_WS_UPGRADE_TIMEOUT_MS: positiveInt.default(10_000),

  /** Stacks nodes of the pool. */
  NODE_RPC_URLS: urlList.default('http://127.0.0.1:20443'),
  /**
   * Node RPC allowlist, comma-separated `METHOD /path/{param} [retry] [broadcast] [limit=BYTES]`; GETs always retry,
   * a POST only with `retry`; `broadcast` sends it once to every available node (the first success answers);
   * `limit` caps the body (default NODE_BODY_LIMIT_BYTES, GETs 0).
   */
  NODE_RPC_ROUTES: z
    .string()
    .default(DEFAULT_NODE_ROUTES)
    .transform((v, ctx) => {
      try {
        return parseRouteList(v, 1024 * 1024);
      } catch (err) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** Active health check period (GET /v2/info on each node). */
  NODE_HEALTH_INTERVAL_MS: positiveInt.default(2_000),
  /** Timeout of one health probe. */
  NODE_HEALTH_TIMEOUT_MS: positiveInt.default(1_000),
  /** A node more than this many Stacks blocks behind the best tip is taken out. */
  NODE_MAX_LAG_BLOCKS: nonNegativeInt.default(6),
  /** Consecutive failed probes before a node is marked down. */
  NODE_UNHEALTHY_THRESHOLD: positiveInt.default(2),
  /** Consecutive good probes before a node is put back. */
  NODE_HEALTHY_THRESHOLD: positiveInt.default(2),

  /**
   * Consecutive failures the member caused (connect errors, resets, broken answers, 5xx, timeouts) before it is
   * ejected (passive); what a client causes (abort, stall, short body) never counts.
   */
  UPSTREAM_EJECT_AFTER: positiveInt.default(3),
  /**
   * Panic threshold in percent of a pool's members (as Envoy's): a passive ejection that would leave fewer members
   * available is refused (the last one is never ejected on passive evidence); below it, ejections are ignored and
   * every member the health checks consider up takes traffic. 0 keeps only the last-member rule.
   */
  UPSTREAM_PANIC_THRESHOLD_PERCENT: z.coerce.number().int().min(0).max(100).default(50),
  /** First ejection time; doubles on each repeat, up to UPSTREAM_EJECT_MAX_MS. */
  UPSTREAM_EJECT_BASE_MS: positiveInt.default(5_000),
  UPSTREAM_EJECT_MAX_MS: positiveInt.default(300_000),
  /** Timeout of one try, until the response headers. */
  UPSTREAM_TRY_TIMEOUT_MS: positiveInt.default(10_000),
  /** Timeout of the whole request with its retries, until the response headers. */
  UPSTREAM_TOTAL_TIMEOUT_MS: positiveInt.default(25_000),
  /** Tries per request (retries go to other members, only where safe). */
  UPSTREAM_MAX_TRIES: positiveInt.default(3),
  /** Keep-alive connections per upstream member and process. */
  UPSTREAM_MAX_SOCKETS: positiveInt.default(256),
});

/** The parsed environment plus the derived `X-Forwarded-For` trust. */
export type GatewayEnv = z.infer<typeof envSchema> & { trustProxy: TrustProxy };
export function loadEnv(source: NodeJS.ProcessEnv = process.env): GatewayEnv {
  const env = parseEnv(envSchema, source);
  if (env.TRUSTED_PROXY_CIDRS && env.TRUSTED_PROXY_HOPS > 0) {
    throw new Error('invalid configuration:\n  set TRUSTED_PROXY_HOPS or TRUSTED_PROXY_CIDRS, not both');
  }
  let trustProxy: TrustProxy;
  try {
    trustProxy = env.TRUSTED_PROXY_CIDRS
      ? parseTrustProxy(env.TRUSTED_PROXY_CIDRS)
      : { kind: 'hops', hops: env.TRUSTED_PROXY_HOPS };
  } catch (err) {
    throw new Error(`invalid configuration:\n  TRUSTED_PROXY_CIDRS: ${(err as Error).message}`);
  }
  return { ...env, trustProxy };
}
