/**
 * bench/live/subscribers: a process of idle live subscribers for `run.ts` (forked with an IPC channel). Each is an
 * official client of its own (`StacksApiSocketClient`, socket.io over WebSocket, or `StacksApiWebSocketClient`,
 * JSON-RPC), subscribed to `block` and doing nothing else. It records, per connection, every block height received and
 * when (`Date.now()`, the same wall clock as PostgreSQL's commit timestamps on this machine), and answers the
 * orchestrator's requests:
 *
 * - `connect` {url, count, protocol}: opens `count` more connections (CONNECT_WAVE at a time), answers `connected`;
 * - `await` {height}: answers `received` with every connection's receive time of that block, once all have it;
 * - `check` {heights}: answers `checked` with the connections whose received heights are not exactly `heights`;
 * - `close`: closes every connection and forgets them, answers `closed`.
 */
import { StacksApiSocketClient, StacksApiWebSocketClient } from '@stacks/blockchain-api-client';

export type Protocol = 'socket.io' | 'json-rpc';

export type SubscriberRequest =
  | { type: 'connect'; url: string; count: number; protocol: Protocol }
  | { type: 'await'; height: number }
  | { type: 'check'; heights: number[] }
  | { type: 'close' };

export type SubscriberReply =
  | { type: 'connected'; count: number }
  | { type: 'received'; height: number; times: number[] }
  | { type: 'checked'; connections: number; wrong: number; example?: number[] }
  | { type: 'closed' }
  | { type: 'failed'; message: string };

/** Connections opened at once (each waits for its handshake before the next wave). */
const CONNECT_WAVE = 200;

interface Subscriber {
  heights: number[];
  times: Map<number, number>;
  /** Why the connection closed before `close` (a heartbeat timeout, the server going away): it receives nothing more. */
  lost?: string;
  close(): void;
}

/** Longest wait for one block (ms), answered with what is missing: shorter than the orchestrator's own wait. */
const AWAIT_MS = 150_000;

const subscribers: Subscriber[] = [];
/** Connections that received each height (a count, not a scan of every connection per message). */
const counts = new Map<number, number>();
/** Heights someone awaits → resolve, called when every connection has it. */
const waiting = new Map<number, () => void>();

function reply(msg: SubscriberReply): void {
  process.send!(msg);
}

function received(s: Subscriber, height: number): void {
  s.times.set(height, Date.now());
  s.heights.push(height);
  const n = (counts.get(height) ?? 0) + 1;
  counts.set(height, n);
  const done = waiting.get(height);
  if (done && n === subscribers.length) {
    waiting.delete(height);
    done();
  }
}

async function connectOne(url: string, protocol: Protocol): Promise<Subscriber> {
  const s: Subscriber = { heights: [], times: new Map(), close: () => undefined };
  if (protocol === 'socket.io') {
    const client = new StacksApiSocketClient({
      url,
      subscriptions: ['block'],
      socketOpts: { reconnection: false, forceNew: true, timeout: 120_000 },
    });
    client.socket.on('block', (b) => received(s, (b as { height: number }).height));
    client.socket.on('disconnect', (reason) => (s.lost ??= reason));
    s.close = () => {
      client.socket.off('disconnect');
      client.socket.close();
    };
    await new Promise<void>((resolve, reject) => {
      client.socket.once('connect', () => resolve());
      client.socket.once('connect_error', reject);
    });
  } else {
    const client = await StacksApiWebSocketClient.connect(`${url.replace(/^http/, 'ws')}/extended/v1/ws`);
    await client.subscribeBlocks((b) => received(s, (b as { height: number }).height));
    const ws = client.webSocket as unknown as WebSocket;
    const onClose = (e: { code: number }) => (s.lost ??= `closed ${e.code}`);
    ws.addEventListener('close', onClose);
    s.close = () => {
      ws.removeEventListener('close', onClose);
      ws.close();
    };
  }
  return s;
}

async function handle(msg: SubscriberRequest): Promise<void> {
  switch (msg.type) {
    case 'connect': {
      for (let done = 0; done < msg.count; done += CONNECT_WAVE) {
        const wave = Math.min(CONNECT_WAVE, msg.count - done);
        subscribers.push(...(await Promise.all(Array.from({ length: wave }, () => connectOne(msg.url, msg.protocol)))));
      }
      reply({ type: 'connected', count: subscribers.length });
      return;
    }
    case 'await': {
      if ((counts.get(msg.height) ?? 0) < subscribers.length) {
        let timer: NodeJS.Timeout | undefined;
        const all = await Promise.race([
          new Promise<boolean>((resolve) => waiting.set(msg.height, () => resolve(true))),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), AWAIT_MS))),
        ]);
        clearTimeout(timer);
        if (!all) {
          const lost = new Map<string, number>();
          for (const s of subscribers) if (s.lost) lost.set(s.lost, (lost.get(s.lost) ?? 0) + 1);
          throw new Error(
            `block ${msg.height}: ${counts.get(msg.height) ?? 0} of ${subscribers.length} connections received it within ${AWAIT_MS / 1000} s; closed meanwhile: ${JSON.stringify(Object.fromEntries(lost))}`,
          );
        }
      }
      reply({ type: 'received', height: msg.height, times: subscribers.map((s) => s.times.get(msg.height)!) });
      return;
    }
    case 'check': {
      const want = JSON.stringify(msg.heights);
      const wrong = subscribers.filter((s) => JSON.stringify(s.heights) !== want);
      reply({ type: 'checked', connections: subscribers.length, wrong: wrong.length, example: wrong[0]?.heights });
      return;
    }
    case 'close': {
      for (const s of subscribers) s.close();
      subscribers.length = 0;
      counts.clear();
      waiting.clear();
      reply({ type: 'closed' });
      return;
    }
  }
}

process.on('message', (msg: SubscriberRequest) => {
  handle(msg).catch((err: unknown) => reply({ type: 'failed', message: (err as Error).message ?? String(err) }));
});
process.on('disconnect', () => process.exit(0));
