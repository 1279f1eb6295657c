import type { Grant, LeaseRequest } from './lease-limiter';
import {
  BURST_MS,
  decide,
  evaluateWindow,
  MINUTE_MS,
  type Decision,
  type Limiter,
  type Subject,
  type WindowState,
} from './policy';

interface Entry {
  minute: WindowState;
  burst: WindowState;
}

/**
 * Counters in this process's memory: the embedded default (one host, shared by the cluster workers through
 * the primary, see ipc-limiter.ts) and the local fallback when Redis fails.
 */
export class MemoryLimiter implements Limiter {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly source = 'memory',
    private readonly now: () => number = Date.now,
  ) {
    // Entries whose minute window is over two windows old carry no weight any more.
    this.sweeper = setInterval(() => this.sweep(), MINUTE_MS);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  checkSync(subject: Subject): Decision {
    const entry = this.entries.get(subject.id);
    const out = decide(entry?.minute, entry?.burst, this.now(), subject.limits);
    if (out.allowed) {
      if (entry) {
        entry.minute = out.minute;
        entry.burst = out.burst;
      } else {
        this.entries.set(subject.id, { minute: out.minute, burst: out.burst });
      }
    }
    return { ...out.decision, source: this.source };
  }

  check(subject: Subject): Promise<Decision> {
    return Promise.resolve(this.checkSync(subject));
  }

  /**
   * A lease (lease-limiter.ts), with the arithmetic of the Redis script: first gives back the unused units of an ended
   * lease in the windows they were counted in, then grants `min(want, limit - estimate)` of both windows and counts
   * them. Used by the cluster primary for its workers (ipc-limiter.ts).
   */
  take(r: LeaseRequest): Grant {
    const now = this.now();
    const entry = this.entries.get(r.subject.id);
    const back = r.giveBack;
    if (entry && back && back.units > 0) {
      giveBack(entry.minute, back.minuteWindow, back.units);
      giveBack(entry.burst, back.burstWindow, back.units);
    }
    const m = evaluateWindow(entry?.minute, now, MINUTE_MS, r.subject.limits.perMinute);
    const b = evaluateWindow(entry?.burst, now, BURST_MS, r.subject.limits.burst);
    // What each window still allows: limit − estimate (remaining counts the request being decided when allowed).
    const mFree = m.allowed ? m.result.remaining + 1 : 0;
    const bFree = b.allowed ? b.result.remaining + 1 : 0;
    const granted = r.want > 0 ? Math.min(r.want, mFree, bFree) : 0;
    if (granted > 0 || (entry && back)) {
      const minute = { w: m.w, cur: m.cur + granted, prev: m.prev };
      const burst = { w: b.w, cur: b.cur + granted, prev: b.prev };
      if (entry) {
        entry.minute = minute;
        entry.burst = burst;
      } else this.entries.set(r.subject.id, { minute, burst });
    }
    return {
      granted,
      minute: { remaining: Math.max(0, mFree - granted), resetMs: m.result.resetMs, retryMs: granted > 0 ? 0 : m.result.retryMs },
      burst: { remaining: Math.max(0, bFree - granted), resetMs: b.result.resetMs, retryMs: granted > 0 ? 0 : b.result.retryMs },
      minuteWindow: m.w,
      burstWindow: b.w,
    };
  }

  sweep(): void {
    const w = Math.floor(this.now() / MINUTE_MS);
    for (const [id, e] of this.entries) {
      if (e.minute.w < w - 1) this.entries.delete(id);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** Unused units back to the window they were counted in: the current one, or the previous one once it moved on. */
function giveBack(state: WindowState, w: number, units: number): void {
  if (state.w === w) state.cur = Math.max(0, state.cur - units);
  else if (state.w === w + 1) state.prev = Math.max(0, state.prev - units);
}
