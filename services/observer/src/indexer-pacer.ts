import { Agent, request } from 'node:http';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface IndexerPacerOptions {
  /** Base URL of an indexer's HTTP server (any replica): its `GET /progress` tells how far a topic is applied. */
  indexerUrl: string;
  /** The api may trail the node by this much (ms) before a POST is held. 0: every POST waits for its own event. */
  maxStalenessMs: number;
  /** Longest one POST is held (ms); keep it well below the node's `timeout_ms`. */
  maxHoldMs: number;
  /** Beyond this staleness (ms) the indexer is catching up from far behind, and POSTs are not held at all. */
  giveUpMs: number;
  logger: Logger;
  metrics: Registry;
  /** How long past `wait_ms` the indexer's answer may take before it counts as unreachable (ms); 100 by default. */
  answerGraceMs?: number;
}

/** The indexer's answer, as far as the pacer reads it. */
interface Progress {
  position: string | null;
  receivedAtMs: number | null;
}

interface TopicState {
  /** Receive times (ms) of events published here and not yet known applied, oldest first. */
  pending: number[];
  /** Receive time of the newest event known applied. */
  appliedMs: number;
  appliedPosition: string | null;
  /** No POST on this topic is held until then (its indexer was unreachable or stalled). */
  quietUntil: number;
  /** A background long poll (`watch`) is in flight. */
  watching: boolean;
}

/** After an unreachable or stalled indexer, how long POSTs go unheld before pacing tries again. */
export const PACER_QUIET_MS = 5_000;
/** Longest wait of the pacer's background long poll: while the indexer makes no progress, one request a second. */
export const PACER_WATCH_MS = 1_000;
/** How long past `wait_ms` the indexer's answer may take before it counts as unreachable, unless told otherwise. */
const ANSWER_GRACE_MS = 100;
/** Pending receive times kept per topic; beyond it the list is thinned, always keeping the oldest. */
const MAX_PENDING = 4_096;

type SkipReason = 'far_behind' | 'hold_limit' | 'stalled' | 'unreachable' | 'quiet';

/**
 * Bounded staleness (ADR 0015). The bus lets the node run ahead of the indexer by any amount; this keeps the api
 * within `maxStalenessMs` of what the node has sent while the indexer is keeping up or nearly so. Once an event is
 * durable on the bus (the 200 is owed from then on, and nothing can be lost), its POST is answered only when the
 * oldest event still waiting for the indexer is younger than `maxStalenessMs`, or after `maxHoldMs`. The node sends
 * one event at a time, so holding its answers paces it to the indexer.
 *
 * It never holds when holding would not help or would hurt: with the indexer unreachable or not advancing (a
 * restart, a database outage), it stops holding for `PACER_QUIET_MS` and the bus buffers; beyond `giveUpMs` of
 * staleness the indexer is replaying a backlog and the node runs free until it is close again.
 */
export class IndexerPacer {
  private readonly topics = new Map<string, TopicState>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private closed = false;
  private readonly held: Histogram;
  private readonly skipped: Counter<'reason'>;

  constructor(private readonly opts: IndexerPacerOptions) {
    this.held = new Histogram({
      name: 'observer_pace_hold_seconds',
      help: 'Time a POST was held after its event was durable, waiting for the indexer (bounded staleness)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [opts.metrics],
    });
    this.skipped = new Counter({
      name: 'observer_pace_skipped_total',
      help: 'POSTs answered with the api further behind than the staleness budget, by reason',
      labelNames: ['reason'],
      registers: [opts.metrics],
    });
  }

  /**
   * Called once the event received at `receivedAtMs` is durable on `topic`; resolves when its POST may be answered.
   * Never rejects.
   */
  async afterPublish(topic: string, receivedAtMs: number): Promise<void> {
    const st = this.state(topic);
    insertSorted(st.pending, receivedAtMs);
    const start = Date.now();
    const deadline = start + this.opts.maxHoldMs;
    // Progress is learned here and by the background watch alike: compare with what was known when the hold began.
    const positionAtStart = st.appliedPosition;
    let asked = false;
    let reason: SkipReason | null = null;
    for (;;) {
      dropApplied(st);
      if (st.pending.length === 0) break;
      const now = Date.now();
      const staleness = now - st.pending[0]!;
      // Within the budget means younger than it: with a budget of 0, an event stamped this very millisecond waits too.
      if (staleness < this.opts.maxStalenessMs) break;
      if (staleness > this.opts.giveUpMs) {
        reason = 'far_behind';
        break;
      }
      if (now < st.quietUntil) {
        reason = 'quiet';
        break;
      }
      const left = deadline - now;
      if (left <= 0) {
        // Nothing known at the start (the first answer ever) counts as progress: a stall shows on the next hold.
        if (positionAtStart !== null && st.appliedPosition === positionAtStart) {
          reason = 'stalled';
          this.quiet(st, `the indexer applied nothing on ${topic} for ${this.opts.maxHoldMs} ms`);
        } else reason = 'hold_limit';
        break;
      }
      // Wait for just enough: the newest pending event that is already over the budget.
      const cutoff = now - this.opts.maxStalenessMs;
      let covers = st.pending[0]!;
      for (const t of st.pending) {
        if (t > cutoff) break;
        covers = t;
      }
      let progress: Progress;
      asked = true;
      try {
        progress = await this.fetchProgress(topic, covers, left);
      } catch (err) {
        reason = 'unreachable';
        this.quiet(st, `cannot ask the indexer how far it is on ${topic}: ${(err as Error).message}`);
        break;
      }
      learn(st, progress);
    }
    if (asked) this.held.observe((Date.now() - start) / 1000);
    if (reason) this.skipped.inc({ reason });
    this.watch(topic, st);
  }

  /**
   * Keeps what the pacer knows current without holding anybody: while events are pending, one long poll at a time
   * waits (up to `PACER_WATCH_MS`) for the newest of them to be applied. Without it, the pacer learned of progress only
   * inside a hold: on a node posting every few seconds each POST found the previous event "old" and asked the indexer
   * before its answer, and once too far behind to pace it would never have learned that the indexer caught up.
   */
  private watch(topic: string, st: TopicState): void {
    dropApplied(st);
    if (this.closed || st.watching || st.pending.length === 0 || Date.now() < st.quietUntil) return;
    st.watching = true;
    const started = Date.now();
    this.fetchProgress(topic, st.pending[st.pending.length - 1]!, PACER_WATCH_MS)
      .then((progress) => learn(st, progress))
      .catch((err: unknown) => {
        if (!this.closed) this.quiet(st, `cannot ask the indexer how far it is on ${topic}: ${(err as Error).message}`);
      })
      .finally(() => {
        st.watching = false;
        // Never faster than one poll a `PACER_WATCH_MS` while nothing new is applied, whatever the answer's timing.
        setTimeout(() => this.watch(topic, st), Math.max(0, started + PACER_WATCH_MS - Date.now())).unref();
      });
  }

  private state(topic: string): TopicState {
    let st = this.topics.get(topic);
    if (!st) {
      st = { pending: [], appliedMs: -Infinity, appliedPosition: null, quietUntil: 0, watching: false };
      this.topics.set(topic, st);
    }
    return st;
  }

  private quiet(st: TopicState, why: string): void {
    if (Date.now() >= st.quietUntil) {
      this.opts.logger.warn({ quietMs: PACER_QUIET_MS }, `${why}; answering POSTs without waiting for it for a while`);
    }
    st.quietUntil = Date.now() + PACER_QUIET_MS;
  }

  /**
   * One `GET /progress`, over node:http with a kept-alive connection. Not `fetch`: the observer has no other use for
   * it, and loading undici on the first hold cost the observer about 60 ms of CPU.
   */
  private fetchProgress(topic: string, coversMs: number, waitMs: number): Promise<Progress> {
    const url = new URL('/progress', this.opts.indexerUrl);
    url.searchParams.set('topic', topic);
    if (Number.isFinite(coversMs)) url.searchParams.set('covers', String(coversMs));
    url.searchParams.set('wait_ms', String(Math.min(Math.max(0, Math.ceil(waitMs)), 5_000)));
    return new Promise<Progress>((resolve, reject) => {
      const req = request(url, { agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            if (res.statusCode !== 200) throw new Error(`GET /progress answered ${res.statusCode}: ${text.slice(0, 200)}`);
            const body = JSON.parse(text) as { position?: unknown; received_at?: unknown };
            const receivedAtMs = typeof body.received_at === 'string' ? Date.parse(body.received_at) : NaN;
            resolve({
              position: typeof body.position === 'string' ? body.position : null,
              receivedAtMs: Number.isFinite(receivedAtMs) ? receivedAtMs : null,
            });
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
      // The indexer answers by `wait_ms` itself; one that does not is frozen or overloaded, and holding on helps nobody.
      const limitMs = waitMs + (this.opts.answerGraceMs ?? ANSWER_GRACE_MS);
      req.setTimeout(limitMs, () => req.destroy(new Error(`no answer within ${limitMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Stops the background polls and closes the kept-alive connections to the indexer. */
  close(): void {
    this.closed = true;
    this.agent.destroy();
  }
}

function insertSorted(list: number[], t: number): void {
  if (list.length === 0 || list[list.length - 1]! <= t) list.push(t);
  else
    list.splice(
      list.findIndex((x) => x > t),
      0,
      t,
    );
  if (list.length > MAX_PENDING) {
    // Thin the middle, keep the oldest (it decides the staleness) and the newest.
    const kept = list.filter((_, i) => i === 0 || i === list.length - 1 || i % 2 === 0);
    list.splice(0, list.length, ...kept);
  }
}

function learn(st: TopicState, progress: Progress): void {
  if (progress.receivedAtMs !== null && progress.receivedAtMs > st.appliedMs) st.appliedMs = progress.receivedAtMs;
  st.appliedPosition = progress.position;
}

function dropApplied(st: TopicState): void {
  let n = 0;
  while (n < st.pending.length && st.pending[n]! <= st.appliedMs) n++;
  if (n > 0) st.pending.splice(0, n);
}
