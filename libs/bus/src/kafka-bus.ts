import { randomUUID } from 'node:crypto';
import {
  CompressionTypes,
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Batch,
  type Consumer,
  type EachBatchPayload,
  type ITopicConfig,
  type LogEntry,
  type Producer,
  type logCreator,
} from 'kafkajs';
import type { Logger } from 'pino';
import { withTimeout } from '@bda/common';
import {
  BusUnavailableError,
  type Bus,
  type BusConsumer,
  type BusProducer,
  type BusRecord,
  type ConsumeOptions,
  type OutgoingMessage,
} from './bus';

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

/**
 * The broker rejected the message itself (too large for the topic, invalid): retrying the same message
 * cannot succeed. The observer answers 413 for it rather than 503.
 */
export class BusMessageRejectedError extends Error {
  readonly retriable = false;
  constructor(
    message: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BusMessageRejectedError';
  }
}

export const DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;
const DEFAULT_FETCH_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_COMPRESS_MIN_BYTES = 64 * 1024;

/** gzip for batches of at least `minBytes` (values summed), none below. */
export function compressionFor(messages: OutgoingMessage[], minBytes: number): CompressionTypes {
  let bytes = 0;
  for (const m of messages) bytes += m.value.length;
  return bytes >= minBytes ? CompressionTypes.GZIP : CompressionTypes.None;
}
/** Kafka's own single partition per topic: the chain order is the log order. */
const PARTITION = 0;
const UNKNOWN_TOPIC = new Set(['UNKNOWN_TOPIC_OR_PARTITION']);
const REJECTED_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE']);

function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]/g, '_');
}

/** The first error in the `cause` chain with one of `types`. */
function protocolErrorType(err: unknown, types: Set<string>): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 10; depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && types.has(type)) return type;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function toUnavailable(what: string, err: unknown): BusUnavailableError {
  return err instanceof BusUnavailableError ? err : new BusUnavailableError(`${what}: ${describe(err)}`, { cause: err });
}

/** `withTimeout` whose timeout is a `BusUnavailableError` naming what was waited for. */
function busTimeout<T>(ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  return withTimeout(ms, fn, () => new BusUnavailableError(`${what}: no answer within ${ms} ms`));
}

/** A sleep that `wake()` cuts short (used to stop promptly during a back-off). */
function interruptibleSleep(ms: number): { done: Promise<void>; wake: () => void } {
  let wake = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { done, wake };
}

/** kafkajs log lines into pino. kafkajs reports retried, transient trouble as ERROR; the bus logs real failures. */
function pinoLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, timestamp: _ts, logger: _name, ...fields } = entry;
      const line = { ...fields, namespace };
      // Handled here: after any failed publish the producer is replaced by a new one (new producer id), so
      // bounded retries never leave stale sequence numbers behind.
      if (message.startsWith('Limiting retries for the idempotent producer')) return log.debug(line, message);
      if (message.startsWith('KafkaJS v2.0.0 switched default partitioner')) return;
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          return log.warn(line, message);
        case logLevel.INFO:
          return log.info(line, message);
        default:
          return log.debug(line, message);
      }
    };
}

function kafkajsLevel(logger: Logger): logLevel {
  if (logger.isLevelEnabled('trace')) return logLevel.DEBUG;
  if (logger.isLevelEnabled('info')) return logLevel.INFO;
  if (logger.isLevelEnabled('warn')) return logLevel.WARN;
  if (logger.isLevelEnabled('error')) return logLevel.ERROR;
  return logLevel.NOTHING;
}

/**
 * The production bus (DESIGN.md, contract 3) on Kafka through kafkajs. One partition per topic, key = the
 * chain name, GZIP-compressed batches, an idempotent producer with acks from all in-sync replicas. Consumers
 * join a consumer group (standby indexers take over on a rebalance), but the position they resume from is
 * the indexer's database (`lastApplied`), asked at every start and (re)assignment; Kafka's committed offset
 * only follows it.
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  readonly kafka: Kafka;
  private admin?: Promise<Admin>;
  private readonly producers = new Set<KafkaBusProducer>();
  private readonly consumers = new Set<KafkaBusConsumer>();
  private readonly prefix: string;

  constructor(readonly opts: KafkaBusOptions) {
    if (opts.brokers.length === 0) throw new Error('KafkaBus needs at least one broker');
    const prefix = opts.topicPrefix ? sanitizeName(opts.topicPrefix) : '';
    this.prefix = prefix === '' || prefix.endsWith('.') ? prefix : `${prefix}.`;
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      connectionTimeout: opts.connectionTimeoutMs ?? 3_000,
      requestTimeout: opts.requestTimeoutMs ?? 30_000,
      // Connecting and metadata: bounded, so a broker that is down is reported within seconds.
      retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 5 },
      logLevel: kafkajsLevel(opts.logger),
      logCreator: pinoLogCreator(opts.logger),
    });
  }

  /** The Kafka topic name of a logical topic. */
  topicName(topic: string): string {
    return `${this.prefix}${sanitizeName(topic)}`;
  }

  groupName(groupId: string): string {
    return `${this.prefix}${sanitizeName(groupId)}`;
  }

  async getAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      this.admin = admin.connect().then(
        () => admin,
        (err: unknown) => {
          this.admin = undefined;
          throw toUnavailable('cannot reach Kafka', err);
        },
      );
    }
    return this.admin;
  }

  async ensureTopics(topics: string[]): Promise<void> {
    const wanted = [...new Set(topics.map((t) => this.topicName(t)))];
    try {
      const admin = await this.getAdmin();
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t));
      if (missing.length > 0) {
        const { brokers } = await admin.describeCluster();
        const replicationFactor = this.opts.replicationFactor ?? Math.min(3, Math.max(1, brokers.length));
        const configEntries: ITopicConfig['configEntries'] = [
          { name: 'max.message.bytes', value: String(this.opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
          { name: 'retention.ms', value: String(this.opts.retentionMs ?? -1) },
          { name: 'retention.bytes', value: '-1' },
          { name: 'cleanup.policy', value: 'delete' },
          // A write is acknowledged by 2 replicas when there are 3; 1 replica must not block writes when there are 2.
          { name: 'min.insync.replicas', value: String(Math.min(2, Math.max(1, replicationFactor - 1))) },
          { name: 'unclean.leader.election.enable', value: 'false' },
          { name: 'compression.type', value: 'producer' },
        ];
        const created = await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({ topic, numPartitions: 1, replicationFactor, configEntries })),
        });
        this.opts.logger.info({ topics: missing, replicationFactor, created }, 'kafka topics created');
      }
      const present = wanted.filter((t) => existing.has(t));
      if (present.length > 0) {
        const meta = await admin.fetchTopicMetadata({ topics: present });
        for (const t of meta.topics) {
          if (t.partitions.length !== 1) {
            this.opts.logger.error(
              { topic: t.name, partitions: t.partitions.length },
              'kafka topic has more than one partition: only partition 0 is written and read',
            );
          }
        }
      }
    } catch (err) {
      throw toUnavailable('cannot ensure the Kafka topics', err);
    }
  }

  /** Offset of the newest record of a topic (-1n when empty). */
  async headPosition(topic: string): Promise<bigint> {
    try {
      const admin = await this.getAdmin();
      const offsets = await admin.fetchTopicOffsets(this.topicName(topic));
      const p = offsets.find((o) => o.partition === PARTITION);
      return p ? BigInt(p.high) - 1n : -1n;
    } catch (err) {
      // Like the PostgreSQL log, a topic nobody created yet is simply empty.
      if (protocolErrorType(err, UNKNOWN_TOPIC)) return -1n;
      throw toUnavailable('cannot read the Kafka topic offsets', err);
    }
  }

  /**
   * Reads the newest record with a consumer of its own, in a throwaway group that commits nothing (Kafka drops an
   * empty group by itself), positioned on the last offset. A record retention already deleted counts as none.
   */
  async lastRecord(topic: string): Promise<BusRecord | null> {
    const name = this.topicName(topic);
    let head: bigint;
    try {
      const admin = await this.getAdmin();
      const p = (await admin.fetchTopicOffsets(name)).find((o) => o.partition === PARTITION);
      if (!p || BigInt(p.high) <= BigInt(p.low)) return null;
      head = BigInt(p.high) - 1n;
    } catch (err) {
      if (protocolErrorType(err, UNKNOWN_TOPIC)) return null;
      throw toUnavailable('cannot read the Kafka topic offsets', err);
    }
    const fetchMaxBytes = this.opts.fetchMaxBytes ?? DEFAULT_FETCH_MAX_BYTES;
    const consumer = this.kafka.consumer({
      groupId: this.groupName(`last-record-${randomUUID()}`),
      maxBytes: fetchMaxBytes,
      maxBytesPerPartition: fetchMaxBytes,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
      retry: { initialRetryTime: 300, maxRetryTime: 2_000, retries: 5 },
    });
    try {
      // Joining a new group takes a few seconds on a production broker (`group.initial.rebalance.delay.ms`).
      return await busTimeout(30_000, `reading the last record of ${name}`, async () => {
        await consumer.connect();
        await consumer.subscribe({ topics: [name] });
        const found = new Promise<BusRecord>((resolve) => {
          void consumer.run({
            autoCommit: false,
            eachMessage: async ({ message }) => {
              if (BigInt(message.offset) !== head) return;
              resolve({ topic, position: head, key: message.key?.toString() ?? '', value: message.value ?? Buffer.alloc(0) });
            },
          });
        });
        consumer.seek({ topic: name, partition: PARTITION, offset: head.toString() });
        return await found;
      });
    } catch (err) {
      throw toUnavailable(`cannot read the last record of ${name}`, err);
    } finally {
      await consumer.disconnect().catch(() => {});
    }
  }

  producer(): BusProducer {
    const p = new KafkaBusProducer(this, () => this.producers.delete(p));
    this.producers.add(p);
    return p;
  }

  consumer(groupId: string): BusConsumer {
    const c = new KafkaBusConsumer(this, groupId, () => this.consumers.delete(c));
    this.consumers.add(c);
    return c;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => c.stop()));
    await Promise.allSettled([...this.producers].map((p) => p.disconnect()));
    const admin = this.admin;
    this.admin = undefined;
    if (admin) await admin.then((a) => a.disconnect()).catch(() => {});
  }
}

/**
 * Publishes one call at a time (the order of calls is the log order). After any failure the kafkajs producer is
 * dropped and the next publish starts a fresh one: a new producer id means no sequence number of a send whose
 * outcome is unknown is ever reused, and a broker that came back is simply reconnected to.
 */
class KafkaBusProducer implements BusProducer {
  private producer?: Producer;
  private healthy = false;
  private closed = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly bus: KafkaBus,
    private readonly onClose: () => void,
  ) {}

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(
      () => fn(),
      () => fn(),
    );
    this.tail = run.catch(() => {});
    return run;
  }

  private async ensure(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.bus.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 5 },
    });
    try {
      await producer.connect();
    } catch (err) {
      await producer.disconnect().catch(() => {});
      throw err;
    }
    this.producer = producer;
    return producer;
  }

  private discard(): void {
    const p = this.producer;
    this.producer = undefined;
    p?.disconnect().catch(() => {});
  }

  connect(): Promise<void> {
    const timeout = this.bus.opts.publishTimeoutMs ?? 15_000;
    return this.serialize(async () => {
      if (this.closed) throw new BusUnavailableError('the Kafka producer is closed');
      try {
        await busTimeout(timeout, 'connecting to Kafka', () => this.ensure());
        this.healthy = true;
      } catch (err) {
        this.healthy = false;
        this.discard();
        throw toUnavailable('cannot reach Kafka', err);
      }
    });
  }

  publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    const timeout = this.bus.opts.publishTimeoutMs ?? 15_000;
    const name = this.bus.topicName(topic);
    return this.serialize(async () => {
      if (this.closed) throw new BusUnavailableError('the Kafka producer is closed');
      try {
        await busTimeout(timeout, `publishing to ${name}`, async () => {
          const producer = await this.ensure();
          await producer.send({
            topic: name,
            acks: -1,
            timeout,
            compression: compressionFor(messages, this.bus.opts.compressMinBytes ?? DEFAULT_COMPRESS_MIN_BYTES),
            messages: messages.map((m) => ({ key: m.key, value: m.value, partition: PARTITION })),
          });
        });
        this.healthy = true;
      } catch (err) {
        this.discard();
        const rejected = protocolErrorType(err, REJECTED_TYPES);
        if (rejected) {
          // The broker answered: it is up, only this message is not acceptable.
          this.healthy = true;
          this.bus.opts.logger.warn({ err, topic: name, reason: rejected }, 'kafka rejected the message');
          throw new BusMessageRejectedError(`Kafka rejected the message: ${rejected}`, rejected, { cause: err });
        }
        this.healthy = false;
        this.bus.opts.logger.warn({ err: describe(err), topic: name }, 'kafka publish failed');
        throw toUnavailable(`Kafka did not accept the message for ${name}`, err);
      }
    });
  }

  isHealthy(): boolean {
    return this.healthy && !this.closed;
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    await this.tail;
    const p = this.producer;
    this.producer = undefined;
    this.healthy = false;
    this.onClose();
    await p?.disconnect().catch(() => {});
  }
}

/**
 * A consumer-group member reading one topic. Where it resumes is decided by `lastApplied` (the indexer's
 * database), never by Kafka's committed offset alone:
 * - at start and after every (re)assignment (`GROUP_JOIN`) it asks `lastApplied()` and seeks to
 *   `lastApplied + 1`; batches fetched before that seek are dropped (kafkajs fetches again from there);
 * - after a failed handler, and whenever a batch does not start where the previous one ended, the next batch
 *   asks `lastApplied()` again: records at or before it are skipped, and when Kafka would start later than
 *   `lastApplied + 1` the consumer seeks back there (once per target: a later start after that means the
 *   records are gone from the topic, e.g. retention);
 * - a failing `handleBatch` resolves nothing: after a back-off the same records are fetched again.
 * Offsets are committed to Kafka at most once a second (for lag tooling and a quick restart).
 */
class KafkaBusConsumer implements BusConsumer {
  private consumer?: Consumer;
  private opts?: ConsumeOptions;
  private stopping = false;
  private inFlight?: Promise<void>;
  /** First offset not yet handed over, as far as we know; undefined = ask `lastApplied()` first. */
  private next?: bigint;
  private soughtTo?: bigint;
  private backoffMs: number;
  /** Wakes the back-off sleeps when stopping. */
  private readonly wakers = new Set<() => void>();
  private relaunching?: Promise<void>;
  private warnedPartitions = false;
  /** Counts assignments; a position sync for an older one gives up. */
  private generation = 0;
  private pendingSync?: Promise<void>;

  constructor(
    private readonly bus: KafkaBus,
    private readonly groupId: string,
    private readonly onClose: () => void,
  ) {
    this.backoffMs = bus.opts.retryBackoffMs?.initial ?? 500;
  }

  private get log(): Logger {
    return this.bus.opts.logger;
  }

  async start(opts: ConsumeOptions): Promise<void> {
    if (this.opts) throw new Error('consumer already started');
    this.opts = opts;
    try {
      await this.launch();
    } catch (err) {
      this.opts = undefined;
      throw err;
    }
  }

  private async launch(): Promise<void> {
    const opts = this.opts;
    if (!opts) return;
    const topic = this.bus.topicName(opts.topic);
    const fetchMaxBytes = this.bus.opts.fetchMaxBytes ?? DEFAULT_FETCH_MAX_BYTES;
    const consumer = this.bus.kafka.consumer({
      groupId: this.bus.groupName(this.groupId),
      sessionTimeout: this.bus.opts.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.bus.opts.heartbeatIntervalMs ?? 3_000,
      maxBytes: fetchMaxBytes,
      maxBytesPerPartition: fetchMaxBytes,
      maxWaitTimeInMs: 1_000,
      allowAutoTopicCreation: false,
      retry: { initialRetryTime: 300, maxRetryTime: 10_000, retries: 8 },
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.next = undefined;
      this.soughtTo = undefined;
      const assigned = payload.memberAssignment[topic]?.includes(PARTITION) ?? false;
      this.log.info({ topic, groupId: payload.groupId, memberId: payload.memberId, assigned }, 'kafka consumer joined the group');
      if (assigned) this.syncAfterJoin(consumer, topic, opts);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.next = undefined;
      if (payload.restart || this.stopping) {
        this.log.warn({ topic, err: describe(payload.error) }, 'kafka consumer crashed; kafkajs restarts it');
        return;
      }
      this.log.error({ topic, err: payload.error }, 'kafka consumer stopped on an error; starting a new one');
      void this.relaunch(consumer);
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        autoCommit: true,
        // At most once a second, not after every batch: the committed offset only serves lag tooling and a quick
        // restart (where to resume is `lastApplied`), and committing is a broker write per batch, which on a node
        // posting one event at a time was one extra write to `__consumer_offsets` per event.
        autoCommitInterval: 1_000,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 1,
        eachBatch: (payload) => this.onBatch(consumer, payload),
      });
    } catch (err) {
      await consumer.disconnect().catch(() => {});
      throw toUnavailable(`cannot start consuming ${topic}`, err);
    }
    this.consumer = consumer;
  }

  /** After a crash kafkajs does not recover from by itself: a new kafkajs consumer, retried with back-off. */
  private relaunch(old: Consumer): Promise<void> {
    if (this.relaunching) return this.relaunching;
    this.relaunching = (async () => {
      if (this.consumer === old) this.consumer = undefined;
      await old.disconnect().catch(() => {});
      let delay = 1_000;
      while (!this.stopping) {
        await this.pause(delay);
        if (this.stopping) break;
        try {
          await this.launch();
          break;
        } catch (err) {
          this.log.warn({ err: describe(err), retryInMs: delay }, 'kafka consumer could not restart');
          delay = Math.min(delay * 2, 30_000);
        }
      }
    })().finally(() => {
      this.relaunching = undefined;
    });
    return this.relaunching;
  }

  /**
   * On every assignment: position the consumer at `lastApplied + 1` right away (Kafka's committed offset may be
   * ahead of the database, and with nothing new to fetch no batch would ever show it). Retried until it works.
   */
  private syncAfterJoin(consumer: Consumer, topic: string, opts: ConsumeOptions): void {
    const generation = ++this.generation;
    this.pendingSync = (async () => {
      let delay = this.bus.opts.retryBackoffMs?.initial ?? 500;
      while (!this.stopping && generation === this.generation) {
        try {
          const last = await opts.lastApplied();
          if (this.stopping || generation !== this.generation) return;
          const target = last === null ? 0n : last + 1n;
          this.soughtTo = target;
          this.next = target;
          consumer.seek({ topic, partition: PARTITION, offset: target.toString() });
          this.log.info({ topic, offset: String(target) }, 'kafka consumer positioned at the database position');
          return;
        } catch (err) {
          this.log.error({ err, topic: opts.topic, retryInMs: delay }, 'lastApplied failed after an assignment; retrying');
          await this.pause(delay);
          delay = Math.min(delay * 2, this.bus.opts.retryBackoffMs?.max ?? 30_000);
        }
      }
    })().finally(() => {
      if (generation === this.generation) this.pendingSync = undefined;
    });
  }

  private onBatch(consumer: Consumer, payload: EachBatchPayload): Promise<void> {
    const run = this.processBatch(consumer, payload);
    this.inFlight = run;
    return run.finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
  }

  private async processBatch(
    consumer: Consumer,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
  ): Promise<void> {
    const opts = this.opts;
    if (this.pendingSync) await this.pendingSync;
    // Fetched before the seek to the database position: kafkajs fetches again from there.
    if (!opts || this.stopping || isStale() || batch.messages.length === 0) return;
    if (batch.partition !== PARTITION) {
      if (!this.warnedPartitions) {
        this.warnedPartitions = true;
        this.log.error({ topic: batch.topic, partition: batch.partition }, 'records outside partition 0 are ignored');
      }
      resolveOffset(batch.lastOffset());
      return;
    }
    const fetchedFrom = BigInt((batch as Batch & { fetchedOffset?: string }).fetchedOffset ?? batch.messages[0]!.offset);
    if (this.next !== undefined && fetchedFrom !== this.next) this.next = undefined;

    if (this.next === undefined) {
      let last: bigint | null;
      try {
        last = await opts.lastApplied();
      } catch (err) {
        this.log.error({ err, topic: opts.topic }, 'lastApplied failed; retrying');
        await this.backoff(heartbeat, isRunning);
        return;
      }
      const target = last === null ? 0n : last + 1n;
      if (fetchedFrom > target && this.soughtTo !== target) {
        this.log.info(
          { topic: opts.topic, from: String(fetchedFrom), to: String(target) },
          'kafka consumer seeks back to the database position',
        );
        this.soughtTo = target;
        consumer.seek({ topic: batch.topic, partition: PARTITION, offset: target.toString() });
        return;
      }
      if (fetchedFrom > target) {
        this.log[last === null ? 'warn' : 'error'](
          { topic: opts.topic, expected: String(target), firstAvailable: String(fetchedFrom) },
          'records before the first available offset are gone from the topic (retention?)',
        );
      }
      this.soughtTo = undefined;
      this.next = target > fetchedFrom ? target : fetchedFrom;
    }

    const from = this.next;
    const records: BusRecord[] = [];
    for (const m of batch.messages) {
      const position = BigInt(m.offset);
      if (position < from) continue;
      records.push({ topic: opts.topic, position, key: m.key?.toString('utf8') ?? '', value: m.value ?? Buffer.alloc(0) });
    }
    if (records.length === 0) {
      // Everything here was applied already (Kafka's commit lagged the database).
      resolveOffset(batch.lastOffset());
      this.next = BigInt(batch.lastOffset()) + 1n;
      return;
    }

    const maxBatch = Math.max(1, opts.maxBatch ?? 200);
    for (let i = 0; i < records.length; i += maxBatch) {
      if (this.stopping || !isRunning() || isStale()) return;
      const chunk = records.slice(i, i + maxBatch);
      try {
        await this.withHeartbeats(heartbeat, () => opts.handleBatch(chunk));
      } catch (err) {
        this.log.error(
          { err, topic: opts.topic, from: String(chunk[0]!.position), count: chunk.length, retryInMs: this.backoffMs },
          'handleBatch failed; the same records come again after a back-off',
        );
        this.next = undefined;
        await this.backoff(heartbeat, isRunning);
        return;
      }
      const lastPos = chunk[chunk.length - 1]!.position;
      resolveOffset(lastPos.toString());
      this.next = lastPos + 1n;
      this.backoffMs = this.bus.opts.retryBackoffMs?.initial ?? 500;
      await heartbeat();
    }
  }

  /** Keeps the group membership alive while a long handler runs (kafkajs heartbeats only when asked). */
  private async withHeartbeats<T>(heartbeat: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
    const every = this.bus.opts.heartbeatIntervalMs ?? 3_000;
    const timer = setInterval(() => {
      heartbeat().catch((err: unknown) => this.log.debug({ err: describe(err) }, 'heartbeat during handleBatch failed'));
    }, every);
    try {
      return await fn();
    } finally {
      clearInterval(timer);
    }
  }

  private async backoff(heartbeat: () => Promise<void>, isRunning: () => boolean): Promise<void> {
    const until = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.bus.opts.retryBackoffMs?.max ?? 30_000);
    const every = this.bus.opts.heartbeatIntervalMs ?? 3_000;
    while (!this.stopping && isRunning()) {
      const left = until - Date.now();
      if (left <= 0) return;
      await this.pause(Math.min(left, every));
      if (this.stopping) return;
      await heartbeat().catch((err: unknown) => this.log.debug({ err: describe(err) }, 'heartbeat during back-off failed'));
    }
  }

  private async pause(ms: number): Promise<void> {
    const sleep = interruptibleSleep(ms);
    this.wakers.add(sleep.wake);
    try {
      await sleep.done;
    } finally {
      this.wakers.delete(sleep.wake);
    }
  }

  headPosition(topic: string): Promise<bigint> {
    return this.bus.headPosition(topic);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    await this.relaunching;
    await this.pendingSync;
    await this.inFlight?.catch(() => {});
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer
      ?.disconnect()
      .catch((err: unknown) => this.log.warn({ err: describe(err) }, 'kafka consumer disconnect failed'));
    this.onClose();
  }
}
