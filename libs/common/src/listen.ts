import { createServer, type RequestListener, type Server } from 'node:http';

/** Listens and resolves with the bound port (port 0 picks a free one). An express app is a request listener. */
export function listen(app: RequestListener, port: number, host = '0.0.0.0'): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer(app).listen(port, host);
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
