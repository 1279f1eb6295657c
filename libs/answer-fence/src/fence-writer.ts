import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { withTimeout, type Logger } from '@bda/common';
import { fenceKeys, LUA_NOW, type FenceKeys } from './fence-keys';
import { fenceConnection } from './redis-connection';

/**
 * How a fence ended: every holder acknowledged it; some holder's lease had to run out instead; or Redis could not be
 * reached, and the writer waited until no lease granted while it was last heard of could still run.
 */
export type FenceOutcome = 'acknowledged' | 'lapsed' | 'unreachable';

export interface FenceWriterOptions {
  /** `redis://…` shared by every writer and holder of the deployment. */
  url: string;
  prefix?: string;
  /** Unique per process (default: random). */
  id?: string;
  /**
   * How long one heartbeat lets holders be granted leases (ms). A writer that cannot reach Redis waits at most this
   * long after its last heartbeat before it commits unfenced: then no lease it allowed can still run.
   */
  heartbeatMs?: number;
  /** A writer whose heartbeat ran out this long ago is forgotten (crashed without saying so), ms. */
  pruneAfterMs?: number;
  /** A command that takes longer fails (Redis counts as unreachable for it), ms. */
  commandTimeoutMs?: number;
  logger?: Logger;
}

// Publishes the fence and returns the holders that must acknowledge it (those whose lease still runs).
const FENCE_SCRIPT = `${LUA_NOW}
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('PUBLISH', ARGV[2], ARGV[1])
return {now, redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')}`;

const HEARTBEAT_SCRIPT = `${LUA_NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return now`;

/**
 * The writer's side of the answer fence (ADR 0048): before a transaction that changes what the api answers commits,
 * `fence(epoch)` makes every gateway worker stop serving kept answers older than `epoch`. A holder that does not
 * acknowledge is waited for until its lease runs out, so that the commit never happens while an older answer could
 * still be served. While the writer's heartbeat runs, holders may be granted leases; when the writer loses Redis, its
 * heartbeat stops and every lease ends with it.
 */
export class FenceWriter {
  readonly id: string;
  private readonly keys: FenceKeys;
  private readonly heartbeatMs: number;
  private readonly pruneAfterMs: number;
  private readonly redis: Redis;
  private readonly blocking: Redis;
  /** Until when (performance.now()) a lease allowed by this writer's heartbeats may run. */
  private leasesEnd = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: FenceWriterOptions) {
    this.id = opts.id ?? `writer-${randomUUID()}`;
    this.keys = fenceKeys(opts.prefix);
    this.heartbeatMs = opts.heartbeatMs ?? 3_000;
    this.pruneAfterMs = opts.pruneAfterMs ?? 60_000;
    const timeout = opts.commandTimeoutMs ?? 250;
    this.redis = fenceConnection(opts.url, timeout);
    this.blocking = fenceConnection(opts.url, undefined);
  }

  /** Starts the heartbeat; resolves after the first attempt (a writer that cannot reach Redis still starts). */
  async start(): Promise<void> {
    await Promise.all([whenReady(this.redis), whenReady(this.blocking)]);
    await this.beat();
    this.timer = setInterval(() => void this.beat(), Math.max(50, Math.floor(this.heartbeatMs / 3)));
    this.timer.unref();
  }

  /**
   * Call inside the writing transaction after its last write and right before COMMIT, with the epoch the transaction
   * gives the data: resolves once no holder may serve an answer of an older epoch. Never throws.
   */
  async fence(epoch: number): Promise<FenceOutcome> {
    let now: number;
    let holders: string[];
    let replied: number;
    try {
      [now, holders] = (await this.redis.eval(
        FENCE_SCRIPT,
        2,
        this.keys.epoch,
        this.keys.holders,
        String(epoch),
        this.keys.channel,
      )) as [number, string[]];
      replied = performance.now();
    } catch (err) {
      // The script may have run or not: wait until no lease allowed by this writer's heartbeats can run (a holder
      // that heard the fence has stopped anyway). Once that time is past, a writer cut off from Redis waits no more.
      if (isTimeout(err)) this.redis.disconnect(true);
      this.opts.logger?.warn({ err: { message: (err as Error).message }, epoch }, 'answer fence: redis unreachable');
      await sleepUntil(this.leasesEnd);
      return 'unreachable';
    }
    // Each holder's lease ends at its score on Redis's clock: `score - now` after the reply at the latest.
    const pending = new Map<string, number>();
    for (let i = 0; i < holders.length; i += 2) pending.set(holders[i]!, replied + (Number(holders[i + 1]) - now) + 1);
    return this.awaitAcks(epoch, pending);
  }

  private async awaitAcks(epoch: number, pending: Map<string, number>): Promise<FenceOutcome> {
    const key = this.keys.acks(epoch);
    let lapsed = false;
    for (;;) {
      const t = performance.now();
      for (const [id, end] of pending) {
        if (end <= t) {
          pending.delete(id);
          lapsed = true;
        }
      }
      if (pending.size === 0) return lapsed ? 'lapsed' : 'acknowledged';
      const until = Math.min(...pending.values());
      const seconds = Math.max(0.001, (until - t) / 1000);
      let popped: [string, string] | null | 'broken';
      try {
        // Guarded too: a connection cut without a reset never answers.
        popped = await withTimeout(seconds * 1000 + 250, () => this.blocking.blpop(key, seconds));
      } catch {
        popped = 'broken';
      }
      if (popped === 'broken') {
        // The acknowledgements cannot be read: wait for every lease instead.
        this.blocking.disconnect(true);
        await sleepUntil(Math.max(...pending.values()));
        return 'lapsed';
      }
      if (popped !== null) pending.delete(popped[1]);
    }
  }

  /** Stops the heartbeat and leaves the writers' set (holders no longer wait for this writer). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    await this.redis.zrem(this.keys.writers, this.id).catch(() => undefined);
    this.blocking.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private beat(): Promise<void> {
    if (this.stopped || this.beating) return this.beating ?? Promise.resolve();
    this.beating = (async () => {
      const sent = this.redis.status === 'ready';
      try {
        await this.redis.eval(
          HEARTBEAT_SCRIPT,
          1,
          this.keys.writers,
          this.id,
          String(this.heartbeatMs),
          String(this.pruneAfterMs),
        );
      } catch (err) {
        // Never sent (not connected): it allowed nothing. Sent without a reply: it may have run, so it counts below;
        // the connection is dropped so that, while Redis stays away, later heartbeats are not sent and do not count.
        if (!sent) return;
        if (isTimeout(err)) this.redis.disconnect(true);
      }
      // A heartbeat that ran did so before now, and allows leases until heartbeatMs after it ran.
      this.leasesEnd = Math.max(this.leasesEnd, performance.now() + this.heartbeatMs);
    })().finally(() => (this.beating = undefined));
    return this.beating;
  }
}

/** Resolves once `redis` is connected, or after 2 s (a writer that cannot reach Redis still starts). */
function whenReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return withTimeout(2_000, () => new Promise<void>((resolve) => redis.once('ready', () => resolve()))).catch(() => undefined);
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && /timed? ?out/i.test(err.message);
}

function sleepUntil(t: number): Promise<void> {
  const ms = t - performance.now();
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, Math.ceil(ms)));
}
