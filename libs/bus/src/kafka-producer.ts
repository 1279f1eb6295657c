import { CompressionTypes, Partitioners, type Producer } from 'kafkajs';
import { BusUnavailableError, type BusProducer, type OutgoingRecord } from './bus';
import type { KafkaBus } from './kafka-bus';
import { DEFAULT_COMPRESS_MIN_BYTES, PARTITION } from './kafka-bus-options';
import { BusRecordRejectedError, busTimeout, describe, protocolErrorType, REJECTED_TYPES, toUnavailable } from './kafka-errors';

/** gzip for batches of at least `minBytes` (values summed), none below. */
export function compressionFor(records: OutgoingRecord[], minBytes: number): CompressionTypes {
  let bytes = 0;
  for (const m of records) bytes += m.value.length;
  return bytes >= minBytes ? CompressionTypes.GZIP : CompressionTypes.None;
}

/**
 * Publishes one call at a time (the order of calls is the log order). After any failure the kafkajs producer is
 * dropped and the next publish starts a fresh one: a new producer id means no sequence number of a send whose
 * outcome is unknown is ever reused, and a broker that came back is simply reconnected to.
 */
export class KafkaBusProducer implements BusProducer {
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

  publish(topic: string, records: OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
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
            compression: compressionFor(records, this.bus.opts.compressMinBytes ?? DEFAULT_COMPRESS_MIN_BYTES),
            messages: records.map((m) => ({ key: m.key, value: m.value, partition: PARTITION })),
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
          throw new BusRecordRejectedError(`Kafka rejected the message: ${rejected}`, rejected, { cause: err });
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
