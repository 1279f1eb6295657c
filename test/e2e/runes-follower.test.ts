import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import type { BuiltBlock } from '@bda/runes/testing';
import { RuneBlockGenerator } from '@bda/runes/testing';
import { fetchRunes } from '@bda/api/testing';
import { ledgerInvariantViolations } from '@bda/indexer/testing';
import { TestSystem } from '../support/test-system';

/** A bitcoind double: JSON-RPC getblockcount / getblockhash / getblock <hash> 0 / getblockheader over `chain`. */
function fakeBitcoind(chain: () => BuiltBlock[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(text) as { id: number; method: string; params: unknown[] };
      const blocks = chain();
      const ok = (result: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result, error: null, id }));
      // Real bitcoind's answers to a failed call (JSON-RPC 1.0 over HTTP): RPC_INVALID_PARAMETER (-8) for a height
      // out of range, RPC_INVALID_ADDRESS_OR_KEY (-5) for an unknown block hash, RPC_METHOD_NOT_FOUND (-32601) with
      // HTTP 404; the follower treats -5 as "that block is gone" (a reorg), so the codes matter.
      const fail = (code: -8 | -5 | -32601, message: string) =>
        res
          .writeHead(code === -32601 ? 404 : 500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ result: null, error: { code, message }, id }));
      if (method === 'getblockcount') return ok(blocks[blocks.length - 1]!.height);
      if (method === 'getblockhash') {
        const b = blocks.find((x) => x.height === params[0]);
        return b ? ok(b.hash) : fail(-8, 'Block height out of range');
      }
      if (method === 'getblock') {
        const b = blocks.find((x) => x.hash === params[0]);
        return b ? ok(b.hex) : fail(-5, 'Block not found');
      }
      if (method === 'getblockheader') {
        const b = blocks.find((x) => x.hash === params[0]);
        const previousblockhash = b && Buffer.from(b.hex.slice(8, 72), 'hex').reverse().toString('hex');
        return b ? ok({ hash: b.hash, height: b.height, previousblockhash }) : fail(-5, 'Block not found');
      }
      return fail(-32601, 'Method not found');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })),
  );
}

describe('rune ledger fed by the bitcoind follower (Kafka bus)', () => {
  let sys: TestSystem;
  let node: Server;
  let chain: BuiltBlock[];
  const gen = new RuneBlockGenerator({ seed: 99, height: 1 });
  const main = Array.from({ length: 8 }, () => gen.next(25));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are schema-validated JSON that assertions read loosely
  const get = <T = any>(path: string) => fetchRunes<T>(sys.gatewayUrl, path);

  async function waitForTip(hash: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { body } = await get('/runes/v1/');
      if (body.block_hash === `0x${hash}`) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the rune ledger did not reach ${hash}`);
  }

  beforeAll(async () => {
    chain = main;
    const fake = await fakeBitcoind(() => chain);
    node = fake.server;
    sys = await TestSystem.start({
      bus: 'kafka',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers: testInfra().kafkaBrokers,
      env: {
        BITCOIN_NETWORK: 'regtest',
        RATE_LIMIT_ENABLED: 'false',
        BITCOIND_RPC_URL: fake.url,
        BITCOIND_START_HEIGHT: '1',
        BITCOIND_POLL_INTERVAL_MS: '100',
      },
    });
  });
  afterAll(async () => {
    await sys?.stop();
    node?.close();
  });

  it('indexes the node chain as it grows and follows a reorg', async () => {
    await waitForTip(main[7]!.hash);
    for (const b of main) expect((await get(`/runes/v1/blocks/${b.hash}/activity`)).status).toBe(200);
    const before = (await get('/runes/v1/blocks/5/activity?limit=60')).body.total as number;
    expect(before).toBeGreaterThan(0);

    // The node switches to a branch forking after height 4 (replacing 5–8 with 5'–10').
    const fork = new RuneBlockGenerator({ seed: 99, height: 1 });
    for (let i = 0; i < 4; i++) fork.next(25);
    const branchGen = fork.clone(4242);
    const branch = Array.from({ length: 6 }, () => branchGen.next(25, 'fork'));
    chain = [...main.slice(0, 4), ...branch];
    await waitForTip(branch[5]!.hash);
    for (const b of main.slice(4)) expect((await get(`/runes/v1/blocks/0x${b.hash}/activity`)).status).toBe(404);
    for (const b of branch) expect((await get(`/runes/v1/blocks/0x${b.hash}/activity`)).status).toBe(200);
    expect(await ledgerInvariantViolations(sys.db)).toEqual({});
    const blocks: number[] = await sys.db('rune_blocks').orderBy('block_height').pluck('block_height');
    expect(blocks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('resumes after the newest block on the bus when the observer restarts, publishing nothing twice', async () => {
    const head = async () => {
      const res = await fetch(`${sys.indexerUrl}/status`);
      return BigInt(((await res.json()) as { topics: Record<string, { head: string }> }).topics['bitcoin.blocks']!.head);
    };
    await sys.waitForCaughtUp();
    const before = await head();
    await sys.stopService('observer');
    const tip = chain[chain.length - 1]!;
    const tipGen = new RuneBlockGenerator({ seed: 7, height: tip.height + 1, prevHash: tip.hash });
    const more = [tipGen.next(5, 'after-restart'), tipGen.next(5, 'after-restart')];
    chain = [...chain, ...more];
    await sys.startService('observer');
    await waitForTip(more[1]!.hash);
    await sys.waitForCaughtUp();
    // Only the two new blocks went onto the bus: before the fix every restart published again from the start height.
    expect(await head()).toBe(before + 2n);
    expect(await ledgerInvariantViolations(sys.db)).toEqual({});
  });
});
