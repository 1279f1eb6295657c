import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '@bda/common';
import { fenceKeys, LUA_NOW, type FenceKeys } from './fence-keys';
import { fenceConnection } from './redis-connection';

export interface FenceHolderOptions {
  /** `redis://…` shared by every writer and holder of the deployment. */
  url: string;
  prefix?: string;
  /** Unique per process (default: random). */
  id?: string;
  /** The longest lease asked for, ms; renewed four times per lease. A writer waits at most this long for a holder. */
  leaseMs?: number;
  /** A command that takes longer fails, ms. */
  commandTimeoutMs?: number;
  /**
   * Called when every answer kept until now must go: a fence raised the epoch (they are older than what may be
   * served), or the subscription was lost (a fence may have gone unheard; the epoch is then the last one heard).
   */
  onFence?: (epoch: number) => void;
  logger?: Logger;
}

// Grants a lease that ends no later than any live writer's heartbeat (none without a writer), and says which epoch
// was fenced last.
const RENEW_SCRIPT = `${LUA_NOW}
local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')
local w = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local lease = 0
if #w == 2 then lease = math.min(tonumber(ARGV[2]), tonumber(w[2]) - now) end
if lease <= 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {0, epoch}
end
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
return {lease, epoch}`;

/**
 * The gateway worker's side of the answer fence (ADR 0048). `servingEpoch()` is the data epoch whose kept answers may
 * be served at this instant: defined only while the holder is subscribed to fences, holds a lease, and has heard of
 * a fence. It holds a lease only while it has been subscribed since asking for it, so it hears every fence that a
 * writer counts on it for; it acknowledges each one after it has stopped serving older answers.
 */
export class FenceHolder {
  readonly id: string;
  private readonly keys: FenceKeys;
  private readonly leaseMs: number;
  private readonly redis: Redis;
  private readonly sub: Redis;
  /** The highest epoch fenced that this holder knows of (0: none). */
  private fenced = 0;
  /** Until when (performance.now()) the lease runs. */
  private leaseUntil = 0;
  private subscribed = false;
  /** Changes whenever the subscription is lost or made again: a lease asked for before does not count. */
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: FenceHolderOptions) {
    this.id = opts.id ?? `holder-${randomUUID()}`;
    this.keys = fenceKeys(opts.prefix);
    this.leaseMs = opts.leaseMs ?? 1_000;
    this.redis = fenceConnection(opts.url, opts.commandTimeoutMs ?? 250);
    this.sub = fenceConnection(opts.url, undefined);
    this.sub.on('message', (_channel: string, message: string) => this.heard(Number(message)));
    this.sub.on('ready', () => void this.subscribe());
    this.sub.on('close', () => this.lost());
  }

  /** Starts asking for leases (the subscription is made as soon as the connection is ready). */
  start(): void {
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(this.leaseMs / 4)));
    this.timer.unref();
  }

  /** The epoch whose answers may be served now, or undefined. */
  servingEpoch(): number | undefined {
    return this.subscribed && this.fenced > 0 && performance.now() < this.leaseUntil ? this.fenced : undefined;
  }

  /** Gives the lease back (writers stop waiting for this holder) and closes the connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.leaseUntil = 0;
    if (this.timer) clearInterval(this.timer);
    await this.redis.zrem(this.keys.holders, this.id).catch(() => undefined);
    this.sub.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async subscribe(): Promise<void> {
    const generation = ++this.generation;
    try {
      await this.sub.subscribe(this.keys.channel);
    } catch {
      return; // the connection went away again: 'ready' comes back with it
    }
    if (generation !== this.generation || this.stopped) return;
    this.subscribed = true;
    void this.renew();
  }

  private lost(): void {
    this.subscribed = false;
    this.leaseUntil = 0;
    this.generation++;
    // While unsubscribed a writer may commit without this holder (once its lease ran out): nothing kept may outlive
    // that, even if the epoch heard next (a restarted Redis starts from nothing) is not higher.
    this.opts.onFence?.(this.fenced);
  }

  private heard(epoch: number): void {
    if (!Number.isSafeInteger(epoch) || epoch <= 0) return;
    this.raise(epoch);
    // Acknowledged after the epoch is raised: from now on nothing older is served.
    const key = this.keys.acks(epoch);
    this.redis
      .multi()
      .rpush(key, this.id)
      .pexpire(key, 60_000)
      .exec()
      .catch(() => undefined); // the writer waits for the lease instead
  }

  private raise(epoch: number): void {
    if (epoch <= this.fenced) return;
    this.fenced = epoch;
    this.opts.onFence?.(epoch);
  }

  /** Asks for a lease now (and waits for the answer); the holder also does so four times per lease on its own. */
  async refresh(): Promise<void> {
    await this.renewing;
    await this.renew();
  }

  private renew(): Promise<void> {
    if (!this.subscribed || this.renewing || this.stopped) return this.renewing ?? Promise.resolve();
    this.renewing = this.askLease().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async askLease(): Promise<void> {
    const generation = this.generation;
    const asked = performance.now();
    try {
      const [lease, epoch] = (await this.redis.eval(
        RENEW_SCRIPT,
        3,
        this.keys.writers,
        this.keys.holders,
        this.keys.epoch,
        this.id,
        String(this.leaseMs),
      )) as [number, number];
      this.raise(epoch);
      // The lease runs from when Redis granted it, which is after it was asked for: counted from then, less 1 %.
      if (generation === this.generation && this.subscribed && !this.stopped) this.leaseUntil = asked + lease * 0.99;
    } catch (err) {
      this.opts.logger?.debug({ err: { message: (err as Error).message } }, 'answer fence: lease not renewed');
    }
  }
}
