import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  BusUnavailableError,
  decodeEnvelope,
  encodeEnvelope,
  type BusProducer,
  type BusRecord,
  type OutgoingRecord,
} from '@bda/bus';
import { createLogger } from '@bda/common';
import { BitcoinBlockBuilder, type BuiltBlock } from '@bda/runes/testing';
import { BitcoindBehindError, BitcoindFollower, type BitcoindFollowerOptions } from './bitcoind-follower';

/**
 * A bitcoind speaking just enough JSON-RPC: getblockcount, getblockhash, getblock <hash> 0, getblockheader <hash>
 * (which, like bitcoind, also knows blocks that left the best chain).
 */
class FakeBitcoind {
  chain: BuiltBlock[] = [];
  /** Every block ever mined, stale ones included. */
  known: BuiltBlock[] = [];
  readonly calls: string[] = [];
  failNext = 0;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const reply = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (req.headers.authorization !== `Basic ${Buffer.from('alice:secret').toString('base64')}`) {
          res.writeHead(401).end();
          return;
        }
        const { id, method, params } = JSON.parse(text) as { id: number; method: string; params: unknown[] };
        this.calls.push(method);
        if (this.failNext > 0) {
          this.failNext--;
          reply(500, { result: null, error: { code: -28, message: 'Loading block index…' }, id });
          return;
        }
        const byHash = (hash: string) => this.chain.find((b) => b.hash === hash);
        const knownByHash = (hash: string) => this.known.find((b) => b.hash === hash);
        switch (method) {
          case 'getblockcount':
            return reply(200, { result: this.chain[this.chain.length - 1]!.height, error: null, id });
          case 'getblockhash': {
            const block = this.chain.find((b) => b.height === params[0]);
            if (!block) return reply(500, { result: null, error: { code: -8, message: 'Block height out of range' }, id });
            return reply(200, { result: block.hash, error: null, id });
          }
          case 'getblock': {
            const block = byHash(params[0] as string);
            if (!block || params[1] !== 0)
              return reply(500, { result: null, error: { code: -5, message: 'Block not found' }, id });
            return reply(200, { result: block.hex, error: null, id });
          }
          case 'getblockheader': {
            const block = knownByHash(params[0] as string);
            if (!block) return reply(500, { result: null, error: { code: -5, message: 'Block not found' }, id });
            const prev = block.height === 0 ? undefined : block.hex.slice(8, 72);
            const previousblockhash = prev && Buffer.from(prev, 'hex').reverse().toString('hex');
            return reply(200, { result: { hash: block.hash, height: block.height, previousblockhash }, error: null, id });
          }
          default:
            return reply(404, { result: null, error: { code: -32601, message: 'Method not found' }, id });
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Extends the chain (or, with `from`, replaces everything from that height) by `n` blocks. */
  mine(n: number, tag = '', from?: number): BuiltBlock[] {
    if (from !== undefined) this.chain = this.chain.filter((b) => b.height < from);
    const made: BuiltBlock[] = [];
    for (let i = 0; i < n; i++) {
      const tip = this.chain[this.chain.length - 1];
      const block = new BitcoinBlockBuilder({
        prevHash: tip?.hash ?? '00'.repeat(32),
        height: tip ? tip.height + 1 : 0,
        tag,
      }).build();
      this.chain.push(block);
      this.known.push(block);
      made.push(block);
    }
    return made;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

class FakeProducer implements BusProducer {
  readonly messages: Array<{ topic: string; message: OutgoingRecord }> = [];
  failNext = 0;
  async connect() {}
  async publish(topic: string, messages: OutgoingRecord[]) {
    if (this.failNext > 0) {
      this.failNext--;
      throw new BusUnavailableError('bus down');
    }
    for (const message of messages) this.messages.push({ topic, message });
  }
  isHealthy() {
    return true;
  }
  async disconnect() {}
  /** What the bus's `lastRecord` would give. */
  async lastRecord(): Promise<BusRecord | null> {
    const last = this.messages[this.messages.length - 1];
    if (!last) return null;
    return { topic: last.topic, position: BigInt(this.messages.length - 1), key: last.message.key, value: last.message.value };
  }
  /** Published `(height, hash)` pairs in order. */
  blocks(): Array<[number, string]> {
    return this.messages.map(({ message }) => {
      const env = decodeEnvelope<{ block_height: number; raw_block: string }>(message.value);
      expect(env.path).toBe('/new_bitcoin_block');
      expect(message.key).toBe('bitcoin');
      return [env.body.block_height, hashOf(env.body.raw_block)];
    });
  }
}

function hashOf(rawHex: string): string {
  const header = Buffer.from(rawHex.slice(0, 160), 'hex');
  const once = createHash('sha256').update(header).digest();
  return createHash('sha256').update(once).digest().reverse().toString('hex');
}

describe('BitcoindFollower', () => {
  let node: FakeBitcoind;
  let producer: FakeProducer;
  let follower: BitcoindFollower;
  const pairs = (blocks: BuiltBlock[]) => blocks.map((b) => [b.height, b.hash] as [number, string]);

  /** A follower of `node` publishing to `producer`, from height 2. */
  const newFollower = (extra: Partial<BitcoindFollowerOptions> = {}) =>
    new BitcoindFollower({
      rpcUrl: node.url,
      user: 'alice',
      password: 'secret',
      startHeight: 2,
      pollIntervalMs: 20,
      producer,
      topic: 't.bitcoin.blocks',
      logger: createLogger('follower-test', 'silent'),
      ...extra,
    });

  beforeEach(async () => {
    node = new FakeBitcoind();
    await node.start();
    producer = new FakeProducer();
    follower = newFollower();
  });
  afterEach(async () => {
    await follower.stop();
    await node.stop();
  });

  it('publishes the best chain from the start height, in order, as /new_bitcoin_block messages', async () => {
    const blocks = node.mine(5); // heights 0–4
    expect(await follower.pollOnce()).toBe(3);
    expect(producer.blocks()).toEqual(pairs(blocks.slice(2)));
    expect(producer.messages.every((m) => m.topic === 't.bitcoin.blocks')).toBe(true);
    const raw = decodeEnvelope<{ raw_block: string }>(producer.messages[0]!.message.value).body.raw_block;
    expect(raw).toBe(blocks[2]!.hex);
    expect(await follower.pollOnce()).toBe(0);
    const more = node.mine(2);
    expect(await follower.pollOnce()).toBe(2);
    expect(producer.blocks()).toEqual(pairs([...blocks.slice(2), ...more]));
  });

  it('notices a reorg and publishes the new branch from the fork point', async () => {
    const old = node.mine(6); // 0–5
    await follower.pollOnce();
    const branch = node.mine(3, 'b', 4); // replaces 4, 5 and adds 6
    expect(await follower.pollOnce()).toBe(3);
    expect(producer.blocks()).toEqual(pairs([...old.slice(2), ...branch]));
  });

  it('follows a reorg to a shorter chain', async () => {
    const old = node.mine(6); // 0–5
    await follower.pollOnce();
    const branch = node.mine(1, 's', 5); // replaces 5 only: same height
    expect(await follower.pollOnce()).toBe(1);
    const shorter = node.mine(1, 't', 4); // the node's tip drops to 4, a new block at 4
    expect(await follower.pollOnce()).toBe(1);
    expect(producer.blocks()).toEqual(pairs([...old.slice(2), ...branch, ...shorter]));
  });

  it('loses nothing when bitcoind or the bus fail, and publishes in the background until stopped', async () => {
    const blocks = node.mine(4);
    node.failNext = 1;
    await expect(follower.pollOnce()).rejects.toThrow(/Loading block index/);
    producer.failNext = 1;
    await expect(follower.pollOnce()).rejects.toThrow(BusUnavailableError);
    expect(follower.nextHeight).toBe(2);
    follower.start();
    const more = node.mine(2);
    const deadline = Date.now() + 5_000;
    while (producer.messages.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await follower.stop();
    expect(producer.blocks()).toEqual(pairs([...blocks.slice(2), ...more]));
  });

  it('sends the RPC credentials', async () => {
    node.mine(3);
    const anonymous = new BitcoindFollower({
      rpcUrl: node.url,
      startHeight: 0,
      pollIntervalMs: 20,
      producer,
      topic: 'x',
      logger: createLogger('follower-test', 'silent'),
    });
    await expect(anonymous.pollOnce()).rejects.toThrow(/HTTP 401/);
  });

  describe('after a restart', () => {
    /** A new follower on the same bus, as the observer makes one when it starts again. */
    const restarted = (extra: Partial<BitcoindFollowerOptions> = {}) =>
      newFollower({ lastRecord: () => producer.lastRecord(), ...extra });

    it('resumes after the newest block on the bus instead of publishing from the start height again', async () => {
      const blocks = node.mine(6); // 0–5
      await follower.pollOnce();
      const more = node.mine(2);
      const again = restarted();
      expect(await again.pollOnce()).toBe(2);
      expect(producer.blocks()).toEqual(pairs([...blocks.slice(2), ...more]));
      expect(again.nextHeight).toBe(8);
    });

    it('starts at the start height when the bus holds no block yet', async () => {
      const blocks = node.mine(4);
      expect(await restarted().pollOnce()).toBe(2);
      expect(producer.blocks()).toEqual(pairs(blocks.slice(2)));
    });

    it('steps back to the fork point when the newest published block left the best chain while it was stopped', async () => {
      const old = node.mine(6); // 0–5
      await follower.pollOnce();
      const branch = node.mine(4, 'b', 4); // replaces 4 and 5, adds 6 and 7
      expect(await restarted().pollOnce()).toBe(4);
      expect(producer.blocks()).toEqual(pairs([...old.slice(2), ...branch]));
    });

    it('remembers the hashes below where it resumed, so a reorg right after the restart is followed from its fork', async () => {
      const old = node.mine(6); // 0–5
      await follower.pollOnce();
      const again = restarted();
      expect(await again.pollOnce()).toBe(0);
      const branch = node.mine(3, 'c', 4); // replaces 4 and 5, adds 6: two blocks deep
      expect(await again.pollOnce()).toBe(3);
      expect(producer.blocks()).toEqual(pairs([...old.slice(2), ...branch]));
    });

    it('publishes again from further below when bitcoind never saw the published branch', async () => {
      const old = node.mine(6); // 0–5
      await follower.pollOnce();
      const branch = node.mine(2, 'd', 4);
      node.known = [...node.chain]; // a bitcoind rebuilt elsewhere: the stale blocks are unknown to it
      expect(await restarted({ unknownForkDepth: 1 }).pollOnce()).toBe(3);
      expect(producer.blocks()).toEqual(pairs([...old.slice(2), old[3]!, ...branch]));
    });

    it('waits while bitcoind is below the newest published block, then resumes after it', async () => {
      const blocks = node.mine(6); // 0–5
      await follower.pollOnce();
      node.chain = node.chain.slice(0, 4); // a bitcoind resyncing, at height 3
      const again = restarted();
      await expect(again.pollOnce()).rejects.toBeInstanceOf(BitcoindBehindError);
      node.chain = [...blocks];
      const more = node.mine(1);
      expect(await again.pollOnce()).toBe(1);
      expect(producer.blocks()).toEqual(pairs([...blocks.slice(2), ...more]));
    });

    it('starts at the start height when the newest record is not a block', async () => {
      const blocks = node.mine(4);
      producer.messages.push({
        topic: 't.bitcoin.blocks',
        message: { key: 'bitcoin', value: encodeEnvelope('/new_bitcoin_block', new Date(), '{"block_height":"x"}') },
      });
      expect(await restarted().pollOnce()).toBe(2);
      producer.messages.shift();
      expect(producer.blocks()).toEqual(pairs(blocks.slice(2)));
    });
  });
});
