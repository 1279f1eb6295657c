import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createLogger, createMetricsRegistry } from '@bda/common';
import type { Registry } from 'prom-client';
import { IndexerPacer, PACER_WATCH_MS, type IndexerPacerOptions } from './indexer-pacer';

/**
 * A fake indexer speaking `GET /progress` as the real one does: it answers as soon as the record received at `covers`
 * is applied, or when `wait_ms` runs out, with the progress as it stands.
 */
class FakeIndexer {
  server!: Server;
  url = '';
  position = 10;
  appliedMs = 0;
  requests: URLSearchParams[] = [];
  private waiting: Array<{ covers: number; res: ServerResponse; timer: NodeJS.Timeout }> = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      this.requests.push(q);
      const covers = Number(q.get('covers'));
      if (this.appliedMs >= covers) return this.answer(res, covers);
      const timer = setTimeout(() => this.release(res), Number(q.get('wait_ms')));
      this.waiting.push({ covers, res, timer });
    });
    this.server.listen(0, '127.0.0.1');
    await new Promise((r) => this.server.once('listening', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Applies everything received up to `ms`, one more position. */
  apply(ms: number): void {
    this.position++;
    this.appliedMs = Math.max(this.appliedMs, ms);
    for (const w of [...this.waiting]) if (this.appliedMs >= w.covers) this.release(w.res);
  }

  private release(res: ServerResponse): void {
    const w = this.waiting.find((x) => x.res === res);
    if (w) clearTimeout(w.timer);
    this.waiting = this.waiting.filter((x) => x.res !== res);
    this.answer(res, w?.covers ?? Infinity);
  }

  private answer(res: ServerResponse, covers: number): void {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        topic: 'stacks.node-events',
        position: String(this.position),
        received_at: new Date(this.appliedMs).toISOString(),
        covered: this.appliedMs >= covers,
      }),
    );
  }

  async stop(): Promise<void> {
    for (const w of this.waiting) this.release(w.res);
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

const TOPIC = 'stacks.node-events';

describe('IndexerPacer', () => {
  let indexer: FakeIndexer;
  let metrics: Registry;
  let made: IndexerPacer[] = [];
  const pacer = (opts: Partial<IndexerPacerOptions> = {}) =>
    track(
      new IndexerPacer({
        indexerUrl: indexer.url,
        maxStalenessMs: 500,
        maxHoldMs: 2_000,
        giveUpMs: 10_000,
        logger: createLogger('observer', 'silent'),
        metrics,
        // The fake indexer answers in time; on a loaded machine (make test runs two lanes) its answer can still come
        // later than the default 100 ms past `wait_ms`, which would read as an unreachable indexer.
        answerGraceMs: 5_000,
        ...opts,
      }),
    );
  const track = (p: IndexerPacer) => (made.push(p), p);
  /** The background long polls: no covers older than what it holds for, and the watch's own wait. */
  const watches = () => indexer.requests.filter((q) => q.get('wait_ms') === String(PACER_WATCH_MS));
  const skipped = async () =>
    Object.fromEntries(
      (await metrics.getSingleMetric('observer_pace_skipped_total')!.get()).values.map((v) => [v.labels.reason, v.value]),
    );
  /**
   * False while `p` is still pending after a few turns of the event loop: only used to show that something is held
   * (a slower machine can only make it hold longer). That something is answered is shown by awaiting it, and that it
   * was not merely let go at the hold limit by the skip counters.
   */
  const settledSoon = async (p: Promise<unknown>) => {
    let done = false;
    void p.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 50));
    return done;
  };

  beforeEach(async () => {
    metrics = createMetricsRegistry('observer');
    indexer = new FakeIndexer();
    await indexer.start();
  });
  afterEach(async () => {
    for (const p of made) p.close();
    made = [];
    await indexer.stop();
  });

  it('answers at once while the api trails by less than the budget, and learns the progress in the background', async () => {
    const p = pacer();
    const first = Date.now();
    await p.afterPublish(TOPIC, first);
    await p.afterPublish(TOPIC, Date.now() - 400);
    expect(await skipped()).toEqual({});
    // One long poll in the background, for the newest event it had then (it reaches the indexer a moment later).
    for (let i = 0; i < 2_000 && watches().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(watches().map((q) => Number(q.get('covers')))).toEqual([first]);
  });

  it('does not ask before answering a POST that follows a quiet spell, once its last event is known applied', async () => {
    const p = pacer({ maxStalenessMs: 50 });
    const earlier = Date.now();
    await p.afterPublish(TOPIC, earlier);
    indexer.apply(earlier);
    // Long enough for the earlier event to be older than the budget.
    await new Promise((r) => setTimeout(r, 100));
    const asked = indexer.requests.length;
    // The earlier event is older than the budget, but the watch already learned it was applied: no hold, no question.
    await p.afterPublish(TOPIC, Date.now());
    expect(indexer.requests.slice(asked).every((q) => q.get('wait_ms') === String(PACER_WATCH_MS))).toBe(true);
    expect(await skipped()).toEqual({});
  });

  it('holds a POST while the oldest unapplied event is over the budget, until the indexer applies it', async () => {
    const p = pacer();
    const stale = Date.now() - 800;
    const fresh = Date.now();
    const held = Promise.all([p.afterPublish(TOPIC, stale), p.afterPublish(TOPIC, fresh)]);
    expect(await settledSoon(held)).toBe(false);
    // Both wait for just the events over the budget: the stale one, not the fresh one.
    expect(indexer.requests.map((q) => Number(q.get('covers')))).toEqual([stale, stale]);
    expect(indexer.requests.every((q) => q.get('topic') === TOPIC)).toBe(true);
    indexer.apply(stale);
    await held;
    expect(await skipped()).toEqual({});
  });

  it('with a budget of zero, answers each POST only once its own event is applied', async () => {
    const p = pacer({ maxStalenessMs: 0 });
    const at = Date.now() - 1;
    const held = p.afterPublish(TOPIC, at);
    expect(await settledSoon(held)).toBe(false);
    indexer.apply(at - 1);
    expect(await settledSoon(held)).toBe(false);
    indexer.apply(at);
    await held;
    // Let go because its event was applied, not at the hold limit.
    expect(await skipped()).toEqual({});
  });

  it('with a budget of zero, holds an event stamped this very millisecond too', async () => {
    const p = pacer({ maxStalenessMs: 0 });
    const now = Date.now();
    const held = p.afterPublish(TOPIC, now);
    expect(await settledSoon(held)).toBe(false);
    indexer.apply(now);
    await held;
    expect(await skipped()).toEqual({});
  });

  it('lets a POST go after the longest hold when the indexer advances but not far enough', async () => {
    const p = pacer({ maxHoldMs: 200 });
    const stale = Date.now() - 800;
    const held = p.afterPublish(TOPIC, stale);
    indexer.apply(stale - 100);
    await held;
    expect(await skipped()).toEqual({ hold_limit: 1 });
  });

  it('stops holding for a while when the indexer applies nothing during a whole hold', async () => {
    const p = pacer({ maxHoldMs: 150 });
    await p.afterPublish(TOPIC, Date.now() - 800);
    // The first answer only tells where the indexer is; the next hold finds no progress on top of it.
    expect(await skipped()).toEqual({ hold_limit: 1 });
    await p.afterPublish(TOPIC, Date.now() - 700);
    expect(await skipped()).toEqual({ hold_limit: 1, stalled: 1 });
    const asked = indexer.requests.length;
    await p.afterPublish(TOPIC, Date.now() - 600);
    expect(indexer.requests).toHaveLength(asked);
    expect(await skipped()).toEqual({ hold_limit: 1, stalled: 1, quiet: 1 });
  });

  it('counts progress the background watch learned during a hold as progress, not as a stall', async () => {
    const p = pacer({ maxHoldMs: 200 });
    const x = Date.now() - 800;
    await p.afterPublish(TOPIC, x);
    expect(await skipped()).toEqual({ hold_limit: 1 });
    // The watch now waits for x; the next hold waits for y. x gets applied during that hold, y does not.
    const held = p.afterPublish(TOPIC, Date.now() - 700);
    await new Promise((r) => setTimeout(r, 50));
    indexer.apply(x);
    await held;
    expect(await skipped()).toEqual({ hold_limit: 2 });
  });

  it('answers at once when the indexer cannot be reached, and stops asking for a while', async () => {
    const p = pacer({ indexerUrl: 'http://127.0.0.1:9' });
    await p.afterPublish(TOPIC, Date.now() - 800);
    await p.afterPublish(TOPIC, Date.now() - 800);
    expect(await skipped()).toEqual({ unreachable: 1, quiet: 1 });
  });

  it('does not hold while the indexer is replaying a backlog beyond the give-up staleness', async () => {
    const p = pacer({ giveUpMs: 5_000 });
    await p.afterPublish(TOPIC, Date.now() - 6_000);
    await p.afterPublish(TOPIC, Date.now());
    expect(await skipped()).toEqual({ far_behind: 2 });
    // Only the background watch asked.
    expect(indexer.requests.length).toBe(watches().length);
  });

  it('paces again once an indexer that was too far behind has caught up', async () => {
    const p = pacer({ giveUpMs: 5_000 });
    await p.afterPublish(TOPIC, Date.now() - 6_000);
    expect(await skipped()).toEqual({ far_behind: 1 });
    // Caught up to two seconds ago: the watch learns it, without any POST waiting.
    indexer.apply(Date.now() - 2_000);
    await new Promise((r) => setTimeout(r, 50));
    const stale = Date.now() - 800;
    const held = p.afterPublish(TOPIC, stale);
    expect(await settledSoon(held)).toBe(false);
    indexer.apply(stale);
    await held;
    expect(await skipped()).toEqual({ far_behind: 1 });
  });

  it('forgets events once the indexer reports them applied', async () => {
    const p = pacer();
    const stale = Date.now() - 800;
    indexer.apply(stale);
    await p.afterPublish(TOPIC, stale);
    const holds = () => indexer.requests.filter((q) => q.get('wait_ms') !== String(PACER_WATCH_MS));
    expect(holds()).toHaveLength(1);
    // Known applied now: a fresh event alone is within the budget, no hold asks.
    await p.afterPublish(TOPIC, Date.now());
    expect(holds()).toHaveLength(1);
    expect(await skipped()).toEqual({});
  });
});
