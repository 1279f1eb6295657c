import { randomUUID } from 'node:crypto';
import { Kafka, type Admin, type ITopicConfig } from 'kafkajs';
import type { Bus, BusConsumer, BusProducer, BusRecord } from './bus';
import {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  PARTITION,
  sanitizeName,
  type KafkaBusOptions,
} from './kafka-bus-options';
import { KafkaBusConsumer } from './kafka-consumer';
import { busTimeout, protocolErrorType, toUnavailable, UNKNOWN_TOPIC } from './kafka-errors';
import { kafkajsLevel, pinoLogCreator } from './kafka-log-bridge';
import { KafkaBusProducer } from './kafka-producer';

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
