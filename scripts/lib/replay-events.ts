import { EventPoster } from './event-poster';
import { readNodeEventFile, type RecordedEvent } from '@bda/observer';

export interface ReplayOptions {
  observerUrl: string;
  /** Called after each event is accepted (200). */
  onProgress?: (done: number, event: RecordedEvent) => void;
  /** Called when a POST is refused or fails; the same event is retried after a back-off. */
  onRetry?: (event: RecordedEvent, reason: string, attempt: number) => void;
  /** Give up on one event after this long (ms); default: retry forever, as a node does. */
  maxRetryMs?: number;
  signal?: AbortSignal;
}

export interface ReplaySummary {
  events: number;
  retries: number;
  ms: number;
}

/**
 * Posts recorded events to an observer in order, as a node does: one at a time, each retried until
 * it is answered 200. A 4xx other than 408/429 is a permanent refusal and stops the replay.
 */
export async function replayEvents(
  events: AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>,
  opts: ReplayOptions,
): Promise<ReplaySummary> {
  const start = Date.now();
  let done = 0;
  let retries = 0;
  const base = opts.observerUrl.replace(/\/$/, '');
  const poster = new EventPoster();
  try {
    for await (const event of events) {
      let attempt = 0;
      const firstTry = Date.now();
      for (;;) {
        opts.signal?.throwIfAborted();
        let reason: string;
        try {
          const res = await poster.post(base + event.path, event.body, opts.signal);
          if (res.status === 200) break;
          reason = `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
            throw new Error(`observer refused event ${event.id} (${event.path}): ${reason}`);
          }
        } catch (err) {
          if ((err as Error).message.startsWith('observer refused') || opts.signal?.aborted) throw err;
          reason = (err as Error).message;
        }
        attempt += 1;
        retries += 1;
        opts.onRetry?.(event, reason, attempt);
        if (opts.maxRetryMs !== undefined && Date.now() - firstTry > opts.maxRetryMs) {
          throw new Error(`gave up on event ${event.id} (${event.path}) after ${attempt} tries: ${reason}`);
        }
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** Math.min(attempt, 6), 5_000)));
      }
      done += 1;
      opts.onProgress?.(done, event);
    }
  } finally {
    poster.close();
  }
  return { events: done, retries, ms: Date.now() - start };
}

export function replayFile(file: string, opts: ReplayOptions): Promise<ReplaySummary> {
  return replayEvents(readNodeEventFile(file), opts);
}
