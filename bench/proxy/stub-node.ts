/**
 * A minimal Stacks node stand-in for the proxy benchmark: answers `/v2/info` with a fixed JSON body,
 * keep-alive on. `node --import tsx bench/proxy/stub-node.ts <port>`
 */
import http from 'node:http';

const port = Number(process.argv[2] ?? 20443);
const body = Buffer.from(
  JSON.stringify({
    peer_version: 402653196,
    pox_consensus: '0x8e8b4d0b2bd1e2b7a8f0c5e1c1b1f0c3b2d1a0e9',
    burn_block_height: 881234,
    stable_pox_consensus: '0x2a2b4d0b2bd1e2b7a8f0c5e1c1b1f0c3b2d1a0e9',
    stable_burn_block_height: 881227,
    server_version: 'stacks-node bench stub',
    network_id: 1,
    parent_network_id: 3652501241,
    stacks_tip_height: 1234567,
    stacks_tip: '0x4f1c3e8a2b7d9f0e1c2b3a4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081',
    stacks_tip_consensus_hash: '0x1c2b3a4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    unanchored_tip: null,
    exit_at_block_height: null,
  }),
);
const server = http.createServer((req, res) => {
  if (req.url === '/v2/info') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 });
  res.end('not found');
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
