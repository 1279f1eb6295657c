import type { Server as HttpServer } from 'node:http';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import { AppError } from '@bda/common';
import type { LiveChannel, LiveHub, Publication } from './live-hub';
import { SLOW_CONSUMER_CLOSE_CODE, type LiveLimits } from './live-limits';
import { parseTopic, type LiveTopic } from './live-topics';

/** The engine.io internals the slow-consumer check reads (engine.io 6 on `ws`). */
interface EngineConnection {
  writeBuffer: Array<{ data?: unknown }>;
  transport?: { socket?: { bufferedAmount?: number; close(code: number, reason: string): void; terminate(): void } };
}

/** A socket's topics: normalized key → the name it subscribed with (its room, and the event name it listens on). */
type SocketTopics = Map<string, string>;

function topicsOf(socket: Socket): SocketTopics {
  const data = socket.data as { topics?: SocketTopics };
  return (data.topics ??= new Map());
}

function splitTopics(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((v) => String(v).split(',')).filter((t) => t !== '');
}

/**
 * socket.io at `/socket.io/` (WebSocket transport only: replicas share no session state, so long-polling's several
 * requests per session could land on different replicas), as the reference API and its `StacksApiSocketClient`
 * speak it: topics in the handshake's `subscriptions` query parameter (comma-separated; an invalid one refuses the
 * connection), events `subscribe` (a topic or an array, with an acknowledgement: `null` or the error) and
 * `unsubscribe` (topics); messages are emitted under the topic's name.
 */
export class SocketIoChannel implements LiveChannel {
  readonly io: Server;
  /** key → room names (client spellings) → sockets in that room. */
  private readonly rooms = new Map<string, Map<string, number>>();
  /** Connections dropped for not reading. */
  droppedSlow = 0;

  constructor(
    server: HttpServer,
    private readonly hub: LiveHub,
    private readonly limits: LiveLimits,
    private readonly logger: Logger,
  ) {
    this.io = new Server(server, {
      path: '/socket.io/',
      transports: ['websocket'],
      serveClient: false,
      cors: { origin: '*' },
      pingInterval: limits.pingIntervalMs,
      maxHttpBufferSize: limits.maxMessageBytes,
      // Upgrades of other paths are answered by attachLive, not ended by engine.io after a second.
      destroyUpgrade: false,
    });
    this.io.use((socket, next) => {
      try {
        const topics = splitTopics(socket.handshake.query['subscriptions']).map(parseTopic);
        if (topics.length > limits.maxSubscriptions) {
          next(new Error(`Too many topics: at most ${limits.maxSubscriptions} subscriptions a connection`));
          return;
        }
        (socket.data as { initial?: LiveTopic[] }).initial = topics;
        next();
      } catch (err) {
        next(new Error(err instanceof AppError ? `Invalid topic: ${err.message}` : 'Invalid topic'));
      }
    });
    this.io.on('connection', (socket) => this.connected(socket));
  }

  get connectionCount(): number {
    return this.io.of('/').sockets.size;
  }

  private connected(socket: Socket): void {
    for (const topic of (socket.data as { initial?: LiveTopic[] }).initial ?? []) this.join(socket, topic);
    socket.on('subscribe', (raw: unknown, ack?: unknown) => {
      const reply = typeof ack === 'function' ? (ack as (error: string | null) => void) : () => undefined;
      let topics: LiveTopic[];
      try {
        topics = (Array.isArray(raw) ? raw : [raw]).map(parseTopic);
      } catch (err) {
        reply(err instanceof AppError ? `Invalid topic: ${err.message}` : 'Invalid topic');
        return;
      }
      const held = topicsOf(socket);
      const adding = topics.filter((t) => !held.has(t.key)).length;
      if (held.size + adding > this.limits.maxSubscriptions) {
        reply(`Too many topics: at most ${this.limits.maxSubscriptions} subscriptions a connection`);
        return;
      }
      for (const t of topics) this.join(socket, t);
      reply(null);
    });
    socket.on('unsubscribe', (...raw: unknown[]) => {
      for (const name of raw) {
        if (typeof name !== 'string') continue;
        try {
          this.leave(socket, parseTopic(name).key);
        } catch {
          // not a topic: nothing held under it
        }
      }
    });
    socket.on('disconnect', () => {
      for (const key of [...topicsOf(socket).keys()]) this.leave(socket, key);
    });
  }

  private join(socket: Socket, topic: LiveTopic): void {
    const held = topicsOf(socket);
    if (held.has(topic.key)) return;
    held.set(topic.key, topic.name);
    void socket.join(topic.name);
    let names = this.rooms.get(topic.key);
    if (!names) this.rooms.set(topic.key, (names = new Map()));
    names.set(topic.name, (names.get(topic.name) ?? 0) + 1);
    this.hub.subscribed(topic.key);
  }

  private leave(socket: Socket, key: string): void {
    const held = topicsOf(socket);
    const name = held.get(key);
    if (name === undefined) return;
    held.delete(key);
    void socket.leave(name);
    const names = this.rooms.get(key);
    if (names) {
      const n = (names.get(name) ?? 1) - 1;
      if (n > 0) names.set(name, n);
      else names.delete(name);
      if (names.size === 0) this.rooms.delete(key);
    }
    this.hub.unsubscribed(key);
  }

  publish(pub: Publication): void {
    const names = this.rooms.get(pub.key);
    if (!names) return;
    const sockets = this.io.of('/').sockets;
    for (const name of [...names.keys()]) {
      // Slow consumers first: a connection with more unread than allowed is dropped, never buffered further.
      const room = this.io.of('/').adapter.rooms.get(name);
      for (const id of room ? [...room] : []) {
        const s = sockets.get(id);
        if (s && pendingBytes(s) > this.limits.maxBufferedBytes) this.drop(s);
      }
      this.io.to(name).emit(name, ...pub.socketIoArgs);
    }
  }

  private drop(socket: Socket): void {
    this.droppedSlow++;
    const conn = socket.conn as unknown as EngineConnection;
    this.logger.warn({ buffered: pendingBytes(socket) }, 'live socket.io connection dropped: slow consumer');
    for (const key of [...topicsOf(socket).keys()]) this.leave(socket, key);
    // engine.io would wait for its write buffer to drain before closing, which a client that does not read never
    // lets happen: the buffer is let go and the WebSocket closed with the slow-consumer code, then destroyed.
    conn.writeBuffer.length = 0;
    const ws = conn.transport?.socket;
    if (ws) {
      ws.close(SLOW_CONSUMER_CLOSE_CODE, 'slow consumer: messages left unread');
      setTimeout(() => ws.terminate(), this.limits.dropGraceMs).unref();
    } else {
      socket.disconnect(true);
    }
  }

  /** Disconnects every socket (not `io.close()`, which would close the api's HTTP server too). */
  close(): void {
    this.io.disconnectSockets(true);
    this.io.engine.close();
  }
}

/** Bytes a socket.io connection has not handed to the kernel yet: engine.io's write buffer and the WebSocket's. */
function pendingBytes(socket: Socket): number {
  const conn = socket.conn as unknown as EngineConnection;
  let n = conn.transport?.socket?.bufferedAmount ?? 0;
  for (const p of conn.writeBuffer) {
    if (typeof p.data === 'string') n += p.data.length;
    else if (p.data instanceof Uint8Array) n += p.data.byteLength;
  }
  return n;
}
