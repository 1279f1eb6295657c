import type { IncomingMessage } from 'node:http';
import type { AnswerTap } from './forward';

/** The request header that asks the api for the data epoch of its answer (ADR 0048). */
export const WANT_DATA_EPOCH = 'x-bda-want-data-epoch';
/** The api's answer header carrying that epoch; never passed on to a client (forward.ts drops it). */
export const DATA_EPOCH = 'x-bda-data-epoch';

/**
 * What makes two api reads identical (ADR 0033): the method (GET or HEAD), the forwarded target, and the
 * `If-None-Match`, `Cache-Control` and `Accept-Encoding` headers; the api's answer depends on nothing else. The same key
 * groups the reads of one turn (same-turn-forwards.ts) and names a kept answer.
 */
export function answerKey(req: IncomingMessage, target: string): string {
  return `${req.method}\n${target}\n${header(req, 'if-none-match')}\n${header(req, 'cache-control')}\n${header(req, 'accept-encoding')}`;
}

/** A client that asks for a fresh answer (`Cache-Control: no-cache`/`no-store`, `Pragma: no-cache`) is never served one kept. */
export function wantsFresh(req: IncomingMessage): boolean {
  const cc = req.headers['cache-control'];
  if (cc !== undefined && /no-cache|no-store/i.test(Array.isArray(cc) ? cc.join(',') : cc)) return true;
  const pragma = req.headers.pragma;
  return pragma !== undefined && /no-cache/i.test(Array.isArray(pragma) ? pragma.join(',') : pragma);
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return v === undefined ? '' : Array.isArray(v) ? v.join(',') : v;
}

/** An api answer kept whole: as `CollectedAnswer` keeps a shared one, with the data epoch it was computed at. */
interface KeptAnswer {
  status: number;
  statusText: string;
  /** The upstream's headers as relayed (flat name/value pairs), without the gateway's own and without the epoch. */
  headers: string[];
  body: Buffer;
  /** The api's `x-bda-data-epoch`. */
  epoch: number;
  /** performance.now() when it was kept. */
  storedAt: number;
  /** What it counts toward the cache's bound. */
  bytes: number;
}

/** Per entry beyond its body and headers: the map's entry, the object, the key's copy (an estimate). */
const ENTRY_OVERHEAD = 200;
/** Keys remembered as missed once (`AnswerCache.admits`). */
const MISSED_ONCE_MAX = 100_000;

/**
 * Api answers kept in memory, bounded in bytes, the least recently used going first. It only stores and finds:
 * whether a kept answer may still be served (its epoch against the fence holder's) is the caller's check.
 */
export class AnswerCache {
  private readonly entries = new Map<string, KeptAnswer>();
  private size = 0;
  /** Keys missed once since the cache was last emptied, not kept yet (`admits`). */
  private readonly missedOnce = new Set<string>();

  constructor(
    private readonly maxBytes: number,
    /** Called with the bytes kept after each change (a gauge). */
    private readonly onBytes?: (bytes: number) => void,
  ) {}

  get bytes(): number {
    return this.size;
  }

  get count(): number {
    return this.entries.size;
  }

  /**
   * Whether a read of `key` that missed should be kept: only from its second miss since the cache was last emptied
   * (or when an answer of it is kept already). A key read once per epoch (an address's page, a block nobody else
   * asks for) then costs a set entry, not a copy of its answer and the api's epoch label; a key read again, as the
   * pages clients poll alike are, is kept from its second read on.
   */
  admits(key: string): boolean {
    if (this.entries.has(key) || this.missedOnce.has(key)) return true;
    // Bounded like the entries: past it, start over (a few more second misses).
    if (this.missedOnce.size >= MISSED_ONCE_MAX) this.missedOnce.clear();
    this.missedOnce.add(key);
    return false;
  }

  /** The answer kept under `key`, made the most recently used. */
  get(key: string): KeptAnswer | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    // A Map iterates in insertion order: inserted again, it is the last to go.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }

  set(key: string, answer: Omit<KeptAnswer, 'bytes'>): void {
    let bytes = ENTRY_OVERHEAD + key.length + answer.body.length + answer.statusText.length;
    for (const h of answer.headers) bytes += h.length;
    if (bytes > this.maxBytes) return;
    this.remove(key);
    while (this.size + bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.remove(oldest);
    }
    this.entries.set(key, { ...answer, bytes });
    this.size += bytes;
    this.onBytes?.(this.size);
  }

  /** Lets the answer kept under `key` go (it may no longer be served); the key is admitted again at its next miss. */
  delete(key: string): void {
    if (!this.remove(key)) return;
    this.missedOnce.add(key);
    this.onBytes?.(this.size);
  }

  clear(): void {
    this.missedOnce.clear();
    if (this.entries.size === 0) return;
    this.entries.clear();
    this.size = 0;
    this.onBytes?.(0);
  }

  private remove(key: string): boolean {
    const e = this.entries.get(key);
    if (e === undefined) return false;
    this.entries.delete(key);
    this.size -= e.bytes;
    return true;
  }
}

interface KeeperLimits {
  /** Largest body kept (GATEWAY_ANSWER_CACHE_ENTRY_MAX_BYTES). */
  entryMaxBytes: number;
  /** The fence holder's epoch now (undefined: nothing may be kept or served). */
  servingEpoch: () => number | undefined;
  /** Called once the answer is kept. */
  onKept?: () => void;
}

/**
 * Watches one api answer as the forwarder relays it (to its client, or into a shared answer) and keeps it once it is
 * complete, if it may be: below 500, no `Set-Cookie`, neither `no-store` nor `private` in its `Cache-Control`, a body
 * within the entry limit (past it, the bytes seen so far are let go and nothing is kept), and a data epoch equal to
 * the fence holder's at the moment the answer is complete. That last moment matters (ADR 0048): the api reads the
 * epoch before it runs the route, so a commit may fall between the two; that commit was fenced first, so by the time
 * the answer is complete the holder has left the older epoch (or lost its lease), and the answer is not kept.
 */
export class AnswerKeeper implements AnswerTap {
  private status = 0;
  private statusText = '';
  private headers: string[] = [];
  private epoch = 0;
  private chunks: Buffer[] | undefined;
  private bodyBytes = 0;

  constructor(
    private readonly cache: AnswerCache,
    private readonly key: string,
    private readonly limits: KeeperLimits,
  ) {}

  head(status: number, statusText: string, headers: string[], epoch: string | undefined): void {
    const n = epoch === undefined ? NaN : Number(epoch);
    if (status >= 500 || !Number.isSafeInteger(n) || n <= 0) return;
    for (let i = 0; i < headers.length; i += 2) {
      const lower = headers[i]!.toLowerCase();
      if (lower === 'set-cookie') return;
      if (lower === 'cache-control' && /no-store|private/i.test(headers[i + 1]!)) return;
    }
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.epoch = n;
    this.chunks = [];
  }

  data(chunk: Buffer): void {
    if (this.chunks === undefined) return;
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.limits.entryMaxBytes) this.chunks = undefined;
    else this.chunks.push(chunk);
  }

  end(): void {
    const chunks = this.chunks;
    this.chunks = undefined;
    if (chunks === undefined || this.epoch !== this.limits.servingEpoch()) return;
    this.cache.set(this.key, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
      // A copy of exactly the body: the chunks may be views into larger buffers that should not stay alive with it.
      body: Buffer.concat(chunks, this.bodyBytes),
      epoch: this.epoch,
      storedAt: performance.now(),
    });
    this.limits.onKept?.();
  }
}
