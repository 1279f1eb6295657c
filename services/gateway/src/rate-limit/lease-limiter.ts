import type { Decision, Limiter, Subject } from './policy';

/** One window's state after a grant, as the backend computed it. */
interface WindowGrant {
  /** Units left in the window after the grant (the estimate's distance to the limit). */
  remaining: number;
  resetMs: number;
  /** When nothing was granted: milliseconds until a unit would be; otherwise 0. */
  retryMs: number;
}

/** The backend's answer for one subject: units granted (counted at once) and the windows' state. */
export interface Grant {
  granted: number;
  minute: WindowGrant;
  burst: WindowGrant;
  /** The fixed windows the granted units were counted in (to give unused ones back to them). */
  minuteWindow: number;
  burstWindow: number;
}

/** Units of an ended lease that were not used, and the windows they were counted in. */
interface GiveBack {
  units: number;
  minuteWindow: number;
  burstWindow: number;
}

export interface LeaseRequest {
  subject: Subject;
  /** Units asked for (0: only give back). */
  want: number;
  giveBack?: GiveBack;
}

/** Where units are counted: Redis (redis-limiter.ts), shared by every replica. */
export interface LeaseBackend {
  /** `source` of the decisions it backs. */
  readonly source: string;
  /** False while it cannot be asked (the caller falls back at once). */
  readonly available: boolean;
  /** One call for a batch; the answers in the order of the requests. */
  take(requests: readonly LeaseRequest[]): Promise<Grant[]>;
  /** Calls `drop` when the counters the leases were taken from may be gone (the connection closed). */
  onConnectionLost?(drop: () => void): void;
}

interface LeaseOptions {
  /** Units one lease holds at most (`RATE_LIMIT_LEASE_MAX`); 1 = no leasing, every request is decided by the backend. */
  maxUnits: number;
}

/** A lease holds at most this fraction of a subject's burst and of its minute limit (1/20: 5 %). */
const LIMIT_SHARE = 20;
/** A lease used up faster than this: the next one is twice as large (up to the cap). */
const FAST_MS = 50;
/** A lease that took longer than this to use up: the next one is half as large. */
const SLOW_MS = 250;
/** How often ended leases are looked for (their unused units given back, idle subjects forgotten). */
const SWEEP_MS = 500;
/** A subject with nothing leased and no request for this long is forgotten. */
const IDLE_MS = 2_000;

interface Waiter {
  subject: Subject;
  resolve: (d: Decision) => void;
  reject: (err: unknown) => void;
}

/** This process's lease on one subject. */
class SubjectLease {
  /** Units granted and not used yet. */
  units = 0;
  /** performance.now() from which the units may no longer be used: the end of the burst window they were counted in. */
  expiresAt = 0;
  grantedAt = 0;
  /** Units the next lease asks for (grows while leases are used up fast, shrinks when they are not). */
  size = 1;
  minuteRemaining = 0;
  minuteResetAt = 0;
  burstRemaining = 0;
  minuteWindow = 0;
  burstWindow = 0;
  lastUsed = 0;
  giveBacks: GiveBack[] = [];
  waiters: Waiter[] = [];
  /** A take for this subject is in flight. */
  fetching = false;
  /** Queued for the next batch. */
  queued = false;

  constructor(public subject: Subject) {}
}

/**
 * Rate-limit decisions from leases (ADR 0026): instead of asking the backend for every request, a process takes a
 * few units of a subject's quota at once (counted in the shared windows when granted) and hands them to its next
 * requests, until they are used up or the burst window they were counted in ends. What it holds unused when a lease
 * ends is given back to the windows it was counted in.
 *
 * - A unit is only used within the fixed windows it was counted in (the lease ends with the burst window, by the
 *   backend's clock, measured from when the request for it was sent), so no request is ever let through that the
 *   per-request check would have refused: the shared counts are always at least what was let through.
 * - The other way, a refusal may come early by the units other processes hold and have not used yet: at most
 *   `cap - 1` per process, `cap = min(maxUnits, burst / 20, perMinute / 20)` (at least 1: at the default limits,
 *   500 a minute and 20 a second, nothing is leased and every request is decided by the backend, as before).
 * - A lease grows only while this process uses its leases up within 50 ms (it starts at one unit), so a subject
 *   that sends a request now and then is decided request by request, with exact `remaining` figures.
 * - The requests of one turn of the event loop that need the backend share one call (one entry per subject, asking
 *   for as many units as there are requests waiting, at least the lease size): deciding n requests in one grant is
 *   the same as deciding them one by one.
 * - When the connection to the backend closes, every lease is dropped (not given back): counters that may be gone
 *   must not back any more requests.
 */
export class LeaseLimiter implements Limiter {
  private readonly leases = new Map<string, SubjectLease>();
  private queue: SubjectLease[] = [];
  private scheduled = false;
  private readonly sweeper: NodeJS.Timeout;
  private readonly flushSoon = () => void this.flush();

  constructor(
    private readonly backend: LeaseBackend,
    private readonly opts: LeaseOptions,
  ) {
    backend.onConnectionLost?.(() => this.dropAll());
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  get available(): boolean {
    return this.backend.available;
  }

  /** Units currently held unused by this process, over every subject (for tests and metrics). */
  get heldUnits(): number {
    let n = 0;
    for (const l of this.leases.values()) n += l.units;
    return n;
  }

  check(subject: Subject): Promise<Decision> {
    let l = this.leases.get(subject.id);
    if (l) l.subject = subject;
    else {
      l = new SubjectLease(subject);
      this.leases.set(subject.id, l);
    }
    const now = performance.now();
    l.lastUsed = now;
    if (l.units > 0 && l.waiters.length === 0) {
      if (now < l.expiresAt) return Promise.resolve(this.use(l, subject, now));
      this.end(l);
    }
    const lease = l;
    return new Promise((resolve, reject) => {
      lease.waiters.push({ subject, resolve, reject });
      this.ask(lease);
    });
  }

  /** The most units a lease on `subject` may hold. */
  private cap(subject: Subject): number {
    const { perMinute, burst } = subject.limits;
    return Math.max(1, Math.min(this.opts.maxUnits, Math.floor(burst / LIMIT_SHARE), Math.floor(perMinute / LIMIT_SHARE)));
  }

  private use(l: SubjectLease, subject: Subject, now: number): Decision {
    l.units--;
    if (l.units === 0) {
      const took = now - l.grantedAt;
      if (took < FAST_MS) l.size = Math.min(this.cap(subject), l.size * 2);
      else if (took > SLOW_MS) l.size = Math.max(1, l.size >> 1);
    }
    return {
      allowed: true,
      minute: {
        limit: subject.limits.perMinute,
        remaining: l.minuteRemaining + l.units,
        resetMs: Math.max(1, Math.ceil(l.minuteResetAt - now)),
        retryMs: 0,
      },
      burst: {
        limit: subject.limits.burst,
        remaining: l.burstRemaining + l.units,
        resetMs: Math.max(1, Math.ceil(l.expiresAt - now)),
        retryMs: 0,
      },
      source: this.backend.source,
    };
  }

  /** The lease is over: what is left goes back to the windows it was counted in (with the next call). */
  private end(l: SubjectLease): void {
    if (l.units === 0) return;
    l.giveBacks.push({ units: l.units, minuteWindow: l.minuteWindow, burstWindow: l.burstWindow });
    l.units = 0;
    l.size = Math.max(1, l.size >> 1);
  }

  private ask(l: SubjectLease): void {
    if (l.fetching || l.queued) return;
    l.queued = true;
    this.queue.push(l);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the I/O of this turn: every request parsed in it joins the batch.
      setImmediate(this.flushSoon);
    }
  }

  private flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return Promise.resolve();
    const requests: LeaseRequest[] = [];
    const owners: Array<SubjectLease | undefined> = [];
    for (const l of batch) {
      l.queued = false;
      const backs = l.giveBacks;
      l.giveBacks = [];
      // Give-backs beyond the first go as entries of their own (the script takes one per entry, in order).
      for (let i = 1; i < backs.length; i++) {
        requests.push({ subject: l.subject, want: 0, giveBack: backs[i] });
        owners.push(undefined);
      }
      const waiting = l.waiters.length;
      const want = waiting === 0 ? 0 : Math.max(waiting, Math.min(l.size, this.cap(l.subject)));
      requests.push({ subject: l.subject, want, giveBack: backs[0] });
      owners.push(want > 0 ? l : undefined);
      if (want > 0) l.fetching = true;
    }
    const sentAt = performance.now();
    return this.backend.take(requests).then(
      (grants) => {
        const now = performance.now();
        grants.forEach((g, i) => {
          const l = owners[i];
          if (l) this.granted(l, g, sentAt, now);
        });
      },
      (err: unknown) => {
        for (const l of owners) if (l) this.failed(l, err);
      },
    );
  }

  private granted(l: SubjectLease, g: Grant, sentAt: number, now: number): void {
    l.fetching = false;
    if (g.granted === 0) {
      // Refused: so is every request waiting for this subject now.
      const d: Decision = {
        allowed: false,
        minute: { limit: l.subject.limits.perMinute, ...g.minute },
        burst: { limit: l.subject.limits.burst, ...g.burst },
        source: this.backend.source,
      };
      const waiters = l.waiters;
      l.waiters = [];
      for (const w of waiters) w.resolve(d);
      if (l.giveBacks.length > 0) this.ask(l);
      return;
    }
    l.units = g.granted;
    l.grantedAt = now;
    // The backend's clock decided at some moment after `sentAt`: measured from `sentAt`, the lease ends no later than
    // the burst window it was counted in.
    l.expiresAt = sentAt + g.burst.resetMs;
    l.minuteResetAt = sentAt + g.minute.resetMs;
    l.minuteRemaining = g.minute.remaining;
    l.burstRemaining = g.burst.remaining;
    l.minuteWindow = g.minuteWindow;
    l.burstWindow = g.burstWindow;
    if (now >= l.expiresAt) {
      // The answer came after its window ended: the units may not be used; back they go, and the waiters ask again.
      this.end(l);
    } else {
      while (l.units > 0 && l.waiters.length > 0) {
        const w = l.waiters.shift()!;
        w.resolve(this.use(l, w.subject, now));
      }
    }
    if (l.waiters.length > 0 || l.giveBacks.length > 0) this.ask(l);
  }

  private failed(l: SubjectLease, err: unknown): void {
    l.fetching = false;
    l.units = 0;
    const waiters = l.waiters;
    l.waiters = [];
    for (const w of waiters) w.reject(err);
  }

  /** The backend's counters may be gone: no unit leased from them is used any more, nor given back. */
  private dropAll(): void {
    for (const l of this.leases.values()) {
      l.units = 0;
      l.giveBacks = [];
      l.size = 1;
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, l] of this.leases) {
      if (l.units > 0 && now >= l.expiresAt) this.end(l);
      if (l.giveBacks.length > 0) this.ask(l);
      else if (l.units === 0 && !l.fetching && !l.queued && l.waiters.length === 0 && now - l.lastUsed > IDLE_MS) {
        this.leases.delete(id);
      }
    }
  }

  /** Gives every unused unit back (shutdown: the other replicas may use them). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const l of this.leases.values()) {
      this.end(l);
      if (l.giveBacks.length > 0) this.ask(l);
    }
    if (this.backend.available) await this.flush();
  }
}
