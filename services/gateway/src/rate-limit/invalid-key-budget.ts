/**
 * Invalid API keys per client address (its rate-limit identity, `addressGroup`), per process, in fixed one-minute
 * windows. An address that presented an invalid key in the current window is `suspect`: its next unverified keys are
 * charged to its anonymous limit before they are looked up (authenticate.ts). Once it has spent `perMinute`, no key
 * it presents is looked up until the window ends: a flood of random keys costs PostgreSQL at most `perMinute` lookups
 * a minute per address and process. Memory is bounded: at most `maxAddresses` windows are kept, the oldest first out.
 */
export class InvalidKeyBudget {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly windowMs = 60_000;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxAddresses = 100_000,
  ) {}

  /** Invalid keys seen from the address in the current window. */
  count(address: string): number {
    const w = this.windows.get(address);
    return w && this.now() - w.start < this.windowMs ? w.count : 0;
  }

  suspect(address: string): boolean {
    return this.count(address) > 0;
  }

  exhausted(address: string): boolean {
    return this.count(address) >= this.perMinute;
  }

  /** Seconds until the address's window ends (at least 1). */
  retryAfterSeconds(address: string): number {
    const w = this.windows.get(address);
    if (!w) return 1;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
  }

  /** One more invalid key from the address. */
  record(address: string): void {
    const now = this.now();
    const w = this.windows.get(address);
    if (w && now - w.start < this.windowMs) {
      w.count++;
      return;
    }
    if (w) this.windows.delete(address);
    else if (this.windows.size >= this.maxAddresses) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    this.windows.set(address, { start: now, count: 1 });
  }
}
