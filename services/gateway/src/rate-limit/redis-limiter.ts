import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Grant, LeaseBackend, LeaseRequest } from './lease-limiter';
import { BURST_MS, MINUTE_MS } from './policy';

/**
 * Both windows in one round trip, for a batch of subjects: the leases asked for in the same turn of the event loop
 * share one EVALSHA (lease-limiter.ts). For each subject the script reads its hash (current and previous counts of the
 * minute and burst windows), first gives back the units of an ended lease that were not used (in the windows they were
 * counted in), then decides with the same arithmetic as `evaluateWindow`: it grants as many of the units asked for as
 * both windows still allow (`min(want, limit - estimate)` in each), and counts the granted units at once. Asking for
 * one unit is the plain per-request check. A subject twice in a batch is decided twice, in order. Time comes from the
 * Redis server, so replicas with skewed clocks still share windows. The expiry is set when a minute window starts:
 * two windows later the hash carries no weight any more.
 *
 * KEYS: subject hashes; ARGV: the time in ms (0: the Redis server's clock, which is what the gateway always sends;
 * tests give a time to probe window boundaries), minute size ms, burst size ms, then per key: minute limit, burst
 * limit, units wanted (0: only give back), units given back, and the minute and burst window numbers they were
 * counted in. Returns 9 numbers per key: units granted, minute remaining/reset/retry, burst remaining/reset/retry
 * (remaining after the grant; retry only when nothing was granted), and the minute and burst window numbers the
 * grant was counted in.
 */
export const LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local msize, bsize = tonumber(ARGV[2]), tonumber(ARGV[3])
local function window(sw, cur0, prev0, size, limit)
  local w = math.floor(now / size)
  local cur, prev = 0, 0
  if sw == w then
    cur = cur0
    prev = prev0
  elseif sw == w - 1 then
    prev = cur0
  end
  local elapsed = now - w * size
  local est = math.ceil(prev * (size - elapsed) / size) + cur
  local reset = size - elapsed
  local retry = 0
  if est >= limit then
    if cur >= limit then
      retry = reset + math.ceil(math.max(0, 1 - (limit - 1) / cur) * size)
    else
      local frac = 0
      if prev > 0 then frac = math.max(0, 1 - (limit - 1 - cur) / prev) end
      retry = math.max(1, math.ceil(frac * size) - elapsed)
    end
  end
  return w, cur, prev, est, reset, retry
end
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local a = 3 + 6 * (i - 1)
  local ml, bl, want = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local back, backmw, backbw = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6])
  local s = redis.call('HMGET', key, 'mw', 'mc', 'mp', 'bw', 'bc', 'bp')
  local smw, smc, smp = tonumber(s[1]), tonumber(s[2]) or 0, tonumber(s[3]) or 0
  local sbw, sbc, sbp = tonumber(s[4]), tonumber(s[5]) or 0, tonumber(s[6]) or 0
  if back > 0 and smw then
    if smw == backmw then smc = math.max(0, smc - back) elseif smw == backmw + 1 then smp = math.max(0, smp - back) end
    if sbw == backbw then sbc = math.max(0, sbc - back) elseif sbw == backbw + 1 then sbp = math.max(0, sbp - back) end
  end
  local mw, mc, mp, me, mr, mt = window(smw, smc, smp, msize, ml)
  local bw, bc, bp, be, br, bt = window(sbw, sbc, sbp, bsize, bl)
  local granted = 0
  if want > 0 then granted = math.max(0, math.min(want, ml - me, bl - be)) end
  if granted > 0 or (back > 0 and smw) then
    redis.call('HSET', key, 'mw', mw, 'mc', mc + granted, 'mp', mp, 'bw', bw, 'bc', bc + granted, 'bp', bp)
    if smw ~= mw then redis.call('PEXPIRE', key, 2 * msize) end
  end
  local n = #out
  out[n + 1] = granted
  out[n + 2] = math.max(0, ml - me - granted)
  out[n + 3] = mr
  out[n + 4] = mt
  out[n + 5] = math.max(0, bl - be - granted)
  out[n + 6] = br
  out[n + 7] = bt
  out[n + 8] = mw
  out[n + 9] = bw
end
return out
`;

const SHA = createHash('sha1').update(LIMIT_SCRIPT).digest('hex');
/** Subjects per script call at most (bounds the time Redis spends in one script). */
const MAX_BATCH = 128;

/** Numbers per key in the script's reply. */
const REPLY = 9;

/** The lease backend shared by every gateway replica: one script call per batch (lease-limiter.ts). */
export class RedisLeaseBackend implements LeaseBackend {
  readonly source = 'redis';

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** False while the client is not connected: the caller falls back at once instead of waiting. */
  get available(): boolean {
    return this.redis.status === 'ready';
  }

  /** Calls `drop` whenever the connection closes: leases counted on a Redis that may have lost them end there. */
  onConnectionLost(drop: () => void): void {
    this.redis.on('close', drop);
  }

  async take(requests: readonly LeaseRequest[]): Promise<Grant[]> {
    if (requests.length <= MAX_BATCH) return this.takeBatch(requests);
    const parts: Array<Promise<Grant[]>> = [];
    for (let from = 0; from < requests.length; from += MAX_BATCH)
      parts.push(this.takeBatch(requests.slice(from, from + MAX_BATCH)));
    return (await Promise.all(parts)).flat();
  }

  private async takeBatch(requests: readonly LeaseRequest[]): Promise<Grant[]> {
    const keys: string[] = [];
    const args: number[] = [0, MINUTE_MS, BURST_MS];
    for (const r of requests) {
      keys.push(`${this.keyPrefix}rl:${r.subject.id}`);
      const back = r.giveBack;
      args.push(
        r.subject.limits.perMinute,
        r.subject.limits.burst,
        r.want,
        back?.units ?? 0,
        back?.minuteWindow ?? 0,
        back?.burstWindow ?? 0,
      );
    }
    const r = await this.run(keys, args);
    if (!Array.isArray(r) || r.length !== REPLY * requests.length) throw new Error('unexpected reply from the rate-limit script');
    return requests.map((_, i) => {
      const o = i * REPLY;
      return {
        granted: r[o]!,
        minute: { remaining: r[o + 1]!, resetMs: r[o + 2]!, retryMs: r[o + 3]! },
        burst: { remaining: r[o + 4]!, resetMs: r[o + 5]!, retryMs: r[o + 6]! },
        minuteWindow: r[o + 7]!,
        burstWindow: r[o + 8]!,
      };
    });
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
