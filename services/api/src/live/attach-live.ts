import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { LiveHub } from './live-hub';
import type { LiveAnnouncement } from './live-announcements';
import { DEFAULT_LIVE_LIMITS, type LiveLimits } from './live-limits';
import { LiveListener } from './live-listener';
import { loopbackRestReader, type RestReader } from './rest-reader';
import { SocketIoChannel } from './socket-io-channel';
import { WsRpcChannel } from './ws-rpc-channel';

const WS_RPC_PATH = '/extended/v1/ws';

export interface LiveOptions {
  server: Server;
  db: Knex;
  /** The database the indexer announces on (the primary: a streaming replica does not relay NOTIFY). */
  listenUrl: string;
  logger: Logger;
  limits?: Partial<LiveLimits>;
  /** Longest wait between reconnection attempts of the listener (ms). */
  maxRetryMs?: number;
  /** How payloads are read (default: this api's own REST endpoints over loopback). */
  rest?: RestReader;
  /** Where the live gauges go (`api_live_connections`, `api_live_subscriptions`, `api_live_dropped_slow_total`). */
  metrics?: Registry;
}

export interface Live {
  hub: LiveHub;
  socketIo: SocketIoChannel;
  wsRpc: WsRpcChannel;
  listener: LiveListener;
  /** Hands an announcement to the hub as the listener does (resolves once it is handled). */
  announce(a: LiveAnnouncement): Promise<void>;
  close(): Promise<void>;
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

/**
 * The `live` family (ADR 0025) on the api's HTTP server: socket.io at `/socket.io/`, JSON-RPC over WebSocket at
 * `/extended/v1/ws`, both fed by the indexer's announcements through one LISTEN connection per process. An upgrade
 * request for any other path is answered 404 and closed.
 */
export async function attachLive(opts: LiveOptions): Promise<Live> {
  const limits: LiveLimits = { ...DEFAULT_LIVE_LIMITS, ...opts.limits };
  const hub = new LiveHub({ db: opts.db, rest: opts.rest ?? loopbackRestReader(opts.server), logger: opts.logger });
  const socketIo = new SocketIoChannel(opts.server, hub, limits, opts.logger);
  const wsRpc = new WsRpcChannel(hub, limits, opts.logger);
  hub.addChannel(socketIo);
  hub.addChannel(wsRpc);
  opts.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = pathOf(req.url);
    if (path === WS_RPC_PATH || path === `${WS_RPC_PATH}/`) {
      wsRpc.handleUpgrade(req, socket, head);
    } else if (!path.startsWith('/socket.io/')) {
      const body = JSON.stringify({ error: 'not_found', message: `no WebSocket endpoint at ${path.slice(0, 100)}` });
      socket.end(
        `HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
  });
  if (opts.metrics) registerLiveGauges(opts.metrics, hub, socketIo, wsRpc);
  const listener = new LiveListener({
    connectionString: opts.listenUrl,
    db: opts.db,
    logger: opts.logger,
    onAnnouncement: (a) => void hub.enqueue(a),
    lastBlockHeight: () => hub.lastBlockHeight,
    maxRetryMs: opts.maxRetryMs ?? 5_000,
  });
  await listener.start();
  return {
    hub,
    socketIo,
    wsRpc,
    listener,
    announce: (a) => hub.enqueue(a),
    close: async () => {
      await listener.stop();
      socketIo.close();
      wsRpc.close();
    },
  };
}

/** Gauges read at scrape time from the channels (no bookkeeping on the hot path). */
function registerLiveGauges(metrics: Registry, hub: LiveHub, socketIo: SocketIoChannel, wsRpc: WsRpcChannel): void {
  new Gauge({
    name: 'api_live_connections',
    help: 'Open live connections of this process by protocol',
    labelNames: ['protocol'],
    registers: [metrics],
    collect() {
      this.set({ protocol: 'socket.io' }, socketIo.connectionCount);
      this.set({ protocol: 'json-rpc' }, wsRpc.connectionCount);
    },
  });
  new Gauge({
    name: 'api_live_subscriptions',
    help: 'Topic subscriptions held by the live connections of this process',
    registers: [metrics],
    collect() {
      this.set(hub.subscriptionCount);
    },
  });
  new Gauge({
    name: 'api_live_dropped_slow_total',
    help: 'Live connections dropped for leaving more than LIVE_MAX_BUFFERED_BYTES unread, by protocol',
    labelNames: ['protocol'],
    registers: [metrics],
    collect() {
      this.set({ protocol: 'socket.io' }, socketIo.droppedSlow);
      this.set({ protocol: 'json-rpc' }, wsRpc.droppedSlow);
    },
  });
}
