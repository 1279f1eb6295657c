import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { TOPICS, type Bus, type BusConsumer } from '@bda/bus';
import type { Network } from '@bda/runes';
import type { DataFence } from './data-epoch';
import { RecordApplier, type AppliedProgress } from './record-applier';
import { bitcoinBlockHandler } from './runes/bitcoin-block-handler';
import type { ParkingBounds } from './stacks/parked-blocks';
import { stacksEventHandler } from './stacks/stacks-event-handler';

/** One topic's place on the bus: the last applied position (null before any), the head, and the records between. */
export interface TopicStatus {
  applied: string | null;
  head: string;
  lag: string;
}

export interface IndexerDeps {
  db: Knex;
  bus: Bus;
  logger: Logger;
  metrics: Registry;
  groupId: string;
  maxBatch: number;
  /** A transaction ends once it has run this long (ms), with the batch's other records in the next one. */
  maxBatchMs?: number;
  /** Bitcoin network of the rune ledger (`BITCOIN_NETWORK`); mainnet when omitted. */
  bitcoinNetwork?: Network;
  /** Bounds of the parked set (`INDEXER_PARKED_MAX_BLOCKS`, `INDEXER_PARKED_MAX_BYTES`); the defaults when omitted. */
  parking?: ParkingBounds;
  /** The answer fence every transaction of both topics ends with (ADR 0048); none without `REDIS_URL`. */
  fence?: DataFence;
}

/**
 * Consumes the bus topics and applies them to PostgreSQL. One consumer per topic; each keeps its own
 * position in `consumer_positions`.
 */
export class Indexer {
  private readonly consumers: Array<{ topic: string; consumer: BusConsumer; applier: RecordApplier }> = [];
  readonly stacks: RecordApplier;
  readonly bitcoin: RecordApplier;
  private started = false;

  constructor(private readonly deps: IndexerDeps) {
    this.stacks = new RecordApplier({
      db: deps.db,
      logger: deps.logger,
      metrics: deps.metrics,
      positionKey: TOPICS.stacksNodeEvents,
      maxBatchMs: deps.maxBatchMs,
      fence: deps.fence,
      ...stacksEventHandler(deps.logger, deps.parking),
    });
    this.bitcoin = new RecordApplier({
      db: deps.db,
      logger: deps.logger,
      metrics: deps.metrics,
      positionKey: TOPICS.bitcoinBlocks,
      maxBatchMs: deps.maxBatchMs,
      fence: deps.fence,
      handle: bitcoinBlockHandler({ network: deps.bitcoinNetwork ?? 'mainnet', logger: deps.logger }),
    });
  }

  get isRunning(): boolean {
    return this.started;
  }

  async start(): Promise<void> {
    await this.deps.bus.ensureTopics([TOPICS.stacksNodeEvents, TOPICS.bitcoinBlocks]);
    const topics: Array<[string, string, RecordApplier]> = [
      [TOPICS.stacksNodeEvents, 'stacks', this.stacks],
      [TOPICS.bitcoinBlocks, 'bitcoin', this.bitcoin],
    ];
    for (const [topic, suffix, applier] of topics) {
      const consumer = this.deps.bus.consumer(`${this.deps.groupId}-${suffix}`);
      await consumer.start({
        topic,
        lastApplied: () => applier.lastApplied(),
        handleBatch: (records) => applier.applyBatch(records),
        // A bitcoin block can hold tens of thousands of rune rows: one block per transaction is plenty.
        maxBatch: topic === TOPICS.bitcoinBlocks ? Math.min(this.deps.maxBatch, 10) : this.deps.maxBatch,
      });
      this.consumers.push({ topic, consumer, applier });
    }
    this.started = true;
  }

  /** Per topic: the last applied position and the newest on the bus (lag = head - applied). */
  async status(): Promise<Record<string, TopicStatus>> {
    const out: Record<string, TopicStatus> = {};
    for (const { topic, consumer, applier } of this.consumers) {
      const applied = await applier.lastApplied();
      const head = await consumer.headPosition(topic);
      out[topic] = {
        applied: applied === null ? null : applied.toString(),
        head: head.toString(),
        lag: (head - (applied ?? -1n) > 0n ? head - (applied ?? -1n) : 0n).toString(),
      };
    }
    return out;
  }

  /** The applier of a topic (by its plain name), or undefined for a topic this indexer does not consume. */
  applierOf(topic: string): RecordApplier | undefined {
    if (topic === TOPICS.stacksNodeEvents) return this.stacks;
    if (topic === TOPICS.bitcoinBlocks) return this.bitcoin;
    return undefined;
  }

  /** See `RecordApplier.waitForProgress`. */
  progress(topic: string, coversMs: number, waitMs: number): Promise<AppliedProgress> {
    const applier = this.applierOf(topic);
    if (!applier) throw new Error(`not a topic of this indexer: ${topic}`);
    return applier.waitForProgress(coversMs, waitMs);
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.consumers.map((c) => c.consumer.stop()));
    this.consumers.length = 0;
  }
}
