/**
 * The bus between the observer and the indexer. Two implementations share this contract and one
 * contract test suite: Kafka (production) and a durable log in PostgreSQL (the embedded default).
 *
 * Words: the bus carries **records** (a key, the chain name, and a value); a record's value is an **envelope**
 * (`envelope.ts`: path, receive time, the node's body). Published records are `OutgoingRecord`s, consumed ones
 * `BusRecord`s with their position; the indexer's `RecordApplier` applies them.
 *
 * Ordering: every topic is one ordered log (Kafka: one partition). `position` is the record's place in
 * that log (Kafka offset / log row id): strictly increasing in log order, never reused.
 */

/** Topic names of the design (DESIGN.md, contract 3). */
export const TOPICS = {
  stacksNodeEvents: 'stacks.node-events',
  bitcoinBlocks: 'bitcoin.blocks',
} as const;

export interface OutgoingRecord {
  /** The chain name, e.g. `stacks` or `bitcoin`. */
  key: string;
  /** The serialized envelope (see `encodeEnvelope`). */
  value: Buffer;
}

export interface BusRecord {
  topic: string;
  position: bigint;
  key: string;
  value: Buffer;
}

export interface BusProducer {
  connect(): Promise<void>;
  /**
   * Resolves only once every record is durable on the bus, in order; rejects with `BusUnavailableError`
   * when the bus cannot take them (the caller answers 503 and the sender retries).
   */
  publish(topic: string, records: OutgoingRecord[]): Promise<void>;
  /** True while the last contact with the bus succeeded. */
  isHealthy(): boolean;
  disconnect(): Promise<void>;
}

export interface ConsumeOptions {
  topic: string;
  /**
   * Asked every time consumption (re)starts — at start and after a rebalance or reconnect: the position of
   * the last record already applied, or null for the beginning. Records at or before it are not delivered
   * again (they might still be; handlers stay idempotent).
   */
  lastApplied: () => Promise<bigint | null>;
  /** Handles records in log order. Throwing pauses and retries the same batch after a back-off. */
  handleBatch: (records: BusRecord[]) => Promise<void>;
  /** Upper bound of records handed to one `handleBatch` call. */
  maxBatch?: number;
}

export interface BusConsumer {
  /** Starts consuming in the background; resolves once running. */
  start(opts: ConsumeOptions): Promise<void>;
  /** Position of the newest record in the topic (-1n when empty): for lag metrics and readiness. */
  headPosition(topic: string): Promise<bigint>;
  /** Stops after the batch in progress; resolves when no handler is running. */
  stop(): Promise<void>;
}

export interface Bus {
  readonly kind: 'kafka' | 'postgres';
  /** Creates missing topics with the design's settings (idempotent). */
  ensureTopics(topics: string[]): Promise<void>;
  producer(): BusProducer;
  consumer(groupId: string): BusConsumer;
  /**
   * The newest record of a topic, or null when the topic is empty (or does not exist yet). A producer that
   * follows another system's chain reads it to resume where it stopped, instead of publishing everything again.
   */
  lastRecord(topic: string): Promise<BusRecord | null>;
  close(): Promise<void>;
}

/** The bus could not accept or deliver right now; retrying later is right. */
export class BusUnavailableError extends Error {
  readonly retriable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BusUnavailableError';
  }
}
