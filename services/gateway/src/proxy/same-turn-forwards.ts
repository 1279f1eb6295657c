import { EventEmitter } from 'node:events';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { BadGatewayError } from '@bda/common';
import { AnswerKeeper, answerKey, wantsFresh, WANT_DATA_EPOCH, type AnswerCache } from './answer-cache';
import type { UpstreamChoice } from './choose-upstream';
import type { ForwardContext } from './forward';

/** One request waiting for the end of its turn. */
interface Waiting {
  req: IncomingMessage;
  res: ServerResponse;
  upstream: UpstreamChoice;
  headers: string[];
  ctx: ForwardContext;
  /** Its answer may be kept (answer-cache.ts): the key it is kept under. */
  keepAs: string | undefined;
  resolve(): void;
  reject(err: unknown): void;
}

/** The answers kept in memory (ADR 0048) and when they may be served. */
export interface KeptAnswers {
  cache: AnswerCache;
  /** The fence holder's epoch now (`FenceHolder.servingEpoch`). */
  servingEpoch: () => number | undefined;
  /** A kept answer older than this (ms) is not served, whatever its epoch (GATEWAY_ANSWER_CACHE_MAX_AGE_MS). */
  maxAgeMs: number;
  /** Largest body kept (GATEWAY_ANSWER_CACHE_ENTRY_MAX_BYTES). */
  entryMaxBytes: number;
  /** Counts each api read by what the cache did for it (a metric). */
  onResult?: (result: 'hit' | 'miss' | 'kept' | 'bypass') => void;
}

export interface SameTurnForwardsOptions {
  /** Identical reads of one turn share one upstream request (GATEWAY_SHARE_ANSWERS); false: each is forwarded at once. */
  share: boolean;
  /** Largest answer shared, in bytes; a bigger one is given up and each request forwarded on its own. */
  maxBytes: number;
  /** Called with the number of requests answered by another's upstream answer (a metric). */
  onShared?: (n: number) => void;
  /** Answers kept and served from memory; undefined: none (no Redis, or GATEWAY_ANSWER_CACHE_BYTES=0). */
  kept?: KeptAnswers;
}

/**
 * The path of every api read (GET or HEAD without a body) once it has passed its key check and rate limit.
 *
 * Kept answers first (ADR 0048, answer-cache.ts): a read whose identical twin's answer is kept, with the data epoch the
 * fence holder serves now and younger than the maximum age, is answered from memory at once, as a shared answer is
 * written (its own request id, rate-limit headers, CORS). Any other read asks the api for its answer's data epoch
 * (`x-bda-want-data-epoch: 1`), and its answer is kept as it streams by when it may be (`AnswerKeeper`). A client that
 * asks for a fresh answer (`no-cache`, `no-store`) is neither served from memory nor kept.
 *
 * Then, identical reads for the api that reach the forwarding step in the same turn of the event loop share one
 * upstream request (issue 26, ADR 0033): at the end of the turn (`setImmediate`), a request alone is forwarded as always
 * (streamed, `Forwarder.forward`); two or more identical ones are forwarded once, the answer read whole, and each
 * client gets it with its own gateway headers (request id, rate limits, CORS). Every request has passed its own key
 * check and rate limit before it gets here, and writes its own access line.
 *
 * Identical means the same method (GET or HEAD), the same forwarded target, and the same `If-None-Match`,
 * `Cache-Control` and `Accept-Encoding`: the api's answer depends on nothing else (ADR 0033: its own sharing keys on
 * the first two; it compresses nothing). The upstream request is sent at the end of the turn in which every one of
 * them reached this step, so the answer is from after each arrived, as an upstream request of its own would be.
 *
 * An answer larger than `maxBytes` is given up and each request forwarded on its own; an answer whose body breaks is
 * a 502 for each (none of them was written yet); a failed forward is each request's error, answered by the caller.
 */
export class SameTurnForwards {
  private waiting = new Map<string, Waiting[]>();
  private scheduled = false;
  private readonly flush = (): void => {
    this.scheduled = false;
    const groups = this.waiting;
    this.waiting = new Map();
    for (const group of groups.values()) {
      if (group.length === 1) this.forwardAlone(group[0]!);
      else void this.forwardShared(group);
    }
  };

  constructor(private readonly opts: SameTurnForwardsOptions) {}

  /**
   * Answers `req` from memory, or forwards it at the end of this turn with the identical requests of the turn.
   * `forwardedHeaders` makes the headers sent upstream (forwarded-request.ts): only when the request is forwarded.
   */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    upstream: UpstreamChoice,
    forwardedHeaders: () => string[],
    ctx: ForwardContext,
  ): Promise<void> {
    const key = answerKey(req, upstream.url);
    const kept = this.opts.kept;
    let keepAs: string | undefined;
    if (kept !== undefined) {
      const fresh = wantsFresh(req);
      // No lease (no writer fences, Redis away): nothing may be served or kept, so the api is not asked for the epoch.
      const serving = fresh ? undefined : kept.servingEpoch();
      if (serving !== undefined && serveKept(kept, key, serving, res, ctx)) {
        kept.onResult?.('hit');
        return Promise.resolve();
      }
      kept.onResult?.(fresh ? 'bypass' : 'miss');
      // Kept from a key's second miss on (`AnswerCache.admits`): only then is the api asked for the epoch.
      if (serving !== undefined && kept.cache.admits(key)) keepAs = key;
    }
    const headers = forwardedHeaders();
    if (keepAs !== undefined) headers.push(WANT_DATA_EPOCH, '1');
    if (!this.opts.share) {
      return new Promise<void>((resolve, reject) =>
        this.forwardAlone({ req, res, upstream, headers, ctx, keepAs, resolve, reject }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const group = this.waiting.get(key);
      const w: Waiting = { req, res, upstream, headers, ctx, keepAs, resolve, reject };
      if (group) group.push(w);
      else this.waiting.set(key, [w]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private async forwardShared(group: Waiting[]): Promise<void> {
    const first = group[0]!;
    const answer = new CollectedAnswer(this.opts.maxBytes);
    const ctx: ForwardContext = {
      tries: 0,
      responseHeaders: [],
      corsOwned: first.ctx.corsOwned,
      tap: this.keeper(first.keepAs),
    };
    let outcome: 'complete' | 'broken' | 'too big';
    try {
      await first.upstream.forwarder.forward(
        first.req,
        answer as unknown as ServerResponse,
        first.upstream.url,
        first.upstream.route,
        first.headers,
        undefined,
        ctx,
      );
      outcome = await answer.ended;
    } catch (err) {
      for (const w of group) {
        w.ctx.tries = ctx.tries;
        w.ctx.member = ctx.member;
        w.reject(err);
      }
      return;
    }
    if (outcome === 'too big') {
      for (const w of group) this.forwardAlone(w);
      return;
    }
    this.opts.onShared?.(group.length - 1);
    const body = answer.body();
    for (const w of group) {
      w.ctx.tries = ctx.tries;
      w.ctx.member = ctx.member;
      if (outcome === 'broken') w.reject(new BadGatewayError('the api replica gave a broken answer (its body was cut)'));
      else {
        writeAnswer(w.res, answer, body, w.ctx.responseHeaders);
        w.resolve();
      }
    }
  }

  /** Forwarded on its own, streamed to its client (and into the cache as it goes by, when it may be kept). */
  private forwardAlone(w: Waiting): void {
    w.ctx.tap = this.keeper(w.keepAs);
    w.upstream.forwarder
      .forward(w.req, w.res, w.upstream.url, w.upstream.route, w.headers, undefined, w.ctx)
      .then(w.resolve, w.reject);
  }

  private keeper(keepAs: string | undefined): AnswerKeeper | undefined {
    const kept = this.opts.kept;
    if (kept === undefined || keepAs === undefined) return undefined;
    return new AnswerKeeper(kept.cache, keepAs, {
      entryMaxBytes: kept.entryMaxBytes,
      servingEpoch: kept.servingEpoch,
      onKept: () => kept.onResult?.('kept'),
    });
  }
}

/**
 * Writes the answer kept under `key` when it may be served now: its epoch is the one the fence holder serves, and it
 * is not older than the maximum age. One that may not is let go (the read that follows keeps a fresh one).
 */
function serveKept(kept: KeptAnswers, key: string, serving: number, res: ServerResponse, ctx: ForwardContext): boolean {
  const e = kept.cache.get(key);
  if (e === undefined) return false;
  if (e.epoch !== serving || performance.now() - e.storedAt > kept.maxAgeMs) {
    kept.cache.delete(key);
    return false;
  }
  // Before the answer is written: its access line is made as it ends (at once, on the fast path).
  ctx.kept = true;
  writeAnswer(res, e, e.body, ctx.responseHeaders);
  return true;
}

/** Writes a shared or kept answer to one client: the upstream's headers but those the gateway sets itself for it, then its own. */
function writeAnswer(
  res: ServerResponse,
  a: { status: number; statusText: string; headers: string[] },
  body: Buffer,
  own: string[],
): void {
  if (res.destroyed || res.headersSent) return;
  const ownNames = new Set<string>();
  for (let i = 0; i < own.length; i += 2) ownNames.add(own[i]!.toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < a.headers.length; i += 2) {
    if (!ownNames.has(a.headers[i]!.toLowerCase())) out.push(a.headers[i]!, a.headers[i + 1]!);
  }
  for (const v of own) out.push(v);
  res.writeHead(a.status, a.statusText, out as unknown as OutgoingHttpHeaders);
  res.end(body);
}

/**
 * Stands in for a client's response under the forwarder (the part of `ServerResponse` that `forward.ts` uses): keeps
 * the status, the headers as the forwarder writes them (flat name/value pairs, hop-by-hop and upstream CORS already
 * left out) and the body. Going over `maxBytes` destroys it, which makes the forwarder abort the upstream exchange.
 */
class CollectedAnswer extends EventEmitter {
  status = 0;
  statusText = '';
  headers: string[] = [];
  writableFinished = false;
  destroyed = false;
  headersSent = false;
  readonly ended: Promise<'complete' | 'broken' | 'too big'>;
  private settle!: (outcome: 'complete' | 'broken' | 'too big') => void;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private tooBig = false;

  constructor(private readonly maxBytes: number) {
    super();
    this.ended = new Promise((resolve) => (this.settle = resolve));
  }

  writeHead(status: number, statusText: string, headers: string[]): this {
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }

  write(chunk: Buffer): boolean {
    if (this.destroyed) return true;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.tooBig = true;
      this.destroy();
      return true;
    }
    this.chunks.push(chunk);
    return true;
  }

  end(chunk?: Buffer): this {
    if (chunk) this.write(chunk);
    if (this.destroyed || this.writableFinished) return this;
    this.writableFinished = true;
    this.settle('complete');
    this.emit('finish');
    this.emit('close');
    return this;
  }

  destroy(): this {
    if (this.destroyed || this.writableFinished) return this;
    this.destroyed = true;
    this.settle(this.tooBig ? 'too big' : 'broken');
    this.emit('close');
    return this;
  }

  body(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}
