import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BURST_MS, MINUTE_MS, type Decision, type Limiter, type Subject } from './policy';

/**
 * Both windows in one round trip: one EVALSHA per request reads the subject's hash (current and previous
 * counts of the minute and burst windows), decides with the same arithmetic as `evaluateWindow`, and counts
 * the request only when both windows allow it. Time comes from the Redis server, so replicas with skewed
 * clocks still share windows.
 *
 * KEYS[1] subject hash; ARGV: minute limit, burst limit, minute size ms, burst size ms.
 * Returns {allowed, m_remaining, m_reset, m_retry, b_remaining, b_reset, b_retry}.
 */
export const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'mw', 'mc', 'mp', 'bw', 'bc', 'bp')
local function window(sw, sc, sp, size, limit)
  local w = math.floor(now / size)
  local cur, prev = 0, 0
  sw = tonumber(sw)
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
local ml, bl = tonumber(ARGV[1]), tonumber(ARGV[2])
local mw, mc, mp, me, ma, mr, mt = window(s[1], s[2], s[3], tonumber(ARGV[3]), ml)
local bw, bc, bp, be, ba, br, bt = window(s[4], s[5], s[6], tonumber(ARGV[4]), bl)
local allowed = ma and ba
local used = 0
if allowed then
  used = 1
  redis.call('HSET', KEYS[1], 'mw', mw, 'mc', mc + 1, 'mp', mp, 'bw', bw, 'bc', bc + 1, 'bp', bp)
  redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
end
return {allowed and 1 or 0, math.max(0, ml - me - used), mr, mt, math.max(0, bl - be - used), br, bt}
`;

const SHA = createHash('sha1').update(LIMIT_SCRIPT).digest('hex');

/** Counters shared by every gateway replica. */
export class RedisLimiter implements Limiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** False while the client is not connected: the caller falls back at once instead of waiting. */
  get available(): boolean {
    return this.redis.status === 'ready';
  }

  async check(subject: Subject): Promise<Decision> {
    const key = `${this.keyPrefix}rl:${subject.id}`;
    const args = [subject.limits.perMinute, subject.limits.burst, MINUTE_MS, BURST_MS];
    let raw: unknown;
    try {
      raw = await this.redis.evalsha(SHA, 1, key, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      raw = await this.redis.eval(LIMIT_SCRIPT, 1, key, ...args);
    }
    const r = raw as number[];
    if (!Array.isArray(r) || r.length !== 7) throw new Error('unexpected reply from the rate-limit script');
    return {
      allowed: r[0] === 1,
      minute: { limit: subject.limits.perMinute, remaining: r[1]!, resetMs: r[2]!, retryMs: r[3]! },
      burst: { limit: subject.limits.burst, remaining: r[4]!, resetMs: r[5]!, retryMs: r[6]! },
      source: 'redis',
    };
  }
}
