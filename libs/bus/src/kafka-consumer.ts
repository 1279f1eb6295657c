import type { Logger } from 'pino';
import type { Batch, Consumer, EachBatchPayload } from 'kafkajs';
import type { BusConsumer, BusRecord, ConsumeOptions } from './bus';
import type { KafkaBus } from './kafka-bus';
import { DEFAULT_FETCH_MAX_BYTES, PARTITION } from './kafka-bus-options';
import { describe, toUnavailable } from './kafka-errors';

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
export class KafkaBusConsumer implements BusConsumer {
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
