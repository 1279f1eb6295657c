import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { freePort, startRedis, testInfra, type RunningRedis } from '@bda/test-support';
import { FenceHolder, FenceWriter, fenceKeys } from '../src';

/** Polls `check` until it is true (a state to reach, not a time to meet); fails after 10 s. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Redis's clock in ms. */
async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/**
 * A TCP hop to Redis that a test can cut (sockets reset: the client sees its connection close) or black-hole (bytes
 * are held both ways and the connections stay open: a partition, which no client notices but by its timeouts; when
 * it heals, the held bytes go on, as TCP would retransmit them).
 */
class RedisHop {
  private readonly sockets = new Set<Socket>();
  private holes = false;
  private held: Array<() => void> = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<RedisHop> {
    const { hostname, port } = new URL(target);
    const listen = await freePort();
    const hop = new RedisHop(createServer(), `redis://127.0.0.1:${listen}`);
    hop.server.on('connection', (client: Socket) => {
      const upstream = connect(Number(port), hostname);
      for (const s of [client, upstream]) {
        hop.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          hop.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      const relay = (to: Socket) => (d: Buffer) => {
        if (hop.holes) hop.held.push(() => to.write(d));
        else to.write(d);
      };
      client.on('data', relay(upstream));
      upstream.on('data', relay(client));
    });
    await new Promise<void>((resolve) => hop.server.listen(listen, '127.0.0.1', resolve));
    return hop;
  }

  blackHole(on: boolean): void {
    this.holes = on;
    if (!on) for (const send of this.held.splice(0)) send();
  }

  cut(): void {
    this.held = [];
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('answer fence', () => {
  const { redisUrl } = testInfra();
  let redis: Redis;
  let prefix: string;
  const stops: Array<() => Promise<unknown>> = [];
  const writer = (opts: Partial<ConstructorParameters<typeof FenceWriter>[0]> = {}) => {
    const w = new FenceWriter({ url: redisUrl, prefix, heartbeatMs: 600, ...opts });
    stops.push(() => w.stop());
    return w;
  };
  const holder = (opts: Partial<ConstructorParameters<typeof FenceHolder>[0]> = {}) => {
    const h = new FenceHolder({ url: redisUrl, prefix, leaseMs: 400, ...opts });
    stops.push(() => h.stop());
    h.start();
    return h;
  };

  beforeAll(() => {
    redis = new Redis(redisUrl);
  });
  beforeEach(() => {
    prefix = `test:fence:${randomUUID()}:`;
  });
  afterEach(async () => {
    while (stops.length > 0) await stops.pop()!();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('serves nothing while no writer heartbeats, even after a fence was published', async () => {
    const h = holder();
    await until(async () => (await redis.pubsub('NUMSUB', fenceKeys(prefix).channel))[1] === 1, 'holder subscribed');
    await redis.set(fenceKeys(prefix).epoch, '7');
    await h.refresh();
    expect(h.servingEpoch()).toBeUndefined();
    expect(await redis.zscore(fenceKeys(prefix).holders, h.id)).toBeNull();
  });

  it('resolves a fence once every holder acknowledged it, and every holder then serves that epoch', async () => {
    const w = writer();
    await w.start();
    const a = holder();
    const b = holder();
    await until(() => a.servingEpoch() === undefined && b.servingEpoch() === undefined, 'holders start empty');
    await until(async () => (await redis.zcard(fenceKeys(prefix).holders)) === 2, 'both holders leased');
    for (const epoch of [1, 2, 3]) {
      expect(await w.fence(epoch)).toBe('acknowledged');
      expect([a.servingEpoch(), b.servingEpoch()]).toEqual([epoch, epoch]);
    }
    expect(await redis.get(fenceKeys(prefix).epoch)).toBe('3');
  });

  it('calls onFence when the epoch rises, never for an epoch already heard', async () => {
    const w = writer();
    await w.start();
    const raised: number[] = [];
    const h = holder({ onFence: (e) => raised.push(e) });
    await until(async () => (await redis.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased');
    await w.fence(4);
    await w.fence(4);
    await w.fence(2);
    await w.fence(5);
    expect(raised).toEqual([4, 5]);
    expect(h.servingEpoch()).toBe(5);
  });

  it('waits for a holder that never acknowledges until its lease has run out on Redis', async () => {
    const w = writer();
    await w.start();
    const keys = fenceKeys(prefix);
    const score = (await redisNow(redis)) + 500;
    await redis.zadd(keys.holders, score, 'silent');
    expect(await w.fence(1)).toBe('lapsed');
    expect(await redisNow(redis)).toBeGreaterThanOrEqual(score);
  });

  it('does not wait for a lease that has already run out', async () => {
    const w = writer();
    await w.start();
    await redis.zadd(fenceKeys(prefix).holders, (await redisNow(redis)) - 1, 'gone');
    expect(await w.fence(1)).toBe('acknowledged');
  });

  it('stops a holder serving as soon as its connection to Redis closes, and drops what it kept', async () => {
    const hop = await RedisHop.start(redisUrl);
    stops.push(() => hop.close());
    const w = writer();
    await w.start();
    const dropped: number[] = [];
    const h = holder({ url: hop.url, onFence: (e) => dropped.push(e) });
    await until(async () => (await redis.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased');
    await w.fence(1);
    expect(h.servingEpoch()).toBe(1);
    const score = Number(await redis.zscore(fenceKeys(prefix).holders, h.id));
    hop.blackHole(true);
    hop.cut();
    await until(() => h.servingEpoch() === undefined, 'holder stopped serving');
    expect(dropped).toEqual([1, 1]);
    // It cannot acknowledge: the writer waits for its lease instead.
    expect(await w.fence(2)).toBe('lapsed');
    expect(await redisNow(redis)).toBeGreaterThanOrEqual(score);
    hop.blackHole(false);
    await until(() => h.servingEpoch() === 2, 'holder back, at the epoch fenced meanwhile');
  });

  it('lets a writer cut off from Redis commit only once no lease it allowed can still run', async () => {
    const hop = await RedisHop.start(redisUrl);
    stops.push(() => hop.close());
    const w = writer({ url: hop.url, heartbeatMs: 900, commandTimeoutMs: 100 });
    await w.start();
    const h = holder({ leaseMs: 300 });
    await until(async () => (await redis.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased');
    expect(await w.fence(1)).toBe('acknowledged');
    expect(h.servingEpoch()).toBe(1);
    // A partition: the writer's bytes vanish, its connection stays open; the holder still reaches Redis.
    hop.blackHole(true);
    expect(await w.fence(2)).toBe('unreachable');
    // The commit would follow now: no holder may serve the old epoch any more, and the writer's last heartbeat is over.
    expect(h.servingEpoch()).toBeUndefined();
    const beat = Number(await redis.zscore(fenceKeys(prefix).writers, w.id));
    expect(await redisNow(redis)).toBeGreaterThanOrEqual(beat);
    expect(await w.fence(3)).toBe('unreachable');
  });

  it('stops granting leases when the last writer leaves', async () => {
    const w = writer();
    await w.start();
    const h = holder();
    await until(async () => (await redis.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased');
    await w.fence(1);
    expect(h.servingEpoch()).toBe(1);
    await w.stop();
    await h.refresh();
    expect(await redis.zscore(fenceKeys(prefix).holders, h.id)).toBeNull();
  });

  describe('with a Redis that restarts', () => {
    let own: RunningRedis;
    let port: number;
    let dataDir: string;
    beforeAll(async () => {
      port = await freePort();
      dataDir = mkdtempSync(join(tmpdir(), 'fence-redis-'));
      own = await startRedis({ dataDir, port });
    });
    afterAll(async () => {
      await own.stop();
    });

    it('serves nothing while Redis is away, and again only after a writer heartbeats into the new one', async () => {
      const url = own.url;
      const w = writer({ url, heartbeatMs: 600 });
      await w.start();
      const dropped: number[] = [];
      const h = holder({ url, onFence: (e) => dropped.push(e) });
      const mine = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
      mine.on('error', () => undefined);
      await mine.connect();
      await until(async () => (await mine.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased');
      expect(await w.fence(1)).toBe('acknowledged');
      expect(h.servingEpoch()).toBe(1);
      mine.disconnect();
      await own.stop();
      await until(() => h.servingEpoch() === undefined, 'holder stopped serving');
      expect(dropped).toEqual([1, 1]);
      // The writer commits meanwhile (waiting out its own heartbeat first).
      expect(await w.fence(2)).toBe('unreachable');
      own = await startRedis({ dataDir, port });
      const back = new Redis(url);
      try {
        // Nothing survived the restart; the holder may serve again only once the writer's heartbeat is back and a
        // fence names the epoch: what it heard before (1) is older than the database (2).
        await until(async () => (await back.zcard(fenceKeys(prefix).writers)) === 1, 'writer heartbeats again');
        await until(async () => (await back.zcard(fenceKeys(prefix).holders)) === 1, 'holder leased again');
        expect(await w.fence(3)).toBe('acknowledged');
        expect(h.servingEpoch()).toBe(3);
      } finally {
        await back.quit();
      }
    });
  });
});
