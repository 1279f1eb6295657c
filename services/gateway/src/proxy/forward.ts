import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayMetrics } from '../metrics';
import type { Member, UpstreamPool } from '../node-pool/pool';

/**
 * The forwarder: node:http with keep-alive agents, bodies streamed both ways, and the retry rules of the pool.
 *
 * - A try whose connection failed before any byte was sent may go to another member, whatever the route:
 *   the request body is only piped once the socket is connected, so nothing reached anybody.
 * - After bytes were sent, only routes marked `retry` (idempotent) are tried again (on another member),
 *   after a timeout, a broken answer or a 5xx. Their bodies are small and buffered so they can be replayed.
 * - Once the response headers are on their way to the client there is no retry; a broken upstream body
 *   ends the client's response early.
 */

export interface ForwardRoute {
  /** Idempotent: may be sent again to another member after it reached one. */
  retry: boolean;
  /** Largest accepted request body in bytes (0 = none). */
  bodyLimit: number;
}

export interface ForwardSettings {
  tryTimeoutMs: number;
  totalTimeoutMs: number;
  maxTries: number;
}

export type ForwardFailure =
  | { status: 413; error: 'payload_too_large'; message: string }
  | { status: 502; error: 'bad_gateway'; message: string }
  | { status: 503; error: 'service_unavailable'; message: string }
  | { status: 504; error: 'gateway_timeout'; message: string };

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
}

type Outcome = 'ok' | 'http_5xx' | 'connect_error' | 'timeout' | 'reset' | 'bad_response';

type TryResult =
  | { kind: 'response'; res: IncomingMessage; preq: ClientRequest }
  | { kind: 'failed'; sent: boolean; outcome: Outcome; message: string }
  | { kind: 'too_large' }
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
// Request headers the gateway replaces or must not pass on.
const DROP_REQUEST = new Set([
  ...HOP_BY_HOP,
  'host',
  'expect',
  'content-length',
  'x-api-key',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'forwarded',
]);
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'ECONNRESET', 'EPIPE']);

export class Forwarder {
  constructor(
    private readonly pool: UpstreamPool,
    private readonly settings: ForwardSettings,
    private readonly metrics: Pick<GatewayMetrics, 'upstreamTries' | 'upstreamLatency' | 'upstreamRetries'>,
  ) {}

  /**
   * Sends the request to the pool and streams the answer back. Resolves with a failure for the caller to
   * answer (as JSON) when no response could be relayed, or undefined once the response is under way.
   */
  async forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    route: ForwardRoute,
    clientIp: string,
    ctx: ForwardContext,
  ): Promise<ForwardFailure | undefined> {
    const start = Date.now();
    const deadline = start + this.settings.totalTimeoutMs;
    const declared = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    const length = declared === undefined ? undefined : Number(declared);
    if (length !== undefined && length > route.bodyLimit) return tooLarge(route.bodyLimit);
    if (route.bodyLimit === 0 && chunked) return tooLarge(0);
    const hasBody = chunked || (length !== undefined && length > 0);

    let body: Buffer | 'stream' | undefined;
    if (hasBody && route.retry) {
      const buffered = await readBody(req, route.bodyLimit);
      if (buffered === 'too_large') return tooLarge(route.bodyLimit);
      if (buffered === 'aborted') return undefined;
      body = buffered;
    } else if (hasBody) {
      body = 'stream';
    }
    const headers = this.requestHeaders(req, clientIp, body);

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
      const r = await this.tryOnce(member, req, res, target, headers, body, route, Math.min(timeLeft, this.settings.tryTimeoutMs));
      if (r.kind === 'too_large') return tooLarge(route.bodyLimit);
      if (r.kind === 'client_gone') return undefined;
      if (r.kind === 'failed') {
        this.metrics.upstreamTries.labels(this.pool.name, member.name, r.outcome).inc();
        this.pool.reportFailure(member, r.outcome);
        last = r;
        if (r.sent && !route.retry) break;
        continue;
      }
      const status = r.res.statusCode ?? 502;
      this.metrics.upstreamLatency.labels(this.pool.name, member.name).observe((performance.now() - tryStart) / 1000);
      if (status >= 500) {
        this.metrics.upstreamTries.labels(this.pool.name, member.name, 'http_5xx').inc();
        this.pool.reportFailure(member, 'http_5xx');
        const canRetry = route.retry && ctx.tries < this.settings.maxTries && Date.now() < deadline && this.pool.pick(tried);
        if (canRetry) {
          last = { outcome: 'http_5xx', message: `${member.name} answered ${status}` };
          r.res.resume();
          continue;
        }
      } else {
        this.metrics.upstreamTries.labels(this.pool.name, member.name, 'ok').inc();
        this.pool.reportSuccess(member);
      }
      this.relay(r.res, r.preq, res, ctx.responseHeaders);
      return undefined;
    }
    const what = this.pool.name === 'node' ? 'node' : 'api replica';
    if (!last) {
      if (ctx.tries === 0 && Date.now() < deadline) {
        return { status: 503, error: 'service_unavailable', message: `no healthy ${what} is available` };
      }
      return { status: 504, error: 'gateway_timeout', message: `no ${what} answered in time` };
    }
    switch (last.outcome) {
      case 'timeout':
        return { status: 504, error: 'gateway_timeout', message: `the ${what} did not answer in time` };
      case 'connect_error':
        return { status: 503, error: 'service_unavailable', message: `no ${what} could be reached` };
      default:
        return { status: 502, error: 'bad_gateway', message: `the ${what} gave a broken answer (${last.message})` };
    }
  }

  private requestHeaders(req: IncomingMessage, clientIp: string, body: Buffer | 'stream' | undefined): string[] {
    const raw = req.rawHeaders;
    const out: string[] = [];
    let xff = '';
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      if (lower === 'x-forwarded-for') xff = xff ? `${xff}, ${raw[i + 1]}` : raw[i + 1]!;
      if (DROP_REQUEST.has(lower)) continue;
      out.push(name, raw[i + 1]!);
    }
    // Headers named by Connection are hop-by-hop too.
    const conn = req.headers.connection;
    if (conn && conn !== 'keep-alive' && conn !== 'close') {
      const named = new Set(conn.split(',').map((s) => s.trim().toLowerCase()));
      for (let i = out.length - 2; i >= 0; i -= 2) if (named.has(out[i]!.toLowerCase())) out.splice(i, 2);
    }
    const peer = req.socket.remoteAddress ?? '';
    out.push('x-forwarded-for', xff ? `${xff}, ${peer}` : peer);
    out.push('x-real-ip', clientIp);
    out.push('x-forwarded-proto', 'http');
    if (req.headers.host) out.push('x-forwarded-host', req.headers.host);
    const id = req.headers['x-request-id'];
    if (typeof id === 'string') out.push('x-request-id', id);
    if (Buffer.isBuffer(body)) out.push('content-length', String(body.length));
    else if (body === 'stream') {
      if (req.headers['content-length'] !== undefined) out.push('content-length', req.headers['content-length']);
      else out.push('transfer-encoding', 'chunked');
    }
    return out;
  }

  private tryOnce(
    member: Member,
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    headers: string[],
    body: Buffer | 'stream' | undefined,
    route: ForwardRoute,
    timeoutMs: number,
  ): Promise<TryResult> {
    return new Promise((resolve) => {
      let sent = false;
      let settled = false;
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
      const settle = (r: TryResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        res.off('close', onClientClose);
        resolve(r);
      };
      const fail = (outcome: Outcome, message: string) => {
        settle({ kind: 'failed', sent, outcome, message });
        preq.destroy();
      };
      const timer = setTimeout(() => fail('timeout', `no answer within ${timeoutMs} ms`), timeoutMs);
      const onClientClose = () => {
        if (!res.writableFinished) {
          settle({ kind: 'client_gone' });
          preq.destroy();
        }
      };
      res.once('close', onClientClose);
      preq.once('close', () => member.inFlight--);

      const begin = () => {
        if (settled) return;
        sent = true;
        if (body === undefined) preq.end();
        else if (Buffer.isBuffer(body)) preq.end(body);
        else {
          let bytes = 0;
          const onData = (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > route.bodyLimit) {
              req.unpipe(preq);
              req.off('data', onData);
              settle({ kind: 'too_large' });
              preq.destroy();
            }
          };
          req.on('data', onData);
          req.pipe(preq);
          req.once('aborted', () => fail('reset', 'client aborted the body'));
        }
      };
      preq.once('socket', (socket: Socket) => {
        if (socket.connecting) socket.once('connect', begin);
        else begin();
      });
      preq.once('response', (pres) => settle({ kind: 'response', res: pres, preq }));
      preq.on('error', (err: NodeJS.ErrnoException) => {
        if (settled) return;
        const code = err.code ?? '';
        if (!sent && CONNECT_ERRORS.has(code)) fail('connect_error', code);
        else if (code.startsWith('HPE_')) fail('bad_response', code);
        else fail('reset', code || err.message);
      });
    });
  }

  /** Streams the upstream answer to the client with the gateway's own headers (rate limits, request id). */
  private relay(pres: IncomingMessage, preq: ClientRequest, res: ServerResponse, own: string[]): void {
    const raw = pres.rawHeaders;
    const out: string[] = [];
    const ownNames = new Set<string>();
    for (let i = 0; i < own.length; i += 2) ownNames.add(own[i]!);
    for (let i = 0; i < raw.length; i += 2) {
      const lower = raw[i]!.toLowerCase();
      if (HOP_BY_HOP.has(lower) || ownNames.has(lower)) continue;
      out.push(raw[i]!, raw[i + 1]!);
    }
    for (let i = 0; i < own.length; i++) out.push(own[i]!);
    res.writeHead(pres.statusCode ?? 502, pres.statusMessage, out as unknown as OutgoingHttpHeaders);
    // An upstream that stalls mid-body is cut after the try timeout of silence.
    const idle = setTimeout(() => preq.destroy(new Error('upstream body stalled')), this.settings.tryTimeoutMs);
    pres.on('data', () => idle.refresh());
    const end = () => clearTimeout(idle);
    pres.once('end', end);
    pres.once('error', () => {
      end();
      res.destroy();
    });
    pres.once('aborted', () => {
      end();
      res.destroy();
    });
    preq.once('error', () => {
      end();
      res.destroy();
    });
    res.once('close', () => {
      end();
      if (!pres.complete) preq.destroy();
    });
    pres.pipe(res);
  }
}

function tooLarge(limit: number): ForwardFailure {
  return {
    status: 413,
    error: 'payload_too_large',
    message: limit === 0 ? 'this route takes no request body' : `the request body exceeds the limit of ${limit} bytes`,
  };
}

/** Reads a body of at most `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        cleanup();
        req.resume();
        resolve('too_large');
      } else chunks.push(c);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onAbort = () => {
      cleanup();
      resolve('aborted');
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('aborted', onAbort);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
  });
}
