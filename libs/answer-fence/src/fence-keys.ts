/**
 * The Redis keys of the answer fence (ADR 0048). Every writer (the indexer's transactions) and every holder (the
 * gateway's workers) of one deployment use the same prefix (`ANSWER_FENCE_PREFIX`).
 */
export interface FenceKeys {
  /** The highest data epoch a writer has fenced (a decimal integer). */
  epoch: string;
  /** Sorted set: writer id → when its heartbeat runs out (Redis clock, ms). */
  writers: string;
  /** Sorted set: holder id → when its lease runs out (Redis clock, ms). */
  holders: string;
  /** Pub/sub channel: each message is an epoch being fenced. */
  channel: string;
  /** The list a holder pushes its id on once it has stopped serving answers older than `epoch`. */
  acks(epoch: number): string;
}

export const DEFAULT_FENCE_PREFIX = 'bda:fence:';

export function fenceKeys(prefix: string = DEFAULT_FENCE_PREFIX): FenceKeys {
  return {
    epoch: `${prefix}epoch`,
    writers: `${prefix}writers`,
    holders: `${prefix}holders`,
    channel: `${prefix}fenced`,
    acks: (epoch) => `${prefix}acks:${epoch}`,
  };
}

/** Redis's clock in milliseconds, inside a script (scripts replicate their effects, so TIME is allowed). */
export const LUA_NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
