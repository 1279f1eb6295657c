import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { BadGatewayError, GatewayTimeoutError, InputError, ServiceUnavailableError } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import type { Member, UpstreamPool } from '../node-pool/pool';
import type { UpstreamHandler } from '../node-pool/upstream-connections';
import { DATA_EPOCH } from './answer-cache';
import { isCorsHeader } from './cors';

/**
 * The forwarder: keep-alive connections per member (upstream-connections.ts, ADR 0044), the request body already read whole (read-request-body.ts: a client
 * that aborts, stalls or sends less than it announced never reaches a member), the answer streamed back, and the retry
 * rules of the pool.
 *
 * - A try whose connection failed before any byte was sent may go to another member, whatever the route:
 *   nothing reached anybody.
 * - After bytes were sent, only routes marked `retry` (idempotent) are tried again (on another member),
 *   after a timeout, a broken answer or a 5xx.
 * - Once the response headers are on their way to the client there is no retry; a broken upstream body
 *   ends the client's response early.
 * - Only what a member did counts toward its passive ejection (pool.ts): a client that goes away while a try is
 *   under way ends the try uncounted.
 * - A `broadcast` route (`POST /v2/transactions`) is sent once to every available member at the same time, so that a
 *   transaction spreads even when one node is isolated; the first 2xx answer is relayed (else the first answer below
 *   500, else the first 5xx) and no member is ever tried twice.
 */

export interface ForwardRoute {
  /** Idempotent: may be sent again to another member after it reached one. */
  retry: boolean;
  /** Largest accepted request body in bytes (0 = none). */
  bodyLimit: number;
  /** Sent once to every available member at the same time; the first success answers. */
  broadcast?: boolean;
}

export interface ForwardSettings {
  tryTimeoutMs: number;
  totalTimeoutMs: number;
  maxTries: number;
}

export interface ForwardContext {
  /** Member that answered (or the last one tried). */
  member?: string;
  tries: number;
  /**
   * The gateway's own response headers (request id, rate limits), flat name/value pairs. They are written
   * together with the upstream's in one `writeHead` call: mixing `setHeader` with an array of raw headers
   * would fold repeated upstream headers such as `set-cookie`.
   */
  responseHeaders: string[];
  /** CORS is the gateway's (`cors.ts`): the upstream's `Access-Control-*` headers are dropped. */
  corsOwned?: boolean;
  /** Sees the relayed answer (answer-cache.ts keeps it); not for broadcast routes. */
  tap?: AnswerTap;
  /** Answered from the answers the gateway keeps (ADR 0048): no upstream was asked (the access line says so). */
  kept?: boolean;
}

/**
 * Sees an answer while it is relayed: its status and the upstream's headers as relayed (without the gateway's own and
 * without `x-bda-data-epoch`, whose value comes apart), then each body chunk, then `end` once the body is complete
 * (never called for an answer that broke or was cut).
 */
export interface AnswerTap {
  head(status: number, statusText: string, headers: string[], epoch: string | undefined): void;
  data(chunk: Buffer): void;
  end(): void;
}

type Outcome = 'ok' | 'http_5xx' | 'connect_error' | 'timeout' | 'reset' | 'bad_response' | 'invalid_request';

type TryResult =
  | { kind: 'response'; attempt: Attempt }
  | { kind: 'failed'; sent: boolean; outcome: Outcome; message: string }
  | { kind: 'client_gone' };

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
// Response headers the gateway may set itself (request id, rate limits): when it does, an upstream's go.
const OWN_RESPONSE_HEADERS = new Set([
  'x-request-id',
  'ratelimit-policy',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
]);
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'ECONNRESET',
  'EPIPE',
  'UPSTREAM_CONNECT_TIMEOUT',
]);

/** Hop-by-hop headers (not passed on in either direction). */
export function isHopByHop(lowerName: string): boolean {
  return HOP_BY_HOP.has(lowerName);
}

export class Forwarder {
  constructor(
    private readonly pool: UpstreamPool,
    private readonly settings: ForwardSettings,
    private readonly metrics: Pick<GatewayMetrics, 'upstreamTries' | 'upstreamLatency' | 'upstreamRetries'>,
  ) {}

  /**
   * Sends the request to the pool and streams the answer back. Resolves once the response is under way (or the client
   * is gone); throws the typed error for the caller to answer (as JSON) when no response could be relayed.
   */
  async forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    route: ForwardRoute,
    headers: string[],
    body: Buffer | undefined,
    ctx: ForwardContext,
  ): Promise<void> {
    if (route.broadcast) return this.broadcast(req, res, target, headers, body, ctx);
    const start = Date.now();
    const deadline = start + this.settings.totalTimeoutMs;
    const tried = new Set<Member>();
    let last: { outcome: Outcome; message: string } | undefined;
    while (ctx.tries < this.settings.maxTries) {
      const member = this.pool.pick(tried);
      if (!member) break;
      const timeLeft = deadline - Date.now();
      if (timeLeft <= 0) break;
      if (ctx.tries > 0) this.metrics.upstreamRetries.labels(this.pool.name).inc();
      tried.add(member);
      ctx.tries++;
      ctx.member = member.name;
      const tryStart = performance.now();
      const r = await this.tryOnce(member, req, res, target, headers, body, Math.min(timeLeft, this.settings.tryTimeoutMs));
      if (r.kind === 'client_gone') return;
      if (r.kind === 'failed') {
        // A request that cannot be written (a header or target that is invalid) is the client's doing, not the member's.
        if (r.outcome === 'invalid_request') throw this.failure(r, false);
        this.metrics.upstreamTries.inc(this.pool.name, member.name, r.outcome);
        this.pool.reportFailure(member, r.outcome);
        last = r;
        if (r.sent && !route.retry) break;
        continue;
      }
      const status = r.attempt.status;
      this.metrics.upstreamLatency.observe((performance.now() - tryStart) / 1000, this.pool.name, member.name);
      if (status >= 500) {
        this.metrics.upstreamTries.inc(this.pool.name, member.name, 'http_5xx');
        this.pool.reportFailure(member, 'http_5xx');
        const canRetry = route.retry && ctx.tries < this.settings.maxTries && Date.now() < deadline && this.pool.pick(tried);
        if (canRetry) {
          last = { outcome: 'http_5xx', message: `${member.name} answered ${status}` };
          r.attempt.discard();
          continue;
        }
      } else {
        this.metrics.upstreamTries.inc(this.pool.name, member.name, 'ok');
        this.pool.reportSuccess(member);
      }
      r.attempt.relay(ctx.responseHeaders, ctx.corsOwned === true, ctx.tap);
      return;
    }
    throw this.failure(last, ctx.tries === 0 && Date.now() < deadline);
  }

  /** The typed error when no answer could be relayed (`last`: the last failed try, if any). */
  private failure(last: { outcome: Outcome; message: string } | undefined, nothingTried: boolean): Error {
    const what = this.pool.name === 'node' ? 'node' : 'api replica';
    if (!last) {
      if (nothingTried) return new ServiceUnavailableError(`no healthy ${what} is available`);
      return new GatewayTimeoutError(`no ${what} answered in time`);
    }
    switch (last.outcome) {
      case 'timeout':
        return new GatewayTimeoutError(`the ${what} did not answer in time`);
      case 'connect_error':
        return new ServiceUnavailableError(`no ${what} could be reached`);
      case 'invalid_request':
        return new InputError(`the request cannot be forwarded (${last.message})`);
      default:
        return new BadGatewayError(`the ${what} gave a broken answer (${last.message})`);
    }
  }

  /**
   * Sends the request once to every available member at the same time and relays the first 2xx answer; when none
   * succeeds, the first answer below 500 (a node's verdict, e.g. a rejected transaction), else the first 5xx, else the
   * error of the last failed try. The other answers are read and dropped. No member is tried twice.
   */
  private broadcast(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    headers: string[],
    body: Buffer | undefined,
    ctx: ForwardContext,
  ): Promise<void> {
    const members: Member[] = [];
    const picked = new Set<Member>();
    for (let m = this.pool.pick(picked); m; m = this.pool.pick(picked)) {
      picked.add(m);
      members.push(m);
    }
    if (members.length === 0) return Promise.reject(this.failure(undefined, true));
    ctx.tries = members.length;
    const timeoutMs = Math.min(this.settings.totalTimeoutMs, this.settings.tryTimeoutMs);
    return new Promise<void>((resolve, reject) => {
      let pending = members.length;
      let done = false;
      let clientGone = false;
      let held: { member: Member; attempt: Attempt } | undefined;
      let last: { outcome: Outcome; message: string } | undefined;
      const answer = (member: Member, attempt: Attempt) => {
        done = true;
        ctx.member = member.name;
        attempt.relay(ctx.responseHeaders, ctx.corsOwned === true);
        resolve();
      };
      const settled = () => {
        if (--pending > 0 || done) return;
        if (held && !clientGone) return answer(held.member, held.attempt);
        done = true;
        held?.attempt.discard();
        if (clientGone) resolve();
        else reject(this.failure(last, false));
      };
      for (const member of members) {
        const tryStart = performance.now();
        void this.tryOnce(member, req, res, target, headers, body, timeoutMs).then((r) => {
          if (r.kind === 'client_gone') clientGone = true;
          else if (r.kind === 'failed') {
            if (r.outcome !== 'invalid_request') {
              this.metrics.upstreamTries.inc(this.pool.name, member.name, r.outcome);
              this.pool.reportFailure(member, r.outcome);
            }
            last = r;
          } else {
            const status = r.attempt.status;
            this.metrics.upstreamLatency.observe((performance.now() - tryStart) / 1000, this.pool.name, member.name);
            if (status >= 500) {
              this.metrics.upstreamTries.inc(this.pool.name, member.name, 'http_5xx');
              this.pool.reportFailure(member, 'http_5xx');
            } else {
              this.metrics.upstreamTries.inc(this.pool.name, member.name, 'ok');
              this.pool.reportSuccess(member);
            }
            const heldStatus = held?.attempt.status ?? 502;
            if (done || clientGone) r.attempt.discard();
            else if (status >= 200 && status < 300) {
              held?.attempt.discard();
              held = undefined;
              answer(member, r.attempt);
            } else if (!held || (heldStatus >= 500 && status < 500)) {
              held?.attempt.discard();
              held = { member, attempt: r.attempt };
            } else r.attempt.discard();
          }
          settled();
        });
      }
    });
  }

  private tryOnce(
    member: Member,
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    headers: string[],
    body: Buffer | undefined,
    timeoutMs: number,
  ): Promise<TryResult> {
    return new Promise(
      (resolve) =>
        new Attempt(member, req.method ?? 'GET', res, target, headers, body, timeoutMs, this.settings.tryTimeoutMs, resolve),
    );
  }
}

function setsHeader(own: string[], name: string): boolean {
  for (let i = 0; i < own.length; i += 2) if (own[i] === name) return true;
  return false;
}

type Phase = 'waiting' | 'held' | 'relaying' | 'discarded' | 'over';

/**
 * One try on one member, as a handler of the member's keep-alive connections (upstream-connections.ts): one object per
 * try and no stream per answer, instead of node:http's ClientRequest, agent queue and IncomingMessage (issue 26, ADR
 * 0027, ADR 0044).
 *
 * - `onConnect` is the signal that the connection is up and the request is about to be written: from there on,
 *   bytes reach the member (`sent`). A try that was already given up (timeout, client gone) aborts there, so a request
 *   queued behind a slow connect is never sent after the gateway moved on.
 * - The response headers settle the try; body chunks that arrive before the forwarder decides (relay or drop) are held
 *   and written out on relay, and the client's back-pressure pauses the member's socket (`onData` returns false until
 *   the client's `drain`).
 * - One timer: the try timeout until the headers, then the idle timeout of the body while it is relayed (an upstream
 *   that stalls mid-body is cut after `tryTimeoutMs` of silence).
 */
class Attempt implements UpstreamHandler {
  status = 0;
  private phase: Phase = 'waiting';
  private sent = false;
  private abortRequest: ((err?: Error) => void) | undefined;
  private resumeSocket: (() => void) | undefined;
  private statusText = '';
  private rawHeaders: string[] = [];
  private held: Buffer[] | undefined;
  private tap: AnswerTap | undefined;
  private complete = false;
  private bodyError = false;
  private timer: NodeJS.Timeout | undefined;
  private released = false;
  private readonly onClientClose = (): void => {
    if (this.res.writableFinished) return;
    if (this.phase === 'waiting') this.settle({ kind: 'client_gone' });
    if (!this.complete) this.abort();
  };
  private readonly onClientDrain = (): void => this.resumeSocket?.();

  constructor(
    private readonly member: Member,
    method: string,
    private readonly res: ServerResponse,
    target: string,
    headers: string[],
    body: Buffer | undefined,
    timeoutMs: number,
    private readonly idleMs: number,
    private readonly resolve: (r: TryResult) => void,
  ) {
    member.inFlight++;
    this.timer = setTimeout(() => this.onTimer(timeoutMs), timeoutMs);
    res.once('close', this.onClientClose);
    const all =
      member.authorization === undefined
        ? [...headers, 'host', member.hostHeader]
        : [...headers, 'host', member.hostHeader, 'authorization', member.authorization];
    member.connections.dispatch({ path: target, method, headers: all, body: body ?? null }, this);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortRequest = abort;
    if (this.phase !== 'waiting') {
      abort();
      return;
    }
    this.sent = true;
  }

  onHeaders(statusCode: number, rawHeaders: string[], resume: () => void, statusText: string): boolean {
    if (this.phase !== 'waiting') return true;
    this.status = statusCode;
    this.statusText = statusText;
    this.rawHeaders = rawHeaders;
    this.resumeSocket = resume;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.settle({ kind: 'response', attempt: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.phase === 'relaying') {
      this.timer?.refresh();
      this.tap?.data(chunk);
      if (this.res.write(chunk)) return true;
      this.res.once('drain', this.onClientDrain);
      return false;
    }
    if (this.phase === 'held') (this.held ??= []).push(chunk);
    return true;
  }

  onComplete(): void {
    this.complete = true;
    this.release();
    if (this.phase === 'relaying') {
      // The exchange is over: its silence timer must not fire later on a connection that has moved on (it destroyed
      // the client's keep-alive connection one try timeout after every answer relayed while it arrived).
      this.phase = 'over';
      if (this.timer !== undefined) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      this.tap?.end();
      this.res.end();
    }
  }

  onError(err: Error): void {
    this.release();
    if (this.phase === 'waiting') {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'UPSTREAM_INVALID_REQUEST') this.fail('invalid_request', err.message);
      else if (!this.sent && CONNECT_ERRORS.has(code)) this.fail('connect_error', code);
      else if (code.startsWith('HPE_')) this.fail('bad_response', code);
      else this.fail('reset', code || err.message);
    } else if (this.phase === 'relaying') this.res.destroy();
    else if (this.phase === 'held') this.bodyError = true;
  }

  /**
   * Writes the answer to the client with the gateway's own headers (rate limits, request id) first in line; the api's
   * `x-bda-data-epoch` goes only to `tap`, never to a client.
   */
  relay(own: string[], corsOwned: boolean, tap?: AnswerTap): void {
    const raw = this.rawHeaders;
    const out: string[] = [];
    let epoch: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || (OWN_RESPONSE_HEADERS.has(lower) && setsHeader(own, lower))) continue;
      if (corsOwned && isCorsHeader(lower)) continue;
      if (lower === DATA_EPOCH) {
        epoch = raw[i + 1];
        continue;
      }
      out.push(name, raw[i + 1]!);
    }
    if (tap !== undefined) {
      this.tap = tap;
      tap.head(this.status, this.statusText, out.slice(), epoch);
    }
    for (let i = 0; i < own.length; i++) out.push(own[i]!);
    const res = this.res;
    res.writeHead(this.status, this.statusText, out as unknown as OutgoingHttpHeaders);
    const held = this.held;
    this.held = undefined;
    if (this.bodyError) {
      this.phase = 'over';
      res.destroy();
      return;
    }
    if (this.complete) {
      this.phase = 'over';
      if (tap !== undefined) {
        if (held !== undefined) for (const chunk of held) tap.data(chunk);
        tap.end();
      }
      if (held === undefined) res.end();
      else if (held.length === 1) res.end(held[0]);
      else {
        for (const chunk of held) res.write(chunk);
        res.end();
      }
      return;
    }
    this.phase = 'relaying';
    if (held !== undefined) {
      for (const chunk of held) {
        tap?.data(chunk);
        res.write(chunk);
      }
    }
    this.timer = setTimeout(() => this.onTimer(this.idleMs), this.idleMs);
  }

  /** The answer is not relayed (a 5xx retried elsewhere, a broadcast's other answers): read to its end and dropped. */
  discard(): void {
    this.phase = 'discarded';
    this.held = undefined;
  }

  private onTimer(ms: number): void {
    this.timer = undefined;
    if (this.phase === 'waiting') this.fail('timeout', `no answer within ${ms} ms`);
    else if (this.phase === 'relaying') {
      this.phase = 'over';
      this.abort(new Error('upstream body stalled'));
      this.res.destroy();
    }
  }

  private settle(r: TryResult): void {
    if (this.phase !== 'waiting') return;
    this.phase = r.kind === 'response' ? 'held' : 'over';
    if (this.timer !== undefined && r.kind !== 'response') {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.resolve(r);
  }

  private fail(outcome: Outcome, message: string): void {
    this.settle({ kind: 'failed', sent: this.sent, outcome, message });
    this.abort();
  }

  /** Ends the exchange with the member (its connection is closed: an HTTP/1.1 exchange cannot be cancelled). */
  private abort(err?: Error): void {
    if (this.complete) return;
    this.release();
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Not connected yet: onConnect aborts it when its turn comes (the phase is no longer 'waiting').
    this.abortRequest?.(err);
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.member.inFlight--;
  }
}
