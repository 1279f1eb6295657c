import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { NotFoundError, RateLimitedError, ServiceUnavailableError, toErrorAnswer, type Logger } from '@bda/common';
import type { HandlerDeps } from '../proxy/gateway-handler';
import type { UpstreamPool } from '../node-pool/pool';
import { authenticate } from '../proxy/authenticate';
import { checkTarget } from '../proxy/allowlist';
import { addressGroup, clientIp } from '../proxy/client-ip';
import { forwardedHeaders, forwardedTarget } from '../proxy/forwarded-request';
import { limitRequest } from '../rate-limit/limit-request';
import type { Subject } from '../rate-limit/policy';
import { WebSocketConnections } from './websocket-connections';

/** The live endpoints of the api (ADR 0025) the gateway upgrades to. */
const SOCKET_IO_PREFIX = '/socket.io/';
const WS_RPC_PATH = '/extended/v1/ws';

interface WebSocketPolicy {
  /** Open live connections per key and gateway process. */
  maxPerKey: number;
  /** Open live connections per anonymous client address (grouped as the rate limit groups them) and process. */
  maxPerAddress: number;
  /** How often the keys of open connections are verified again (a revoked key's connections are closed), ms. */
  recheckMs: number;
  /** Time the api has to answer the upgrade, ms. */
  upgradeTimeoutMs: number;
}

export interface WebSocketProxyDeps extends Pick<
  HandlerDeps,
  'config' | 'logger' | 'metrics' | 'keys' | 'invalidKeys' | 'limiter'
> {
  keys: HandlerDeps['keys'] & { verify: HandlerDeps['keys']['verify'] };
  apiPool: UpstreamPool;
  policy: WebSocketPolicy;
}

/** The key a WebSocket upgrade presents: the `x-api-key` header, or (browsers cannot set headers) the query parameter. */
function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? header.join(',') : header;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if (q === -1) return undefined;
  try {
    return new URLSearchParams(url.slice(q + 1)).get('x-api-key') ?? undefined;
  } catch {
    return undefined;
  }
}

function isLivePath(path: string): boolean {
  return path.startsWith(SOCKET_IO_PREFIX) || path === WS_RPC_PATH;
}

/** Answers an upgrade request with an HTTP error (JSON, as every gateway error) and closes the connection. */
function refuse(socket: Duplex, err: unknown, logger: Logger): void {
  const answer = toErrorAnswer(err);
  if (answer.unexpected) logger.error({ err }, 'websocket upgrade failed');
  const body = JSON.stringify(answer.body);
  let head = `HTTP/1.1 ${answer.status} ${answer.status === 401 ? 'Unauthorized' : answer.status === 429 ? 'Too Many Requests' : 'Error'}\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) head += `${name}: ${value}\r\n`;
  head += `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  if (socket.writable) socket.end(head + body);
  else socket.destroy();
}

/**
 * WebSocket upgrades through the gateway (ADR 0025): only the api's live endpoints (`/socket.io/…`,
 * `/extended/v1/ws`), with the request target checked as for any request, the key (header or `x-api-key` query
 * parameter) authenticated as for any request (an invalid key → 401 before the upgrade), the upgrade counted as one
 * request against the subject's rate limit, and the open connection counted against the subject's connection limit.
 * The upgrade goes to an available api replica with the gateway's forwarding headers and without the key; from the
 * 101 on, bytes are relayed both ways untouched. Every `recheckMs`, the keys of open connections are verified again
 * (the key store's cache follows revocations within its poll), and a connection whose key is no longer valid is closed.
 */
export function attachWebSocketProxy(
  server: Server,
  deps: WebSocketProxyDeps,
): { close(): void; connections: WebSocketConnections } {
  const connections = new WebSocketConnections();
  const { config, logger } = deps;
  const authDeps = {
    keys: deps.keys,
    invalidKeys: deps.invalidKeys,
    policy: config.policy,
    limit: (subject: Subject) => limitRequest(deps, subject),
    metrics: deps.metrics,
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const steps = async () => {
      const url = req.url ?? '/';
      const target = checkTarget(url);
      if (!target.ok) throw new NotFoundError(`no WebSocket endpoint: ${target.message}`);
      if (!isLivePath(target.path) || req.method !== 'GET') throw new NotFoundError(`no WebSocket endpoint at ${target.path}`);
      const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustProxy);
      const group = addressGroup(ip, config.ipv6Prefix);
      const presented = presentedKey(req);
      const who = await authenticate(presented === '' ? undefined : presented, group, authDeps);
      await authDeps.limit(who.subject);
      const max = who.keyId !== undefined ? deps.policy.maxPerKey : deps.policy.maxPerAddress;
      if (connections.countOf(who.subject.id) >= max) {
        throw new RateLimitedError(
          `at most ${max} open live connections ${who.keyId !== undefined ? 'per key' : 'per client address'}`,
          60,
        );
      }
      const member = deps.apiPool.pick();
      if (!member) throw new ServiceUnavailableError('no api replica is available');
      const headers = forwardedHeaders(req, ip, config.trustProxy, undefined);
      headers.push('host', member.hostHeader, 'connection', 'Upgrade', 'upgrade', String(req.headers.upgrade ?? 'websocket'));
      const upstream = httpRequest({
        host: member.hostname,
        port: member.port,
        method: 'GET',
        path: forwardedTarget(url),
        headers,
        timeout: deps.policy.upgradeTimeoutMs,
      });
      upstream.on('timeout', () => upstream.destroy(new Error('upgrade timeout')));
      upstream.on('error', (err) => {
        if (!socket.destroyed)
          refuse(socket, new ServiceUnavailableError(`the api replica did not take the upgrade: ${err.message}`), logger);
      });
      upstream.on('response', (res) => {
        // Not upgraded (e.g. a refused topic at the socket.io handshake): relayed as an answer, then closed.
        let text = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`;
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          if (name !== 'connection' && name !== 'transfer-encoding' && name !== 'keep-alive')
            text += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          socket.end(Buffer.concat([Buffer.from(`${text}content-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]));
        });
      });
      upstream.on('upgrade', (res, upSocket: Socket, upHead: Buffer) => {
        if (socket.destroyed) {
          upSocket.destroy();
          return;
        }
        let text = `HTTP/1.1 101 Switching Protocols\r\n`;
        for (let i = 0; i < res.rawHeaders.length; i += 2) text += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
        socket.write(`${text}\r\n`);
        if (upHead.length > 0) socket.write(upHead);
        if (head.length > 0) upSocket.write(head);
        upSocket.setNoDelay(true);
        (socket as Socket).setNoDelay?.(true);
        upSocket.on('error', () => socket.destroy());
        socket.on('close', () => upSocket.destroy());
        upSocket.on('close', () => socket.destroy());
        upSocket.pipe(socket);
        socket.pipe(upSocket);
        connections.add({
          subjectId: who.subject.id,
          presentedKey: who.keyId !== undefined ? presented : undefined,
          client: socket,
          upstream: upSocket,
        });
      });
      upstream.end();
    };
    steps().catch((err: unknown) => refuse(socket, err, logger));
  });

  const recheck = setInterval(() => {
    for (const key of connections.presentedKeys()) {
      void deps.keys.verify(key).then((auth) => {
        // Unavailable (PostgreSQL down, nothing cached): the connection stays, as a request would not be refused 401.
        if (auth.status === 'revoked' || auth.status === 'unknown') {
          const n = connections.closeKey(key);
          logger.info({ closed: n, status: auth.status }, 'live connections of a key that is no longer valid closed');
        }
      });
    }
  }, deps.policy.recheckMs);
  recheck.unref();

  return {
    connections,
    close: () => {
      clearInterval(recheck);
      connections.closeAll();
    },
  };
}
