import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import { displayPrefix, hashKey, looksLikeKey } from './key-format';
import { findByPrefix, keyVersion, type KeyRow } from './key-repository';

interface KeyIdentity {
  id: string;
  rateLimitPerMinute: number | null;
  burstPerSecond: number | null;
}

export type AuthResult =
  | { status: 'valid'; key: KeyIdentity }
  | { status: 'unknown' }
  | { status: 'revoked' }
  /** The database could not be asked and nothing was cached: the gateway answers 503, never anonymous. */
  | { status: 'unavailable' };

interface CacheEntry {
  rows: KeyRow[];
  expiresAt: number;
}

/** A valid key's verdict, good for as long as the cache entry it was matched against is the current one. */
interface Verdict {
  entry: CacheEntry;
  result: Extract<AuthResult, { status: 'valid' }>;
}

export interface KeyStoreOptions {
  cacheTtlMs: number;
  pollMs: number;
  /** Cached prefixes at most (unknown prefixes included); the oldest go first. */
  maxEntries?: number;
}

/**
 * Verifies presented keys. Rows are cached per display prefix for `cacheTtlMs`; every `pollMs` the process
 * reads the key version (bumped by a trigger on each change) and drops the whole cache when it moved, so a
 * revoked key stops working on every replica within about `pollMs`. The presented key's SHA-256 is compared
 * with each candidate's in constant time. When PostgreSQL fails, stale cache entries keep serving.
 */
export class KeyStore {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Valid keys already matched against their prefix's current cache entry: `peek` answers them without hashing again
   * (the SHA-256 per request, issue 26). A verdict is used only while that very entry is the prefix's fresh entry, so
   * a revocation (version change), an expiry or a reload ends it exactly when it ends the entry.
   */
  private readonly verdicts = new Map<string, Verdict>();
  private readonly inflight = new Map<string, Promise<KeyRow[]>>();
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pollFailures = 0;
  private readonly maxEntries: number;

  constructor(
    private readonly db: Knex,
    private readonly opts: KeyStoreOptions,
    private readonly logger: Logger,
    private readonly metrics: Pick<GatewayMetrics, 'keyLookups'>,
  ) {
    this.maxEntries = opts.maxEntries ?? 100_000;
  }

  /** Reads the version once, then polls it. */
  async start(): Promise<void> {
    await this.poll();
    const loop = () => {
      this.timer = setTimeout(() => void this.poll().finally(() => this.timer && loop()), this.opts.pollMs);
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    const t = this.timer;
    this.timer = undefined;
    if (t) clearTimeout(t);
  }

  async poll(): Promise<void> {
    try {
      const v = await keyVersion(this.db);
      if (this.version !== undefined && v !== this.version) {
        this.cache.clear();
        this.verdicts.clear();
      }
      this.version = v;
      if (this.pollFailures > 0) this.logger.info({ failures: this.pollFailures }, 'key version poll recovered');
      this.pollFailures = 0;
    } catch (err) {
      if (this.pollFailures++ % 30 === 0) {
        this.logger.error({ err: { message: (err as Error).message } }, 'key version poll failed');
      }
    }
  }

  /**
   * What is known about a key without asking PostgreSQL: its verdict from a fresh cache entry (a malformed key is
   * `unknown` at once), or undefined when only a lookup can tell.
   */
  peek(presented: string): Exclude<AuthResult, { status: 'unavailable' }> | undefined {
    if (!looksLikeKey(presented)) return { status: 'unknown' };
    const cached = this.cache.get(displayPrefix(presented));
    if (!cached || cached.expiresAt <= Date.now()) return undefined;
    const known = this.verdicts.get(presented);
    if (known !== undefined && known.entry === cached) return known.result;
    const result = this.match(presented, cached.rows);
    if (result.status === 'valid') {
      // Only valid keys are kept (made-up keys cannot fill it); bounded like the cache.
      if (this.verdicts.size >= this.maxEntries) this.verdicts.clear();
      this.verdicts.set(presented, { entry: cached, result });
    }
    return result;
  }

  async verify(presented: string): Promise<AuthResult> {
    if (!looksLikeKey(presented)) return { status: 'unknown' };
    const prefix = displayPrefix(presented);
    let rows: KeyRow[];
    const cached = this.cache.get(prefix);
    if (cached && cached.expiresAt > Date.now()) {
      rows = cached.rows;
    } else {
      try {
        rows = await this.load(prefix);
      } catch (err) {
        if (!cached) {
          this.logger.error({ err: { message: (err as Error).message } }, 'key lookup failed');
          return { status: 'unavailable' };
        }
        rows = cached.rows;
      }
    }
    return this.match(presented, rows);
  }

  private match(presented: string, rows: KeyRow[]): Exclude<AuthResult, { status: 'unavailable' }> {
    const hash = hashKey(presented);
    let match: KeyRow | undefined;
    for (const row of rows) {
      // Every candidate is compared, in constant time, whatever the earlier results.
      if (row.keyHash.length === hash.length && timingSafeEqual(row.keyHash, hash)) match = row;
    }
    if (!match) return { status: 'unknown' };
    if (match.revokedAt) return { status: 'revoked' };
    return {
      status: 'valid',
      key: { id: match.id, rateLimitPerMinute: match.rateLimitPerMinute, burstPerSecond: match.burstPerSecond },
    };
  }

  private load(prefix: string): Promise<KeyRow[]> {
    let p = this.inflight.get(prefix);
    if (!p) {
      const versionAtStart = this.version;
      this.metrics.keyLookups.inc();
      p = findByPrefix(this.db, prefix)
        .then((rows) => {
          // A change seen while the query ran may not be in its result: do not cache it.
          if (this.version === versionAtStart) {
            if (this.cache.size >= this.maxEntries) {
              const oldest = this.cache.keys().next().value;
              if (oldest !== undefined) this.cache.delete(oldest);
            }
            this.cache.delete(prefix);
            this.cache.set(prefix, { rows, expiresAt: Date.now() + this.opts.cacheTtlMs });
          }
          return rows;
        })
        .finally(() => this.inflight.delete(prefix));
      this.inflight.set(prefix, p);
    }
    return p;
  }
}
