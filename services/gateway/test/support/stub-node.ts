import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What a stub node does wrong, set by the test at any time. */
export type Fault =
  | { kind: 'none' }
  /** 500 text/plain on every route (and on /v2/info). */
  | { kind: 'error' }
  /** 500 on the RPC routes only; /v2/info stays good (health checks pass, passive ejection must act). */
  | { kind: 'rpc-error' }
  /** Waits `ms` before answering the RPC routes (and /v2/info when `info` is set). */
  | { kind: 'slow'; ms: number; info?: boolean }
  /** Answers bytes that are not HTTP. */
  | { kind: 'garbage' };

export interface Delivery {
  method: string;
  path: string;
  /** The request target as received (path and query). */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A small Stacks node stand-in speaking the RPC routes the gateway fronts: `/v2/info` (with a tip height
 * the test moves), `/v2/pox`, `/v2/accounts/{p}`, `POST /v2/contracts/call-read/…`, `POST /v2/fees/transaction`,
 * `POST /v2/transactions` (records every body it receives). It can be stopped (connection refused) and
 * started again on the same port, and given a fault.
 */
export class StubNode {
  tip = 1000;
  fault: Fault = { kind: 'none' };
  /** Every request received, in order. */
  readonly received: Delivery[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(readonly name: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Requests received on a route (path without query). */
  count(path: string, method?: string): number {
    return this.received.filter((d) => d.path === path && (!method || d.method === method)).length;
  }

  rpcCount(): number {
    return this.received.filter((d) => d.path !== '/v2/info').length;
  }

  transactions(): Buffer[] {
    return this.received.filter((d) => d.path === '/v2/transactions').map((d) => d.body);
  }

  async start(): Promise<this> {
    // A request the gateway aborts (e.g. a body cut off at its limit) ends here, unrecorded.
    const server = http.createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
    server.keepAliveTimeout = 5_000;
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : this.port;
    this.server = server;
    return this;
  }

  /** Closes the listener and every connection: new connections are refused. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const body = Buffer.concat(chunks);
    this.received.push({ method: req.method ?? '', path, url, headers: req.headers, body });
    const isInfo = path === '/v2/info';
    const fault = this.fault;
    if (fault.kind === 'garbage' && !isInfo) {
      req.socket.end('NOT HTTP AT ALL\r\n\r\n');
      return;
    }
    if (fault.kind === 'slow' && (!isInfo || fault.info)) await new Promise((r) => setTimeout(r, fault.ms));
    if (fault.kind === 'error' || (fault.kind === 'rpc-error' && !isInfo)) {
      res.writeHead(500, { 'content-type': 'text/plain', 'x-stub-node': this.name });
      res.end('internal error');
      return;
    }
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-stub-node': this.name });
      res.end(JSON.stringify(value));
    };
    const m = req.method;
    if (m === 'GET' && isInfo) {
      return json(200, {
        peer_version: 1,
        stacks_tip_height: this.tip,
        burn_block_height: this.tip + 800_000,
        server_version: `stub ${this.name}`,
      });
    }
    if (m === 'GET' && path === '/v2/pox')
      return json(200, { contract_id: 'SP000000000000000000002Q6VF78.pox-4', current_cycle: { id: 90 } });
    if (m === 'GET' && path.startsWith('/v2/accounts/')) {
      return json(200, {
        balance: '0x0000000000000000000000000000000a',
        locked: '0x0',
        unlock_height: 0,
        nonce: 7,
        node: this.name,
      });
    }
    if (m === 'POST' && path.startsWith('/v2/contracts/call-read/'))
      return json(200, { okay: true, result: '0x0703', node: this.name });
    if (m === 'POST' && path === '/v2/fees/transaction')
      return json(200, { estimated_cost_scalar: 1, node: this.name, echoed: body.length });
    if (m === 'POST' && path === '/v2/transactions') {
      return json(200, createHash('sha256').update(body).digest('hex'));
    }
    if (m === 'GET' && path === '/v2/big') {
      // Streams a large answer in chunks (allowlisted only by tests that configure it).
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-stub-node': this.name });
      for (let i = 0; i < 64; i++) res.write(Buffer.alloc(64 * 1024, i));
      res.end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain', 'x-stub-node': this.name });
    res.end(`no route ${m} ${path}`);
  }
}

export async function startStubNodes(n: number): Promise<StubNode[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => new StubNode(`node${i + 1}`).start()));
}

/** A stand-in api replica: records requests, answers `/readyz` and echoes everything else. */
export class StubApi {
  readonly received: Delivery[] = [];
  private server: Server | undefined;
  port = 0;
  constructor(readonly name: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      try {
        for await (const c of req) chunks.push(c as Buffer);
      } catch {
        res.destroy();
        return;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const body = Buffer.concat(chunks);
      if (path === '/readyz') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"ready"}');
        return;
      }
      this.received.push({ method: req.method ?? '', path, url: req.url ?? '/', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json', 'x-stub-api': this.name, 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ api: this.name, method: req.method, url: req.url, bodyBytes: body.length }));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
