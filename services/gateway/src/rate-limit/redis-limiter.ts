import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BURST_MS, MINUTE_MS, type Decision, type Limiter, type Subject } from './policy';

/**
 * Both windows in one round trip, for a batch of subjects: the requests that arrive in the same turn of the
 * event loop share one EVALSHA. For each subject the script reads its hash (current and previous counts of
 * the minute and burst windows), decides with the same arithmetic as `evaluateWindow`, and counts the request
 * only when both windows allow it. A subject twice in a batch is decided twice, in order. Time comes from the
 * Redis server, so replicas with skewed clocks still share windows. The expiry is set when a minute window
 * starts: two windows later the hash carries no weight any more.
 *
 * KEYS: subject hashes; ARGV: the time in ms (0: the Redis server's clock, which is what the gateway always sends;
 * tests give a time to probe window boundaries), minute size ms, burst size ms, then minute and burst limits per key.
 * Returns 7 numbers per key: allowed, minute remaining/reset/retry, burst remaining/reset/retry.
 */
export const LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local msize, bsize = tonumber(ARGV[2]), tonumber(ARGV[3])
local function window(sw, sc, sp, size, limit)
  local w = math.floor(now / size)
  local cur, prev = 0, 0
  if sw == w then
    cur = tonumber(sc) or 0
    prev = tonumber(sp) or 0
  elseif sw == w - 1 then
    prev = tonumber(sc) or 0
  end
  local elapsed = now - w * size
  local est = math.ceil(prev * (size - elapsed) / size) + cur
  local allowed = est < limit
  local reset = size - elapsed
  local retry = 0
  if not allowed then
    if cur >= limit then
      retry = reset + math.ceil(math.max(0, 1 - (limit - 1) / cur) * size)
    else
      local frac = 0
      if prev > 0 then frac = math.max(0, 1 - (limit - 1 - cur) / prev) end
      retry = math.max(1, math.ceil(frac * size) - elapsed)
    end
  end
  return w, cur, prev, est, allowed, reset, retry
end
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local ml, bl = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local s = redis.call('HMGET', key, 'mw', 'mc', 'mp', 'bw', 'bc', 'bp')
  local smw = tonumber(s[1])
  local mw, mc, mp, me, ma, mr, mt = window(smw, s[2], s[3], msize, ml)
  local bw, bc, bp, be, ba, br, bt = window(tonumber(s[4]), s[5], s[6], bsize, bl)
  local allowed = ma and ba
  local used = 0
  if allowed then
    used = 1
    redis.call('HSET', key, 'mw', mw, 'mc', mc + 1, 'mp', mp, 'bw', bw, 'bc', bc + 1, 'bp', bp)
    if smw ~= mw then redis.call('PEXPIRE', key, 2 * msize) end
  end
  local n = #out
  out[n + 1] = allowed and 1 or 0
  out[n + 2] = math.max(0, ml - me - used)
  out[n + 3] = mr
  out[n + 4] = mt
  out[n + 5] = math.max(0, bl - be - used)
  out[n + 6] = br
  out[n + 7] = bt
end
return out
`;

const SHA = createHash('sha1').update(LIMIT_SCRIPT).digest('hex');
/** Subjects per script call at most (bounds the time Redis spends in one script). */
const MAX_BATCH = 128;

interface Pending {
  subject: Subject;
  resolve: (d: Decision) => void;
  reject: (err: unknown) => void;
}

/** Counters shared by every gateway replica. */
export class RedisLimiter implements Limiter {
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** False while the client is not connected: the caller falls back at once instead of waiting. */
  get available(): boolean {
    return this.redis.status === 'ready';
  }

  check(subject: Subject): Promise<Decision> {
    return new Promise((resolve, reject) => {
      this.batch.push({ subject, resolve, reject });
      if (this.batch.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O of this turn: every request parsed in it joins the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    const keys: string[] = [];
    const args: number[] = [0, MINUTE_MS, BURST_MS];
    for (const p of batch) {
      keys.push(`${this.keyPrefix}rl:${p.subject.id}`);
      args.push(p.subject.limits.perMinute, p.subject.limits.burst);
    }
    this.run(keys, args).then(
      (r) => {
        if (!Array.isArray(r) || r.length !== 7 * batch.length) {
          const err = new Error('unexpected reply from the rate-limit script');
          for (const p of batch) p.reject(err);
          return;
        }
        batch.forEach((p, i) => {
          const o = i * 7;
          const l = p.subject.limits;
          p.resolve({
            allowed: r[o] === 1,
            minute: { limit: l.perMinute, remaining: r[o + 1]!, resetMs: r[o + 2]!, retryMs: r[o + 3]! },
            burst: { limit: l.burst, remaining: r[o + 4]!, resetMs: r[o + 5]!, retryMs: r[o + 6]! },
            source: 'redis',
          });
        });
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    );
  }

  private async run(keys: string[], args: number[]): Promise<number[]> {
    try {
      return (await this.redis.evalsha(SHA, keys.length, ...keys, ...args)) as number[];
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(LIMIT_SCRIPT, keys.length, ...keys, ...args)) as number[];
    }
  }
}
