import { connect } from 'node:net';

/** One raw HTTP/1.1 answer: its status, its headers (lower-case names; repeated ones joined by `, `) and body. */
export interface PipelinedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `requests` (each a request line and header lines, without the blank line) pipelined in ONE write on one
 * connection, so that the server reads them in the same turn of its event loop, and returns the answers in order.
 * Answers must carry `Content-Length` (no chunked bodies); a HEAD request's answer has no body.
 */
export function pipelinedRequests(port: number, requests: string[]): Promise<PipelinedAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const answers: PipelinedAnswer[] = [];
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).toLowerCase();
          const value = line.slice(colon + 1).trim();
          headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
        }
        const head = requests[answers.length]!.startsWith('HEAD ');
        const length = head ? 0 : Number(headers['content-length'] ?? 0);
        if (buf.length < end + 4 + length) return;
        answers.push({
          status: Number(lines[0]!.slice(9, 12)),
          headers,
          body: buf.subarray(end + 4, end + 4 + length).toString('utf8'),
        });
        buf = buf.subarray(end + 4 + length);
        if (answers.length === requests.length) {
          socket.end();
          resolve(answers);
          return;
        }
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (answers.length < requests.length)
        reject(new Error(`connection closed after ${answers.length} of ${requests.length} answers`));
    });
    socket.write(requests.map((r) => `${r}\r\n`).join(''));
  });
}
