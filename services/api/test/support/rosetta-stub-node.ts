/**
 * A stand-in Stacks node for the Construction API tests: a small HTTP server speaking the three RPC routes the api
 * uses — `GET /v2/accounts/{principal}` (nonce), `GET /v2/fees/transfer` (fee rate) and `POST /v2/transactions`
 * (answers the txid, SHA-512/256 of the bytes, as a node does) — and recording what it was sent.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface StubNode {
  url: string;
  /** Bodies POSTed to `/v2/transactions`. */
  submitted: Buffer[];
  /** Requested paths, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startStubNode(opts: { nonce: number; feeRate: number; reject?: boolean }): Promise<StubNode> {
  const submitted: Buffer[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      requests.push(`${req.method} ${path}`);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.method === 'GET' && path.startsWith('/v2/accounts/')) {
        json(200, {
          balance: '0x00000000000000000000000000000000',
          locked: '0x00000000000000000000000000000000',
          unlock_height: 0,
          nonce: opts.nonce,
        });
      } else if (req.method === 'GET' && path === '/v2/fees/transfer') {
        json(200, opts.feeRate);
      } else if (req.method === 'POST' && path === '/v2/transactions') {
        const body = Buffer.concat(chunks);
        submitted.push(body);
        if (opts.reject) json(400, { error: 'transaction rejected', reason: 'BadNonce', txid: '' });
        else json(200, createHash('sha512-256').update(body).digest('hex'));
      } else {
        json(404, { error: 'not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    submitted,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
