import { decide, MINUTE_MS, type Decision, type Limiter, type Subject, type WindowState } from './policy';

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
