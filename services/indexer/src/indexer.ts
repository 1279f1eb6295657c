import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { TOPICS, type Bus, type BusConsumer } from '@bda/bus';
import { MessageApplier } from './message-applier';
import { stacksEventHandler } from './stacks/stacks-event-handler';

export interface IndexerDeps {
  db: Knex;
  bus: Bus;
  logger: Logger;
  metrics: Registry;
  groupId: string;
  maxBatch: number;
  /** Prefix of the bus topic names (tests); positions are stored under the unprefixed name. */
  topicPrefix?: string;
}

/**
 * Consumes the bus topics and applies them to PostgreSQL. One consumer per topic; each keeps its own
 * position in `consumer_positions`.
 */
export class Indexer {
  private readonly consumers: BusConsumer[] = [];
  readonly stacks: MessageApplier;
  private started = false;

  constructor(private readonly deps: IndexerDeps) {
    this.stacks = new MessageApplier({
      db: deps.db,
      logger: deps.logger,
      metrics: deps.metrics,
      positionKey: TOPICS.stacksNodeEvents,
      handle: stacksEventHandler(deps.logger),
    });
  }

  get isRunning(): boolean {
    return this.started;
  }

  async start(): Promise<void> {
    const prefix = this.deps.topicPrefix ?? '';
    await this.deps.bus.ensureTopics([prefix + TOPICS.stacksNodeEvents, prefix + TOPICS.bitcoinBlocks]);
    const stacks = this.deps.bus.consumer(`${this.deps.groupId}-stacks`);
    await stacks.start({
      topic: prefix + TOPICS.stacksNodeEvents,
      lastApplied: () => this.stacks.lastApplied(),
      handleBatch: (records) => this.stacks.applyBatch(records),
      maxBatch: this.deps.maxBatch,
    });
    this.consumers.push(stacks);
    this.started = true;
  }

  /** Per topic: the last applied position and the newest on the bus (lag = head - applied). */
  async status(): Promise<Record<string, { applied: string | null; head: string; lag: string }>> {
    const prefix = this.deps.topicPrefix ?? '';
    const consumer = this.consumers[0];
    const applied = await this.stacks.lastApplied();
    const head = consumer ? await consumer.headPosition(prefix + TOPICS.stacksNodeEvents) : -1n;
    return {
      [TOPICS.stacksNodeEvents]: {
        applied: applied === null ? null : applied.toString(),
        head: head.toString(),
        lag: (head - (applied ?? -1n) > 0n ? head - (applied ?? -1n) : 0n).toString(),
      },
    };
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.consumers.map((c) => c.stop()));
    this.consumers.length = 0;
  }
}
