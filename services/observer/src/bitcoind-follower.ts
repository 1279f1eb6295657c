import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { decodeEnvelope, encodeEnvelope, type BusProducer, type BusRecord } from '@bda/bus';

export interface BitcoindFollowerOptions {
  /** JSON-RPC endpoint, e.g. `http://127.0.0.1:8332`. */
  rpcUrl: string;
  user?: string;
  password?: string;
  /** First height to publish when the bus holds no block yet (see `lastRecord`). */
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
  /**
   * The newest record of `topic` (the bus's `lastRecord`), read once before the first poll: the follower resumes
   * after the block it holds instead of publishing everything from `startHeight` again. Without it, every start
   * begins at `startHeight`.
   */
  lastRecord?: () => Promise<BusRecord | null>;
  /**
   * When the newest published block left the best chain and bitcoind cannot say what its ancestors were (it never
   * saw that branch), publishing starts again this many blocks below it (default 100): the indexer rolls back
   * wherever a height arrives with another hash, and ignores the blocks it already has.
   */
  unknownForkDepth?: number;
}

/** Published blocks whose hashes the follower reads back from bitcoind when it resumes, to notice later reorgs. */
const RESUME_MEMORY = 100;

/** bitcoind is still below the newest block on the bus (resyncing): the follower waits for it. */
export class BitcoindBehindError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BitcoindBehindError';
  }
}

class BitcoindRpcError extends Error {
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
 * publish: the position only moves once a block is durable on the bus. The bus is where the position is kept: on
 * start the follower reads the newest block on its topic and resumes after it, stepping back first if that block
 * left the best chain while the follower was away.
 */
export class BitcoindFollower {
  private next: number;
  private readonly published = new Map<number, string>();
  /** Set by `stop()`: the background loop and a poll in progress end after the current block. */
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private rpcId = 0;
  /** Whether the position was taken from the bus yet (`lastRecord`). */
  private resumed: boolean;
  private readonly memory: number;
  private readonly blocksPublished?: Counter;
  private readonly nodeHeight?: Gauge;

  constructor(private readonly opts: BitcoindFollowerOptions) {
    this.next = opts.startHeight;
    this.memory = opts.memory ?? 1_000;
    this.resumed = !opts.lastRecord;
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
    if (!this.resumed) await this.resume(count);
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

  /**
   * Takes the position from the newest block on the bus: the next height is the one above it when bitcoind still
   * has it on its best chain. Otherwise the block left the best chain while the follower was away: its ancestors
   * (the parent is in its header, bitcoind keeps the headers of stale blocks) are walked down to the fork point,
   * and publishing resumes above it. The hashes below the resume point are remembered, so a reorg soon after a
   * restart is noticed as it would have been without one.
   */
  private async resume(count: number): Promise<void> {
    const record = await this.opts.lastRecord!();
    const last = record && publishedBlock(record);
    if (record && !last) {
      this.opts.logger.warn({ position: String(record.position) }, 'bitcoind follower: the newest bus record is not a block');
    }
    if (!last || last.height < this.opts.startHeight) {
      this.resumed = true;
      return;
    }
    if (last.height > count) {
      throw new BitcoindBehindError(
        `bitcoind's best height ${count} is below the newest published block ${last.height}: waiting for it to catch up`,
      );
    }
    let { height, hash, parent } = last;
    while ((await this.rpc<string>('getblockhash', [height])) !== hash) {
      this.opts.logger.info({ height, hash }, 'bitcoind follower: a published block left the best chain while stopped');
      if (height - 1 < this.opts.startHeight) {
        this.next = this.opts.startHeight;
        this.resumed = true;
        return;
      }
      height -= 1;
      hash = parent;
      const header = await this.header(hash);
      if (!header) {
        this.next = Math.max(this.opts.startHeight, height - (this.opts.unknownForkDepth ?? 100));
        this.opts.logger.warn(
          { height, hash, next: this.next },
          'bitcoind follower: bitcoind does not know a published block; publishing again from below it',
        );
        this.resumed = true;
        return;
      }
      parent = header.previousblockhash ?? '';
    }
    this.published.clear();
    this.published.set(height, hash);
    this.next = height + 1;
    // Its ancestors are on the best chain too: remember the hashes just below it (best effort: without them a
    // reorg reaching below the resume point is followed from the resume point, as one older than the memory is).
    try {
      for (let h = height - 1, below = parent; h >= this.opts.startHeight && h > height - RESUME_MEMORY && below; h--) {
        this.published.set(h, below);
        below = (await this.header(below))?.previousblockhash ?? '';
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'bitcoind follower: could not read the headers below the resume point');
    }
    this.resumed = true;
    this.opts.logger.info(
      { next: this.next, from: String(record!.position) },
      'bitcoind follower: resumed after the newest published block',
    );
  }

  /** A block header bitcoind knows (stale ones too), or undefined when it does not know the hash. */
  private async header(hash: string): Promise<{ previousblockhash?: string } | undefined> {
    try {
      return await this.rpc<{ previousblockhash?: string }>('getblockheader', [hash, true]);
    } catch (err) {
      // -5: no such block; -32601: a node or proxy without the method (both: the answer is unknown).
      if (err instanceof BitcoindRpcError && / \(code (-5|-32601)\)$/.test(err.message)) return undefined;
      throw err;
    }
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

/** The height, hash and parent of the block in a `/new_bitcoin_block` record, or undefined when it holds none. */
function publishedBlock(record: BusRecord): { height: number; hash: string; parent: string } | undefined {
  try {
    const { path, body } = decodeEnvelope<{ block_height?: unknown; raw_block?: unknown }>(record.value);
    const height = body?.block_height;
    const raw = body?.raw_block;
    if (path !== '/new_bitcoin_block' || typeof height !== 'number' || typeof raw !== 'string' || raw.length < 160) {
      return undefined;
    }
    return { height, hash: blockHash(raw), parent: previousHash(raw) };
  } catch {
    return undefined;
  }
}

/** A serialized block's hash: double SHA-256 of its 80-byte header, in display order. */
function blockHash(rawHex: string): string {
  const once = createHash('sha256')
    .update(Buffer.from(rawHex.slice(0, 160), 'hex'))
    .digest();
  return createHash('sha256').update(once).digest().reverse().toString('hex');
}

/** The parent hash in a serialized block's header (bytes 4–36, little-endian), in display order. */
function previousHash(rawHex: string): string {
  return Buffer.from(rawHex.slice(8, 72), 'hex').reverse().toString('hex');
}
