import type { Logger } from 'pino';
import { encodeEnvelope, type BusProducer, type OutgoingRecord } from '@bda/bus';
import { checkNodeEvent } from './check-node-event';
import { parseRecordedTime, type RecordedEvent } from './node-event-file';

export interface ImportOptions {
  producer: BusProducer;
  logger: Logger;
  /** Most events in one publish (one Kafka produce request, one PostgreSQL insert). Default 500. */
  maxBatchEvents?: number;
  /** A batch is published once its bodies add up to this many bytes (a larger single event goes alone). Default 8 MiB. */
  maxBatchBytes?: number;
  /** Rows whose id is below this are skipped (resuming an import that stopped). */
  fromId?: bigint;
  /** What to do with a row the observer would answer 400: stop the import there (default), or skip it and go on. */
  onInvalid?: 'stop' | 'skip';
  /** Back-off before publishing a batch again after the bus failed (ms); doubles up to 5 s. Default 200. */
  retryBackoffMs?: number;
  /** Give up on a batch the bus keeps refusing after this long (ms). Default: retry forever. */
  maxRetryMs?: number;
  /** After each published batch: events made durable so far, and the last of them. */
  onProgress?: (imported: number, last: RecordedEvent) => void;
  signal?: AbortSignal;
}

export interface ImportSummary {
  /** Events published (durable on the bus). */
  imported: number;
  /** Rows before `fromId`. */
  skippedBeforeFrom: number;
  /** Invalid rows skipped (`onInvalid: 'skip'`), with the reason of each. */
  invalid: Array<{ id: string; path: string; reason: string }>;
  batches: number;
  retries: number;
  bytes: number;
  ms: number;
}

/** An invalid row under `onInvalid: 'stop'`: everything before it is on the bus, nothing from it on. */
export class ImportStoppedError extends Error {
  constructor(
    readonly event: RecordedEvent,
    readonly reason: string,
    readonly imported: number,
  ) {
    super(
      `row id ${event.id} (${event.path}) is invalid: ${reason}. The ${imported} events before it are on the bus; fix or drop the row and resume with --from-id ${event.id}`,
    );
    this.name = 'ImportStoppedError';
  }
}

interface Batch {
  topic: string;
  messages: OutgoingRecord[];
  bytes: number;
  last?: RecordedEvent;
}

/**
 * Publishes recorded node events (the TSV of `node-event-file`, as the reference API's `event_observer_requests`
 * export) straight onto the bus, without a node and without HTTP: the observer's second intake. Each row gets the
 * observer's own check (`checkNodeEvent`) and envelope, with the row's recorded receive time. Rows keep their order:
 * they are published in batches (one produce request each), one batch at a time, the next one being checked while
 * the previous is in flight. A batch the bus refuses is published again after a back-off; since the indexer applies
 * an event twice as once, a batch whose first attempt did land is harmless.
 */
export async function importEvents(
  events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>,
  opts: ImportOptions,
): Promise<ImportSummary> {
  const start = Date.now();
  const maxEvents = opts.maxBatchEvents ?? 500;
  const maxBytes = opts.maxBatchBytes ?? 8 * 1024 * 1024;
  const summary: ImportSummary = { imported: 0, skippedBeforeFrom: 0, invalid: [], batches: 0, retries: 0, bytes: 0, ms: 0 };
  let inFlight: Promise<void> = Promise.resolve();
  let batch: Batch | undefined;

  const publishWithRetry = async (b: Batch): Promise<void> => {
    const firstTry = Date.now();
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      try {
        await opts.producer.publish(b.topic, b.messages);
        break;
      } catch (err) {
        if ((err as { retriable?: boolean }).retriable === false) throw err;
        if (opts.maxRetryMs !== undefined && Date.now() - firstTry > opts.maxRetryMs) throw err;
        summary.retries += 1;
        const wait = Math.min((opts.retryBackoffMs ?? 200) * 2 ** Math.min(attempt, 5), 5_000);
        opts.logger.warn(
          { err: (err as Error).message, events: b.messages.length, waitMs: wait },
          'publishing a batch failed; retrying',
        );
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    summary.imported += b.messages.length;
    summary.batches += 1;
    summary.bytes += b.bytes;
    opts.onProgress?.(summary.imported, b.last!);
  };

  // One batch in flight at a time: a batch is only sent once the previous one is durable, so a failure never lets a
  // later batch overtake an earlier one.
  const send = async (): Promise<void> => {
    const b = batch;
    batch = undefined;
    await inFlight;
    if (b) inFlight = publishWithRetry(b);
  };

  try {
    for await (const event of events) {
      opts.signal?.throwIfAborted();
      if (opts.fromId !== undefined && compareIds(event.id, opts.fromId) < 0) {
        summary.skippedBeforeFrom += 1;
        continue;
      }
      let message: OutgoingRecord;
      let topic: string;
      try {
        const receivedAt = parseRecordedTime(event.receivedAt);
        if (!receivedAt) throw new Error(`receive time ${JSON.stringify(event.receivedAt.slice(0, 40))} is not a timestamp`);
        if (!event.path.startsWith('/')) throw new Error(`path ${JSON.stringify(event.path.slice(0, 80))} does not start with /`);
        const checked = checkNodeEvent(event.path, Buffer.from(event.body));
        topic = checked.topic;
        message = { key: checked.key, value: encodeEnvelope(event.path, receivedAt, checked.body) };
      } catch (err) {
        const reason = (err as Error).message;
        if (opts.onInvalid === 'skip') {
          summary.invalid.push({ id: event.id, path: event.path, reason });
          opts.logger.warn({ id: event.id, path: event.path, reason }, 'invalid row skipped');
          continue;
        }
        await send();
        await inFlight;
        throw new ImportStoppedError(event, reason, summary.imported);
      }
      const size = message.value.length;
      if (batch && (batch.topic !== topic || batch.messages.length >= maxEvents || batch.bytes + size > maxBytes)) await send();
      batch ??= { topic, messages: [], bytes: 0 };
      batch.messages.push(message);
      batch.bytes += size;
      batch.last = event;
    }
    await send();
    await inFlight;
  } finally {
    // A failure elsewhere leaves no publish running behind the caller's back.
    await inFlight.catch(() => {});
  }
  summary.ms = Date.now() - start;
  return summary;
}

/** Row ids are increasing integers; compared as numbers, any other id sorts as text. */
function compareIds(id: string, from: bigint): number {
  if (!/^\d+$/.test(id)) return id < from.toString() ? -1 : id > from.toString() ? 1 : 0;
  const n = BigInt(id);
  return n < from ? -1 : n > from ? 1 : 0;
}
