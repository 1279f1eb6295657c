import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: bodies are asserted field by field
  json: () => any;
}

export interface RequestOptions {
  method?: string;
  /** Sent byte for byte (no normalization): path tricks and absolute-form targets go through as written. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string | Iterable<Buffer> | AsyncIterable<Buffer>;
  timeoutMs?: number;
}

/** One request on a fresh connection to 127.0.0.1:port. */
export function request(port: number, opts: RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...opts.headers };
    // Node's client sends a GET body without a length unless told: give it one.
    if (
      (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')
    ) {
      headers['content-length'] = String(Buffer.byteLength(opts.body));
    }
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: opts.method ?? 'GET',
      path: opts.path,
      headers,
      agent: false,
    });
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.once('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text,
          json: () => JSON.parse(text),
        });
      });
    });
    const b = opts.body;
    if (b === undefined) req.end();
    else if (typeof b === 'string' || Buffer.isBuffer(b)) req.end(b);
    else {
      void (async () => {
        for await (const chunk of b as AsyncIterable<Buffer>) {
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        }
        req.end();
      })().catch((err: Error) => req.destroy(err));
    }
  });
}

/** Polls `fn` until it returns true, up to `ms` (a wait with a deadline, not a timing assertion). */
export async function waitFor(fn: () => boolean | Promise<boolean>, ms = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
