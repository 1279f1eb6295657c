import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { INVALID_HEADER_VALUE, newHttpParser, type HttpParser } from '../http-parser';

/**
 * The forwarder's keep-alive connections to one upstream member (issue 26, ADR 0044): HTTP/1.1 requests written
 * straight to a socket and answers read with Node's own HTTP parser (llhttp, the binding node:http uses, strict mode),
 * one request at a time per connection, at most `maxSockets` connections, requests waiting in order beyond that.
 * It replaces undici's `Pool` (ADR 0027), whose request objects and WebAssembly parser cost more CPU per try than the
 * rest of the gateway's work on it; the handler protocol is the one undici's `dispatch` has, which the forwarder's
 * `Attempt` implements:
 *
 * - `onConnect(abort)` when a connection is ready and the request is about to be written (from then on, bytes reach
 *   the member); a handler that gave up already calls `abort` there, and nothing is written (the connection stays
 *   for the next request).
 * - `onHeaders(status, rawHeaders, resume, statusText)` once per answer (1xx answers are skipped), `onData(chunk)`
 *   returning false to pause the connection until `resume()`, `onComplete()`; or `onError(err)` once, with the
 *   socket's error code (`ECONNREFUSED`, `ECONNRESET`…), `UPSTREAM_CONNECT_TIMEOUT`, `UPSTREAM_CLOSED` (the member
 *   closed the connection before its answer was whole), `HPE_*` (an answer the parser refuses) or
 *   `UPSTREAM_INVALID_REQUEST` (a header or target that cannot be written; nothing is sent).
 * - `abort()` after `onConnect` closes that connection (an HTTP/1.1 exchange cannot be withdrawn) and calls nothing
 *   more on the handler.
 */
export interface UpstreamHandler {
  onConnect(abort: (err?: Error) => void): void;
  onHeaders(statusCode: number, rawHeaders: string[], resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(): void;
  onError(err: Error): void;
}

export interface UpstreamRequest {
  method: string;
  /** The request target, as the client sent it (checked by the gateway's allowlist). */
  path: string;
  /** Flat name/value pairs, `host` included. */
  headers: readonly string[];
  body: Buffer | null;
}

export interface UpstreamConnectionsOptions {
  maxSockets: number;
  /** A connection not established within this time fails its request (`UPSTREAM_CONNECT_TIMEOUT`). */
  connectTimeoutMs?: number;
  /** An idle connection is closed after this time (below the members' own keep-alive timeouts: Node's is 5 s). */
  idleTimeoutMs?: number;
  /** An answer whose body stays silent this long is cut (a backstop for answers read only to be dropped). */
  bodyTimeoutMs?: number;
}

/** What may be written as a request target and header (anything else would let a client split the request). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_TARGET = /[^\x21-\x7e\x80-\xff]/;

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

interface Waiting {
  request: UpstreamRequest;
  handler: UpstreamHandler;
}

export class UpstreamConnections {
  private readonly idle: UpstreamSocket[] = [];
  private readonly queue: Waiting[] = [];
  private open = 0;
  private closed = false;
  private readonly sweep: NodeJS.Timeout;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly all = new Set<UpstreamSocket>();

  constructor(
    readonly origin: URL,
    private readonly opts: UpstreamConnectionsOptions,
  ) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 4_000;
    this.bodyTimeoutMs = opts.bodyTimeoutMs ?? 300_000;
    this.sweep = setInterval(() => {
      const now = performance.now();
      for (const s of this.all) s.expire(now);
    }, 1_000);
    this.sweep.unref();
  }

  /** Sends `request` on a free connection, a new one, or the first to free up. */
  dispatch(request: UpstreamRequest, handler: UpstreamHandler): void {
    const invalid = this.closed ? 'the upstream pool is closed' : invalidRequest(request);
    if (invalid !== undefined) {
      queueMicrotask(() => handler.onError(codedError('UPSTREAM_INVALID_REQUEST', invalid)));
      return;
    }
    const sock = this.idle.pop();
    if (sock !== undefined) sock.start(request, handler);
    else if (this.open < this.opts.maxSockets) {
      this.open++;
      const s = new UpstreamSocket(this, this.connect());
      this.all.add(s);
      s.connecting(request, handler);
    } else this.queue.push({ request, handler });
  }

  /** A connection is free: the next waiting request, or the idle list. */
  freed(sock: UpstreamSocket): void {
    const next = this.queue.shift();
    if (next !== undefined) sock.start(next.request, next.handler);
    else this.idle.push(sock);
  }

  /** A connection is gone; a waiting request gets a new one. */
  gone(sock: UpstreamSocket): void {
    if (!this.all.delete(sock)) return;
    this.open--;
    const i = this.idle.indexOf(sock);
    if (i !== -1) this.idle.splice(i, 1);
    const next = this.queue.shift();
    if (next !== undefined) this.dispatch(next.request, next.handler);
  }

  destroy(): void {
    this.closed = true;
    clearInterval(this.sweep);
    for (const s of this.all) s.destroy();
    for (const w of this.queue.splice(0)) w.handler.onError(codedError('UPSTREAM_CLOSED', 'the upstream pool is closed'));
  }

  private connect(): Socket {
    const host = this.origin.hostname.replace(/^\[|\]$/g, '');
    const tls = this.origin.protocol === 'https:';
    const port = Number(this.origin.port || (tls ? 443 : 80));
    const socket = tls
      ? tlsConnect({ host, port, servername: host, ALPNProtocols: ['http/1.1'] })
      : netConnect({ host, port, noDelay: true });
    if (tls) socket.setNoDelay(true);
    return socket;
  }
}

function invalidRequest(r: UpstreamRequest): string | undefined {
  if (!TOKEN.test(r.method)) return 'invalid method';
  if (r.path === '' || BAD_TARGET.test(r.path)) return 'invalid request target';
  const h = r.headers;
  for (let i = 0; i < h.length; i += 2) {
    if (!TOKEN.test(h[i]!)) return `invalid header name ${JSON.stringify(h[i])}`;
    if (INVALID_HEADER_VALUE.test(h[i + 1]!)) return `invalid value of header ${h[i]}`;
  }
  return undefined;
}

/** One connection and the exchange on it, if any. */
class UpstreamSocket {
  private readonly parser: HttpParser;
  private handler: UpstreamHandler | undefined;
  private head = false;
  private informational = false;
  private keepAlive = true;
  private ready = false;
  private dead = false;
  private lastActive = performance.now();
  private readonly resume = (): void => {
    this.socket.resume();
  };

  constructor(
    private readonly pool: UpstreamConnections,
    private readonly socket: Socket,
  ) {
    this.parser = newHttpParser('response', {
      onHeadersComplete: (_major, _minor, rawHeaders, _method, _url, status, statusText, _upgrade, keepAlive) => {
        if (status < 200) {
          this.informational = true;
          return 0;
        }
        this.keepAlive = keepAlive;
        const h = this.handler;
        if (h !== undefined && !h.onHeaders(status, rawHeaders ?? [], this.resume, statusText)) this.socket.pause();
        // A HEAD answer has no body whatever its headers say (as node:http tells its parser).
        return this.head ? 1 : 0;
      },
      onBody: (chunk) => {
        const h = this.handler;
        if (h !== undefined && !h.onData(chunk)) this.socket.pause();
      },
      onMessageComplete: () => {
        if (this.informational) {
          this.informational = false;
          return;
        }
        const h = this.handler;
        this.handler = undefined;
        if (this.keepAlive) this.pool.freed(this);
        else this.destroy();
        h?.onComplete();
      },
    });
    socket.on('data', (d: Buffer) => {
      this.lastActive = performance.now();
      // An Error of the binding's realm (not `instanceof` this one's under a test runner's vm): anything not a count.
      const ret = this.parser.execute(d);
      if (typeof ret !== 'number') this.fail(ret);
    });
    socket.on('end', () => {
      // A close-delimited body ends here; anything else unfinished is a cut answer.
      const ret = this.handler !== undefined ? this.parser.finish() : undefined;
      if (ret !== undefined && typeof ret !== 'number') this.fail(ret);
      else this.fail(codedError('UPSTREAM_CLOSED', 'the upstream closed the connection'));
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(codedError('UPSTREAM_CLOSED', 'the upstream closed the connection')));
  }

  /** The first request of a new connection: sent once it is up. */
  connecting(request: UpstreamRequest, handler: UpstreamHandler): void {
    this.handler = handler;
    const event = this.pool.origin.protocol === 'https:' ? 'secureConnect' : 'connect';
    this.socket.once(event, () => {
      this.ready = true;
      this.handler = undefined;
      this.start(request, handler);
    });
  }

  start(request: UpstreamRequest, handler: UpstreamHandler): void {
    this.lastActive = performance.now();
    let aborted = false;
    handler.onConnect((err?: Error) => {
      aborted = true;
      if (this.handler === handler) {
        this.handler = undefined;
        this.destroy(err);
      }
    });
    if (aborted) {
      // Given up before a byte was written: the connection serves the next request.
      if (!this.dead) this.pool.freed(this);
      return;
    }
    this.handler = handler;
    this.head = request.method === 'HEAD';
    this.keepAlive = true;
    let text = `${request.method} ${request.path} HTTP/1.1\r\n`;
    const h = request.headers;
    for (let i = 0; i < h.length; i += 2) text += `${h[i]}: ${h[i + 1]}\r\n`;
    text += '\r\n';
    const socket = this.socket;
    if (request.body === null || request.body.length === 0) socket.write(text, 'latin1');
    else {
      socket.cork();
      socket.write(text, 'latin1');
      socket.write(request.body);
      socket.uncork();
    }
  }

  /** Closes a connection idle too long, or cuts an answer silent too long. */
  expire(now: number): void {
    if (!this.ready) {
      if (now - this.lastActive >= this.pool.connectTimeoutMs) {
        this.fail(codedError('UPSTREAM_CONNECT_TIMEOUT', `no connection within ${this.pool.connectTimeoutMs} ms`));
      }
      return;
    }
    const limit = this.handler === undefined ? this.pool.idleTimeoutMs : this.pool.bodyTimeoutMs;
    if (now - this.lastActive >= limit) this.fail(codedError('UPSTREAM_CLOSED', 'the upstream connection timed out'));
  }

  destroy(err?: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy(err);
    // Possibly called from inside the parser's own callback: it is freed once that has returned.
    const parser = this.parser;
    setImmediate(() => parser.close());
    this.pool.gone(this);
  }

  /** The connection failed: its exchange, if any, ends with `err`. */
  private fail(err: Error): void {
    if (this.dead) return;
    const h = this.handler;
    this.handler = undefined;
    this.destroy();
    h?.onError(err);
  }
}
