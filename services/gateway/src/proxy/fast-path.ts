import { EventEmitter } from 'node:events';
import { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_METHODS, INVALID_HEADER_VALUE, newHttpParser, type HttpParser } from '../http-parser';

/**
 * The gateway's fast path for the common request (issue 26, ADR 0044): a keep-alive HTTP/1.1 `GET` or `HEAD` without a
 * body that arrives whole in one read. Such a request is parsed by Node's own HTTP parser (llhttp, the binding
 * `node:http` itself uses, strict mode) straight from the socket and handed to the gateway's handler as a small request
 * object and a small response object that write the answer to the socket, without the `IncomingMessage` /
 * `ServerResponse` streams, their listeners and their per-request bookkeeping, which cost more CPU than the rest of the
 * gateway's work on such a request.
 *
 * Everything else is Node's: a connection whose bytes are anything else (a body, an upgrade, `Expect`, HTTP/1.0,
 * `Connection: close`, a repeated header, a head split over reads, pipelined requests, a malformed request, the
 * gateway's own paths) is handed to the `node:http` server it came from, bytes unread, and stays there for its life,
 * with Node's limits, timeouts and error answers. A request the fast path serves has nothing those would act on: its
 * head was complete, valid and within the parser's size limit in its first read.
 */

export interface FastPathOptions {
  /** True for request targets the fast path may serve (the gateway's own paths go to Node's server). */
  serves: (url: string) => boolean;
  /** A new connection that has not sent a whole request head within this time is closed (GATEWAY_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
}

export interface FastPath {
  /** Closes the fast path's idle connections now and every busy one after its answer (shutdown: intake closes). */
  closeIdle(): void;
  /** Connections the fast path holds now (tests, metrics). */
  connections(): number;
}

/**
 * Takes over `server`'s connections: each is read by the fast path first, and handed to Node's own connection
 * listener (the server's `request`, `upgrade`, `clientError` handling, timeouts) at the first request it does not
 * serve. `handler` answers both kinds of request.
 */
export function attachFastPath(server: Server, handler: RequestListener, options: FastPathOptions): FastPath {
  const nodeListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (nodeListeners.length !== 1) throw new Error('attachFastPath expects the http server with its own listener only');
  const nodeListener = nodeListeners[0]!;
  server.removeListener('connection', nodeListener);
  const live = new Set<FastConnection>();
  let closing = false;
  const ctx: ConnectionContext = {
    handler,
    serves: options.serves,
    keepAliveSeconds: () => Math.floor(server.keepAliveTimeout / 1000),
    closing: () => closing,
    handOff: (socket) => nodeListener.call(server, socket),
    live,
  };
  server.on('connection', (socket: Socket) => {
    if (closing) nodeListener.call(server, socket);
    else live.add(new FastConnection(socket, ctx));
  });
  // One timer for every connection's idle and head deadlines, as Node's own server checks its connections.
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const c of live) c.expire(now, options.headersTimeoutMs, server.keepAliveTimeout);
    },
    Math.max(250, Math.min(1_000, Math.floor(options.headersTimeoutMs / 4))),
  );
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
  return {
    closeIdle() {
      closing = true;
      for (const c of live) c.closeIfIdle();
    },
    connections: () => live.size,
  };
}

interface ConnectionContext {
  handler: RequestListener;
  serves: (url: string) => boolean;
  keepAliveSeconds: () => number;
  closing: () => boolean;
  handOff: (socket: Socket) => void;
  live: Set<FastConnection>;
}

/** What the parser found in one read. */
interface Found {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: Record<string, string>;
  complete: boolean;
}

/** One client connection while the fast path holds it. */
class FastConnection {
  private readonly parser: HttpParser;
  private found: Found | undefined;
  /** Not served by the fast path (decided while parsing the read). */
  private refused = false;
  private messages = 0;
  private current: FastResponse | undefined;
  /** When the connection last became idle (performance.now()); a connection that never sent anything: its start. */
  private idleSince: number;
  private served = 0;
  /** Bytes that came while an answer was under way. */
  private held: Buffer | undefined;
  /** Handed to Node's server, or closed: no longer the fast path's. */
  private gone = false;
  private readonly onData = (chunk: Buffer): void => this.read(chunk);
  private readonly onDrain = (): void => {
    this.current?.emit('drain');
  };
  private readonly onClose = (): void => this.closed();
  /**
   * The client shut its side (node:http's server is not half-open either): an answer under way is abandoned, as
   * node:http aborts its request; an idle connection is ended.
   */
  private readonly onEnd = (): void => {
    if (this.current !== undefined) this.socket.destroy();
    else this.socket.end();
  };
  private readonly onError = (): void => {
    // A reset client: 'close' follows and ends the answer under way.
  };

  constructor(
    readonly socket: Socket,
    private readonly ctx: ConnectionContext,
  ) {
    this.idleSince = performance.now();
    this.parser = newHttpParser('request', {
      onHeaders: () => {
        // More header lines than one callback carries: Node's server reassembles them.
        this.refused = true;
      },
      onHeadersComplete: (
        major: number,
        minor: number,
        rawHeaders: string[] | undefined,
        method: number,
        url: string | undefined,
        _status: number,
        _statusMessage: string,
        upgrade: boolean,
        keepAlive: boolean,
      ): number => {
        this.messages++;
        if (this.refused || this.messages > 1 || rawHeaders === undefined || url === undefined) {
          this.refused = true;
          return 0;
        }
        const name = HTTP_METHODS[method];
        if ((name !== 'GET' && name !== 'HEAD') || major !== 1 || minor !== 1 || upgrade || !keepAlive || !ctx.serves(url)) {
          this.refused = true;
          return 0;
        }
        const headers: Record<string, string> = {};
        for (let i = 0; i < rawHeaders.length; i += 2) {
          const lower = rawHeaders[i]!.toLowerCase();
          // A body (announced or chunked), Expect, or a repeated header (Node's rules for joining them stay Node's).
          if (
            headers[lower] !== undefined ||
            lower === 'transfer-encoding' ||
            lower === 'expect' ||
            (lower === 'content-length' && rawHeaders[i + 1] !== '0')
          ) {
            this.refused = true;
            return 0;
          }
          headers[lower] = rawHeaders[i + 1]!;
        }
        this.found = { method: name, url, rawHeaders, headers, complete: false };
        return 0;
      },
      onBody: () => {
        this.refused = true;
      },
      onMessageComplete: () => {
        if (this.found) this.found.complete = true;
      },
    });
    socket.setNoDelay(true);
    socket.on('data', this.onData);
    socket.on('drain', this.onDrain);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  /** One read from the client: exactly one whole request the fast path serves, or the connection goes to Node. */
  private read(chunk: Buffer): void {
    if (this.current !== undefined) {
      // Bytes while an answer is under way (a pipelining client): held until the answer is written, then read again
      // (Node's server takes such a client over then; its answers must not interleave with this one).
      this.socket.pause();
      this.held = this.held === undefined ? chunk : Buffer.concat([this.held, chunk]);
      return;
    }
    this.found = undefined;
    this.refused = false;
    this.messages = 0;
    const ret = this.parser.execute(chunk);
    const found = this.found as Found | undefined;
    if (typeof ret !== 'number' || this.refused || found === undefined || !found.complete || ret !== chunk.length) {
      this.handOff(chunk);
      return;
    }
    this.serve(found);
  }

  private serve(found: Found): void {
    const socket = this.socket;
    const req = new FastRequest(found, socket);
    const res = new FastResponse(this, found.method === 'HEAD');
    this.current = res;
    this.served++;
    this.ctx.handler(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  }

  /** The answer under way is written whole: the connection waits for the client's next request, or closes. */
  answered(res: FastResponse): void {
    if (this.current !== res) return;
    this.current = undefined;
    this.idleSince = performance.now();
    const held = this.held;
    if (held === undefined || this.gone) return;
    this.held = undefined;
    process.nextTick(() => {
      if (this.gone) return;
      this.socket.resume();
      this.read(held);
    });
  }

  /** `Connection: close` on this answer: the gateway is shutting down. */
  closingAfterAnswer(): boolean {
    return this.ctx.closing();
  }

  keepAliveSeconds(): number {
    return this.ctx.keepAliveSeconds();
  }

  /** Hands the connection, with `unread` (the bytes of its current read, none of them answered), to Node's server. */
  private handOff(unread: Buffer): void {
    const socket = this.socket;
    this.detach();
    socket.pause();
    socket.unshift(unread);
    this.ctx.handOff(socket);
    socket.resume();
  }

  private detach(): void {
    if (this.gone) return;
    this.gone = true;
    const socket = this.socket;
    socket.removeListener('data', this.onData);
    socket.removeListener('drain', this.onDrain);
    socket.removeListener('end', this.onEnd);
    socket.removeListener('error', this.onError);
    socket.removeListener('close', this.onClose);
    this.ctx.live.delete(this);
    this.parser.close();
  }

  private closed(): void {
    this.detach();
    const res = this.current;
    this.current = undefined;
    res?.socketClosed();
  }

  /** Closes the connection when it has been idle too long, or never sent a whole head within the headers timeout. */
  expire(now: number, headersTimeoutMs: number, keepAliveMs: number): void {
    if (this.current !== undefined) return;
    const limit = this.served === 0 ? headersTimeoutMs : keepAliveMs;
    if (limit > 0 && now - this.idleSince >= limit) this.socket.destroy();
  }

  closeIfIdle(): void {
    if (this.current === undefined) this.socket.destroy();
  }
}

/** The request as the gateway's handler reads it: the subset of `IncomingMessage` it uses. */
class FastRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly rawHeaders: string[];
  readonly httpVersion = '1.1';
  /** The whole request (it has no body) is in. */
  readonly complete = true;

  constructor(
    found: Found,
    readonly socket: Socket,
  ) {
    this.method = found.method;
    this.url = found.url;
    this.headers = found.headers;
    this.rawHeaders = found.rawHeaders;
  }
}

let dateSecond = 0;
let dateText = '';
/** The `Date` header's value, made once a second (as Node's server does). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/**
 * The answer as the gateway's handler writes it: the subset of `ServerResponse` it uses (`statusCode`, `setHeader`,
 * `writeHead` with a flat list of raw headers, `write` with back-pressure, `end`, `destroy`; `close`, `finish` and
 * `drain` events), framed as Node's server frames it: the given `Content-Length`, otherwise chunked; no body on `HEAD`,
 * 1xx, 204 and 304; `Date`, `Connection` and `Keep-Alive` added.
 */
class FastResponse extends EventEmitter {
  statusCode = 200;
  statusMessage: string | undefined;
  headersSent = false;
  writableFinished = false;
  destroyed = false;
  private headers: Map<string, [string, string]> | undefined;
  private head = '';
  private chunked = false;
  private noBody: boolean;
  private closeAfter = false;
  private over = false;
  /** The length end() knows of an answer given whole without one: written after Keep-Alive, where Node writes it. */
  private implicitLength: number | undefined;

  constructor(
    private readonly conn: FastConnection,
    private readonly isHead: boolean,
  ) {
    super();
    this.noBody = isHead;
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    if (this.headersSent)
      throw Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    (this.headers ??= new Map()).set(name.toLowerCase(), [name, Array.isArray(value) ? value.join(', ') : String(value)]);
    return this;
  }

  writeHead(status: number, reason?: string | readonly string[] | Record<string, string>, list?: readonly string[]): this {
    if (this.headersSent)
      throw Object.assign(new Error('Cannot write headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    let flat: readonly string[] | Record<string, string> | undefined = list;
    if (typeof reason === 'string') this.statusMessage = reason;
    else flat = reason;
    this.statusCode = status;
    const lines: string[] = [];
    let length = false;
    let date = false;
    let connection = false;
    const add = (name: string, value: string) => {
      if (INVALID_HEADER_VALUE.test(value))
        throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
      const lower = name.length === 14 || name.length === 4 || name.length === 10 ? name.toLowerCase() : '';
      if (lower === 'content-length') length = true;
      else if (lower === 'date') date = true;
      else if (lower === 'connection') {
        connection = true;
        if (value.toLowerCase() === 'close') this.closeAfter = true;
      }
      lines.push(name, ': ', value, '\r\n');
    };
    if (this.headers) for (const [name, value] of this.headers.values()) add(name, value);
    if (Array.isArray(flat)) for (let i = 0; i < flat.length; i += 2) add(flat[i]!, flat[i + 1]!);
    else if (flat) for (const name in flat as Record<string, string>) add(name, String((flat as Record<string, string>)[name]));
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) this.noBody = true;
    if (!date) lines.push('Date: ', httpDate(), '\r\n');
    if (this.conn.closingAfterAnswer()) this.closeAfter = true;
    if (!connection) {
      if (this.closeAfter) lines.push('Connection: close\r\n');
      else lines.push('Connection: keep-alive\r\nKeep-Alive: timeout=', String(this.conn.keepAliveSeconds()), '\r\n');
    }
    if (this.implicitLength !== undefined && !length) {
      lines.push('Content-Length: ', String(this.implicitLength), '\r\n');
      length = true;
    }
    if (!length && !this.noBody) {
      this.chunked = true;
      lines.push('Transfer-Encoding: chunked\r\n');
    }
    this.head = `HTTP/1.1 ${status} ${this.statusMessage ?? STATUS_CODES[status] ?? 'unknown'}\r\n${lines.join('')}\r\n`;
    this.headersSent = true;
    return this;
  }

  write(chunk: Buffer | string): boolean {
    if (this.over) return false;
    if (!this.headersSent) this.writeHead(this.statusCode);
    const socket = this.conn.socket;
    const body = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.noBody || body.length === 0) return this.flushHead();
    if (this.head === '' && !this.chunked) return socket.write(body);
    let ok: boolean;
    socket.cork();
    if (this.head !== '') {
      socket.write(this.head, 'latin1');
      this.head = '';
    }
    if (this.chunked) {
      socket.write(`${body.length.toString(16)}\r\n`, 'latin1');
      socket.write(body);
      ok = socket.write('\r\n', 'latin1');
    } else ok = socket.write(body);
    socket.uncork();
    return ok;
  }

  end(chunk?: Buffer | string): this {
    if (this.over) return this;
    if (!this.headersSent) {
      // As Node's server: a whole answer given to end() gets its length, unless it can have no body.
      const status = this.statusCode;
      const bodiless = this.isHead || status === 204 || status === 304 || (status >= 100 && status < 200);
      if (!bodiless && this.headers?.has('content-length') !== true) {
        this.implicitLength = chunk === undefined ? 0 : typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      }
      this.writeHead(status);
    }
    if (chunk !== undefined) this.write(chunk);
    const socket = this.conn.socket;
    if (this.chunked) socket.write(this.head === '' ? '0\r\n\r\n' : `${this.head}0\r\n\r\n`, 'latin1');
    else this.flushHead();
    this.head = '';
    this.over = true;
    this.writableFinished = true;
    if (this.closeAfter) socket.end();
    this.emit('finish');
    this.emit('close');
    this.conn.answered(this);
    return this;
  }

  destroy(): this {
    // Once the answer is written whole the socket belongs to the connection's next exchange: nothing of this one
    // may close it.
    if (this.destroyed || this.over) return this;
    this.destroyed = true;
    this.conn.socket.destroy();
    return this;
  }

  /** The client's connection closed before the answer was written whole. */
  socketClosed(): void {
    if (this.over) return;
    this.over = true;
    this.destroyed = true;
    this.emit('close');
  }

  private flushHead(): boolean {
    if (this.head === '') return true;
    const ok = this.conn.socket.write(this.head, 'latin1');
    this.head = '';
    return ok;
  }
}
