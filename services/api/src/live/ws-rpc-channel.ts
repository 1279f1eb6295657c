import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { AppError } from '@bda/common';
import type { LiveChannel, LiveHub, Publication } from './live-hub';
import { SLOW_CONSUMER_CLOSE_CODE, type LiveLimits } from './live-limits';
import { rpcSubscribeResult, topicOfRpcParams } from './live-topics';

type RpcId = string | number | null;
interface RpcError {
  code: number;
  message: string;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/** A connection's state: its topics (normalized keys) and whether it answered the last ping. */
interface Client {
  topics: Set<string>;
  alive: boolean;
  dropped: boolean;
}

/**
 * JSON-RPC 2.0 over WebSocket at `/extended/v1/ws`, as the reference API and its `StacksApiWebSocketClient` speak it:
 * methods `subscribe` and `unsubscribe` with params `{event: 'block' | 'microblock' | 'mempool' | 'tx_update' |
 * 'address_tx_update' | 'address_balance_update' | 'nft_event' | 'nft_asset_event' | 'nft_collection_event', …}`,
 * notifications named like the event (`tx_update`, `address_tx_update`, …). Batches are answered as batches; client
 * notifications are not answered.
 */
export class WsRpcChannel implements LiveChannel {
  private readonly wss: WebSocketServer;
  private readonly clients = new Map<WebSocket, Client>();
  private readonly byTopic = new Map<string, Set<WebSocket>>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Connections dropped for not reading (counted for metrics and tests). */
  droppedSlow = 0;
  /** Bytes the last dropped connection had left unread when it was dropped (never more than the limit). */
  lastDroppedBufferedBytes = 0;

  constructor(
    private readonly hub: LiveHub,
    private readonly limits: LiveLimits,
    private readonly logger: Logger,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, clientTracking: false });
    this.heartbeat = setInterval(() => this.ping(), limits.pingIntervalMs).unref();
  }

  /** Takes over an upgrade request for `/extended/v1/ws`. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws));
  }

  get connectionCount(): number {
    return this.clients.size;
  }

  private connected(ws: WebSocket): void {
    const client: Client = { topics: new Set(), alive: true, dropped: false };
    this.clients.set(ws, client);
    ws.on('pong', () => (client.alive = true));
    ws.on('message', (data, isBinary) => this.message(ws, client, data, isBinary));
    ws.on('error', (err) => this.logger.debug({ err }, 'live ws connection error'));
    ws.on('close', () => this.forget(ws, client));
  }

  private forget(ws: WebSocket, client: Client): void {
    if (!this.clients.delete(ws)) return;
    for (const key of client.topics) this.leave(ws, key);
    client.topics.clear();
  }

  private leave(ws: WebSocket, key: string): void {
    const set = this.byTopic.get(key);
    if (!set?.delete(ws)) return;
    if (set.size === 0) this.byTopic.delete(key);
    this.hub.unsubscribed(key);
  }

  private ping(): void {
    for (const [ws, client] of this.clients) {
      if (!client.alive) {
        ws.terminate();
        continue;
      }
      client.alive = false;
      ws.ping();
    }
  }

  publish(pub: Publication): void {
    const set = this.byTopic.get(pub.key);
    if (!set) return;
    // Encoded once for every subscriber: `ws` sends a Buffer as it is (a server does not mask).
    const data = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: pub.rpcMethod, params: pub.rpcParams }));
    for (const ws of [...set]) this.send(ws, data);
  }

  /** Sends unless the connection already has more unread than allowed: then it is dropped, never buffered further. */
  private send(ws: WebSocket, data: string | Buffer): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount + (typeof data === 'string' ? Buffer.byteLength(data) : data.length) > this.limits.maxBufferedBytes) {
      this.drop(ws);
      return;
    }
    ws.send(data, { binary: false });
  }

  private drop(ws: WebSocket): void {
    const client = this.clients.get(ws);
    if (!client || client.dropped) return;
    client.dropped = true;
    this.droppedSlow++;
    this.lastDroppedBufferedBytes = ws.bufferedAmount;
    this.logger.warn({ buffered: ws.bufferedAmount }, 'live ws connection dropped: slow consumer');
    this.forget(ws, client);
    ws.close(SLOW_CONSUMER_CLOSE_CODE, 'slow consumer: messages left unread');
    setTimeout(() => ws.terminate(), this.limits.dropGraceMs).unref();
  }

  private message(ws: WebSocket, client: Client, data: RawData, isBinary: boolean): void {
    if (client.dropped) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
    } catch {
      this.send(ws, JSON.stringify(errorResponse(null, { code: PARSE_ERROR, message: 'Parse error: not JSON' })));
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        this.send(ws, JSON.stringify(errorResponse(null, { code: INVALID_REQUEST, message: 'Invalid request: empty batch' })));
        return;
      }
      const answers = parsed.map((req) => this.request(ws, client, req)).filter((a) => a !== undefined);
      if (answers.length > 0) this.send(ws, JSON.stringify(answers));
      return;
    }
    const answer = this.request(ws, client, parsed);
    if (answer !== undefined) this.send(ws, JSON.stringify(answer));
  }

  /** One request's answer; undefined for a notification (no `id`), which JSON-RPC never answers. */
  private request(ws: WebSocket, client: Client, req: unknown): object | undefined {
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      return errorResponse(null, { code: INVALID_REQUEST, message: 'Invalid request: not an object' });
    }
    const r = req as Record<string, unknown>;
    const hasId = 'id' in r;
    const id = r['id'];
    const validId = id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
    if (r['jsonrpc'] !== '2.0' || typeof r['method'] !== 'string' || (hasId && !validId)) {
      return errorResponse(validId ? (id as RpcId) : null, {
        code: INVALID_REQUEST,
        message: 'Invalid request: jsonrpc 2.0 with a method',
      });
    }
    if (!hasId) return undefined;
    const rpcId = id as RpcId;
    const method = r['method'];
    if (method !== 'subscribe' && method !== 'unsubscribe') {
      return errorResponse(rpcId, { code: METHOD_NOT_FOUND, message: `Method not found: ${method.slice(0, 60)}` });
    }
    let topic;
    try {
      topic = topicOfRpcParams(r['params']);
    } catch (err) {
      return errorResponse(rpcId, {
        code: INVALID_PARAMS,
        message: `Invalid params: ${err instanceof AppError ? err.message : 'unreadable'}`,
      });
    }
    if (method === 'subscribe') {
      if (!client.topics.has(topic.key)) {
        if (client.topics.size >= this.limits.maxSubscriptions) {
          return errorResponse(rpcId, {
            code: INVALID_PARAMS,
            message: `Invalid params: at most ${this.limits.maxSubscriptions} subscriptions a connection`,
          });
        }
        client.topics.add(topic.key);
        let set = this.byTopic.get(topic.key);
        if (!set) this.byTopic.set(topic.key, (set = new Set()));
        set.add(ws);
        this.hub.subscribed(topic.key);
      }
    } else if (client.topics.delete(topic.key)) {
      this.leave(ws, topic.key);
    }
    return { jsonrpc: '2.0', id: rpcId, result: rpcSubscribeResult(topic) };
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const ws of this.clients.keys()) ws.terminate();
    this.wss.close();
  }
}

function errorResponse(id: RpcId, error: RpcError): object {
  return { jsonrpc: '2.0', id, error };
}
