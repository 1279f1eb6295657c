import type { Logger } from 'pino';

export interface KafkaBusOptions {
  /** Bootstrap brokers, `host:port`. */
  brokers: string[];
  clientId: string;
  logger: Logger;
  /**
   * Isolates a test: topics become `<prefix>.<topic>` and consumer groups `<prefix>.<groupId>` (characters
   * Kafka does not allow in names become `_`). Records still carry the logical topic name.
   */
  topicPrefix?: string;
  /** TCP connect timeout per attempt (ms). Default 3 000. */
  connectionTimeoutMs?: number;
  /** Timeout of one Kafka request (ms). Default 30 000. */
  requestTimeoutMs?: number;
  /**
   * Upper bound of one `publish` (connecting, retries and acks from all in-sync replicas), after which it
   * fails with `BusUnavailableError` (ms). Default 15 000. A broker that refuses connections fails a publish
   * much sooner (about 3 s: the bounded retries below).
   */
  publishTimeoutMs?: number;
  /**
   * `retention.ms` of the topics `ensureTopics` creates. Default -1: keep the log forever, so an indexer can
   * always be rebuilt from the first event. Set e.g. 30 days (2 592 000 000) where disk is scarce and the
   * database is backed up.
   */
  retentionMs?: number;
  /** `max.message.bytes` of created topics (the compressed size of one produce batch). Default 100 MiB. */
  maxMessageBytes?: number;
  /** Replication factor of created topics. Default min(3, brokers in the cluster). */
  replicationFactor?: number;
  /** Consumer group session timeout (ms): how long a silent indexer keeps the partition. Default 30 000. */
  sessionTimeoutMs?: number;
  /** Consumer heartbeat interval (ms). Default 3 000. */
  heartbeatIntervalMs?: number;
  /**
   * Fetch limits (bytes) of a consumer: per request and per partition. Default 32 MiB. Kafka always returns at
   * least the first record batch even when it is larger than these (KIP-74), so a 100 MB message still comes
   * through; the limits only bound how much one fetch buffers when many small records are waiting.
   */
  fetchMaxBytes?: number;
  /**
   * Batches whose values add up to at least this many bytes are gzip-compressed; smaller ones go as they are.
   * Default 64 KiB: gzip shrinks a large block's JSON several times over, but on the small events that make up
   * most of a node's traffic it would double the time to the acknowledgement for a few kilobytes saved.
   * 0 compresses everything.
   */
  compressMinBytes?: number;
  /** Back-off after a failing `handleBatch`/`lastApplied`: first and longest wait (ms). Default 500 / 30 000. */
  retryBackoffMs?: { initial: number; max: number };
}

export const DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;
export const DEFAULT_FETCH_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_COMPRESS_MIN_BYTES = 64 * 1024;

/** Kafka's own single partition per topic: the chain order is the log order. */
export const PARTITION = 0;

/** A topic or group name with the characters Kafka does not allow in names replaced by `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]/g, '_');
}
