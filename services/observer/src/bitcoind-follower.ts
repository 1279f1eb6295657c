import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { encodeEnvelope, type BusProducer } from '@bda/bus';

export interface BitcoindFollowerOptions {
  /** JSON-RPC endpoint, e.g. `http://127.0.0.1:8332`. */
  rpcUrl: string;
  user?: string;
  password?: string;
  /** First height to publish. */
  startHeight: number;
  pollIntervalMs: number;
  producer: BusProducer;
  /** Full topic name (prefix included). */
  topic: string;
  logger: Logger;
  metrics?: Registry;
  /** Published hashes remembered to notice reorgs (default 1,000 blocks). */
  memory?: number;
  /** Timeout of one RPC call (default 30 s; `getblock` of a large block takes a while). */
  rpcTimeoutMs?: number;
}

export class BitcoindRpcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BitcoindRpcError';
  }
}

/**
 * Follows a bitcoind's best chain and publishes every block to `bitcoin.blocks` as the observer's
 * `POST /new_bitcoin_block` would (`{block_height, raw_block}`), in chain order. It remembers the hashes it
 * published: when the node's block at a published height changes (or a fetched block's parent is not the one
 * published below it), it steps back to where the chains agree and publishes the new branch from there — the
 * indexer rolls back when a height arrives again with another hash. Nothing is lost on a failed RPC call or bus
 * publish: the position only moves once a block is durable on the bus. The position lives in memory: a restart
 * publishes again from `startHeight` (duplicates are harmless to the indexer).
 */
export class BitcoindFollower {
  private next: number;
  private readonly published = new Map<number, string>();
  /** Set by `stop()`: the background loop and a poll in progress end after the current block. */
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private rpcId = 0;
  private readonly memory: number;
  private readonly blocksPublished?: Counter;
  private readonly nodeHeight?: Gauge;

  constructor(private readonly opts: BitcoindFollowerOptions) {
    this.next = opts.startHeight;
    this.memory = opts.memory ?? 1_000;
    if (opts.metrics) {
      this.blocksPublished = new Counter({
        name: 'observer_bitcoind_blocks_published_total',
        help: 'Bitcoin blocks the bitcoind follower published to the bus (re-published reorg branches included)',
        registers: [opts.metrics],
      });
      this.nodeHeight = new Gauge({
        name: 'observer_bitcoind_height',
        help: 'Best height reported by the followed bitcoind',
        registers: [opts.metrics],
      });
    }
  }

  /** The next height to publish. */
  get nextHeight(): number {
    return this.next;
  }

  start(): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.pollOnce();
      } catch (err) {
        this.opts.logger.warn({ err, next: this.next }, 'bitcoind follower: poll failed, retrying');
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.opts.pollIntervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Publishes everything new on the node's best chain; returns how many blocks were published. */
  async pollOnce(): Promise<number> {
    const count = await this.rpc<number>('getblockcount');
    this.nodeHeight?.set(count);
    await this.rewindToCommonAncestor(count);
    let published = 0;
    while (this.next <= count && !this.stopped) {
      const height = this.next;
      const hash = await this.rpc<string>('getblockhash', [height]);
      const raw = await this.rpc<string>('getblock', [hash, 0]);
      if (typeof raw !== 'string' || raw.length < 160) throw new BitcoindRpcError(`getblock ${hash}: not a serialized block`);
      const parent = this.published.get(height - 1);
      if (parent !== undefined && parent !== previousHash(raw)) {
        // The chain changed between two calls: step back and publish the new branch from where it forks.
        this.opts.logger.info({ height, hash }, 'bitcoind follower: reorg noticed, stepping back');
        this.forget(height - 1);
        continue;
      }
      const body = JSON.stringify({ block_height: height, raw_block: raw });
      await this.opts.producer.publish(this.opts.topic, [
        { key: 'bitcoin', value: encodeEnvelope('/new_bitcoin_block', new Date(), body) },
      ]);
      this.published.set(height, hash);
      this.published.delete(height - this.memory);
      this.next = height + 1;
      this.blocksPublished?.inc();
      published++;
    }
    return published;
  }

  /** Steps back over published blocks the node no longer has at their height. */
  private async rewindToCommonAncestor(count: number): Promise<void> {
    while (this.next > this.opts.startHeight) {
      const height = this.next - 1;
      const known = this.published.get(height);
      if (known === undefined) return; // older than what we remember: trust it
      if (height <= count && (await this.rpc<string>('getblockhash', [height])) === known) return;
      this.opts.logger.info({ height, hash: known }, 'bitcoind follower: published block left the best chain');
      this.forget(height);
    }
  }

  private forget(height: number): void {
    this.published.delete(height);
    this.next = Math.max(height, this.opts.startHeight);
  }

  private async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.user || this.opts.password) {
      headers['authorization'] = `Basic ${Buffer.from(`${this.opts.user ?? ''}:${this.opts.password ?? ''}`).toString('base64')}`;
    }
    let res: Response;
    try {
      res = await fetch(this.opts.rpcUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '1.0', id: ++this.rpcId, method, params }),
        signal: AbortSignal.timeout(this.opts.rpcTimeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new BitcoindRpcError(`${method}: bitcoind unreachable (${(err as Error).message})`, { cause: err });
    }
    const text = await res.text();
    let parsed: { result?: T; error?: { code?: number; message?: string } | null };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new BitcoindRpcError(`${method}: HTTP ${res.status} ${text.slice(0, 200)}`);
    }
    if (parsed.error) throw new BitcoindRpcError(`${method}: ${parsed.error.message ?? 'error'} (code ${parsed.error.code})`);
    if (!res.ok) throw new BitcoindRpcError(`${method}: HTTP ${res.status}`);
    return parsed.result as T;
  }
}

/** The parent hash in a serialized block's header (bytes 4–36, little-endian), in display order. */
function previousHash(rawHex: string): string {
  return Buffer.from(rawHex.slice(8, 72), 'hex').reverse().toString('hex');
}
