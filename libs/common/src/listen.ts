import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorResponse } from './errors';

/**
 * Requests Node's HTTP parser refuses before any handler sees them, by the parser's error code: a request line or
 * headers beyond `--max-http-header-size` (16 KiB), a malformed request, a header or request timeout.
 */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; error: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    error: 'request_too_large',
    message: 'the request line and headers exceed the server limit of 16384 bytes',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    error: 'request_timeout',
    message: 'the request did not arrive in time',
  },
};
const MALFORMED = {
  status: 400,
  reason: 'Bad Request',
  error: 'malformed_request',
  message: 'the request is not valid HTTP/1.1',
};

/**
 * Answers what Node's HTTP parser refuses with the services' JSON error body, where Node would send a bare status line
 * (`431` with no body, for a 20,000-character path). Nothing is written when the connection is gone or a response to
 * it has started already (a later request on the same connection was malformed): then the socket is just closed.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const known = (err.code && CLIENT_ERRORS[err.code]) || MALFORMED;
    const body: ErrorResponse = { error: known.error, message: known.message };
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${known.status} ${known.reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
  return server;
}

/** `http.createServer(listener)` answering unparseable requests in JSON too (`answerClientErrors`). */
export function createHttpServer(listener: RequestListener): Server {
  return answerClientErrors(createServer(listener));
}

/**
 * Listens and resolves with the bound port (port 0 picks a free one). An express app is a request listener. Loopback
 * unless a host is given: a service is reachable from elsewhere only where its configuration says so.
 */
export function listen(app: RequestListener, port: number, host = '127.0.0.1'): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app).listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : port });
    });
  });
}

/** Stops accepting connections and closes idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}
