import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BadGatewayError, GatewayTimeoutError, ServiceUnavailableError } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import type { Member, UpstreamPool } from '../node-pool/pool';
import { isCorsHeader } from './cors';

/**
 * The forwarder: node:http with keep-alive agents, the request body already read whole (read-request-body.ts: a client
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
}

type Outcome = 'ok' | 'http_5xx' | 'connect_error' | 'timeout' | 'reset' | 'bad_response';

type TryResult =
  | { kind: 'response'; res: IncomingMessage; preq: ClientRequest }
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
        this.metrics.upstreamTries.inc(this.pool.name, member.name, r.outcome);
        this.pool.reportFailure(member, r.outcome);
        last = r;
        if (r.sent && !route.retry) break;
        continue;
      }
      const status = r.res.statusCode ?? 502;
      this.metrics.upstreamLatency.observe((performance.now() - tryStart) / 1000, this.pool.name, member.name);
      if (status >= 500) {
        this.metrics.upstreamTries.inc(this.pool.name, member.name, 'http_5xx');
        this.pool.reportFailure(member, 'http_5xx');
        const canRetry = route.retry && ctx.tries < this.settings.maxTries && Date.now() < deadline && this.pool.pick(tried);
        if (canRetry) {
          last = { outcome: 'http_5xx', message: `${member.name} answered ${status}` };
          r.res.resume();
          continue;
        }
      } else {
        this.metrics.upstreamTries.inc(this.pool.name, member.name, 'ok');
        this.pool.reportSuccess(member);
      }
      this.relay(r.res, r.preq, res, ctx.responseHeaders, ctx.corsOwned === true);
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
      let held: { member: Member; res: IncomingMessage; preq: ClientRequest } | undefined;
      let last: { outcome: Outcome; message: string } | undefined;
      const answer = (member: Member, pres: IncomingMessage, preq: ClientRequest) => {
        done = true;
        ctx.member = member.name;
        this.relay(pres, preq, res, ctx.responseHeaders, ctx.corsOwned === true);
        resolve();
      };
      const settled = () => {
        if (--pending > 0 || done) return;
        if (held && !clientGone) return answer(held.member, held.res, held.preq);
        done = true;
        held?.res.resume();
        if (clientGone) resolve();
        else reject(this.failure(last, false));
      };
      for (const member of members) {
        const tryStart = performance.now();
        void this.tryOnce(member, req, res, target, headers, body, timeoutMs).then((r) => {
          if (r.kind === 'client_gone') clientGone = true;
          else if (r.kind === 'failed') {
            this.metrics.upstreamTries.inc(this.pool.name, member.name, r.outcome);
            this.pool.reportFailure(member, r.outcome);
            last = r;
          } else {
            const status = r.res.statusCode ?? 502;
            this.metrics.upstreamLatency.observe((performance.now() - tryStart) / 1000, this.pool.name, member.name);
            if (status >= 500) {
              this.metrics.upstreamTries.inc(this.pool.name, member.name, 'http_5xx');
              this.pool.reportFailure(member, 'http_5xx');
            } else {
              this.metrics.upstreamTries.inc(this.pool.name, member.name, 'ok');
              this.pool.reportSuccess(member);
            }
            const heldStatus = held?.res.statusCode ?? 502;
            if (done || clientGone) r.res.resume();
            else if (status >= 200 && status < 300) {
              held?.res.resume();
              held = undefined;
              answer(member, r.res, r.preq);
            } else if (!held || (heldStatus >= 500 && status < 500)) {
              held?.res.resume();
              held = { member, res: r.res, preq: r.preq };
            } else r.res.resume();
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
    return new Promise((resolve) => new Attempt(member, req, res, target, headers, body, timeoutMs, resolve));
  }

  /** Streams the upstream answer to the client with the gateway's own headers (rate limits, request id). */
  private relay(pres: IncomingMessage, preq: ClientRequest, res: ServerResponse, own: string[], corsOwned: boolean): void {
    const raw = pres.rawHeaders;
    const out: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const lower = raw[i]!.toLowerCase();
      if (HOP_BY_HOP.has(lower) || (OWN_RESPONSE_HEADERS.has(lower) && setsHeader(own, lower))) continue;
      if (corsOwned && isCorsHeader(lower)) continue;
      out.push(raw[i]!, raw[i + 1]!);
    }
    for (let i = 0; i < own.length; i++) out.push(own[i]!);
    res.writeHead(pres.statusCode ?? 502, pres.statusMessage, out as unknown as OutgoingHttpHeaders);
    // An upstream that stalls mid-body is cut after the try timeout of silence.
    const idle = setTimeout(() => preq.destroy(new Error('upstream body stalled')), this.settings.tryTimeoutMs);
    // The body is relayed by hand rather than with pipe(): the same back-pressure (pause until the client drains)
    // without pipe()'s own half-dozen listeners on both streams per request (issue 26).
    pres.on('data', (chunk: Buffer) => {
      idle.refresh();
      if (!res.write(chunk)) pres.pause();
    });
    res.on('drain', () => pres.resume());
    pres.once('end', () => {
      clearTimeout(idle);
      res.end();
    });
    const cut = () => {
      clearTimeout(idle);
      res.destroy();
    };
    pres.once('error', cut);
    preq.once('error', cut);
    res.once('close', () => {
      clearTimeout(idle);
      if (!pres.complete) preq.destroy();
    });
  }
}

function setsHeader(own: string[], name: string): boolean {
  for (let i = 0; i < own.length; i += 2) if (own[i] === name) return true;
  return false;
}

/**
 * One try on one member. A class rather than closures: the hot path creates one object per try instead of
 * a handful of named functions.
 */
class Attempt {
  private sent = false;
  private settled = false;
  private readonly preq: ClientRequest;
  private readonly timer: NodeJS.Timeout;
  private readonly onClientClose: () => void;

  constructor(
    member: Member,
    req: IncomingMessage,
    private readonly res: ServerResponse,
    target: string,
    headers: string[],
    private readonly body: Buffer | undefined,
    timeoutMs: number,
    private readonly resolve: (r: TryResult) => void,
  ) {
    member.inFlight++;
    const preq = member.request({
      host: member.hostname,
      port: member.port,
      method: req.method,
      path: target,
      agent: member.agent,
      auth: member.auth,
      headers: [...headers, 'host', member.hostHeader] as unknown as OutgoingHttpHeaders,
      setHost: false,
    });
    this.preq = preq;
    this.timer = setTimeout(() => this.fail('timeout', `no answer within ${timeoutMs} ms`), timeoutMs);
    this.onClientClose = () => {
      if (!this.res.writableFinished) {
        this.settle({ kind: 'client_gone' });
        this.preq.destroy();
      }
    };
    res.once('close', this.onClientClose);
    preq.once('close', () => member.inFlight--);
    preq.once('socket', (socket: Socket) => {
      if (socket.connecting) socket.once('connect', () => this.begin());
      else this.begin();
    });
    preq.once('response', (pres: IncomingMessage) => this.settle({ kind: 'response', res: pres, preq }));
    preq.on('error', (err: NodeJS.ErrnoException) => this.onError(err));
  }

  private settle(r: TryResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.res.off('close', this.onClientClose);
    this.resolve(r);
  }

  private fail(outcome: Outcome, message: string): void {
    this.settle({ kind: 'failed', sent: this.sent, outcome, message });
    this.preq.destroy();
  }

  private onError(err: NodeJS.ErrnoException): void {
    if (this.settled) return;
    const code = err.code ?? '';
    if (!this.sent && CONNECT_ERRORS.has(code)) this.fail('connect_error', code);
    else if (code.startsWith('HPE_')) this.fail('bad_response', code);
    else this.fail('reset', code || err.message);
  }

  /** The connection is up: from here on, bytes reach the member. */
  private begin(): void {
    if (this.settled) return;
    this.sent = true;
    if (this.body === undefined) this.preq.end();
    else this.preq.end(this.body);
  }
}
