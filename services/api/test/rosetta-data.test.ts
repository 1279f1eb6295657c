import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage, waitForTools } from '@bda/test-support';
import { startRosettaApi } from './support/rosetta-api';
import { runCheckData, runCheckSpec } from './support/rosetta-cli';
import { fixtureLedger } from './support/rosetta-fixture-ledger';
import { rosettaPost } from './support/rosetta-schemas';
import { loadRecordedEvents } from './support/replayed-database';
import { FIXTURE_TIPS, startRosettaSystem, type RosettaSystem } from './support/rosetta-system';

const NETWORKS: Record<string, 'mainnet' | 'testnet'> = {
  'mocknet.tsv': 'testnet',
  'epoch-3-transition.tsv': 'testnet',
  'mainnet-reorg-scenario1.tsv': 'mainnet',
};

interface Op {
  operation_identifier: { index: number };
  type: string;
  status?: string;
  account?: { address: string; sub_account?: { address: string } };
  amount?: { value: string; currency: { symbol: string; decimals: number } };
}

function accountKey(op: Op): string {
  return op.account!.sub_account ? `${op.account!.address}:${op.account!.sub_account.address}` : op.account!.address;
}

describe.each(Object.keys(NETWORKS))('Rosetta Data API over the replayed %s', (file) => {
  const network = NETWORKS[file]!;
  const networkId = { blockchain: 'stacks', network };
  const tip = FIXTURE_TIPS[file]!;
  let sys: RosettaSystem;
  let dir: string;
  /**
   * A mainnet node sends no event for the genesis allocations (the recorded mainnet blocks start with transfers and
   * locks of funds no event created). The fixture does not hold them either, so this test allocates to every address
   * that pays anything exactly what it pays over the whole fixture: made-up amounts, given to the api as its genesis
   * file (ADR 0020). Testnet and mocknet genesis allocations arrive as mint events and need none.
   */
  let genesis = new Map<string, bigint>();
  const post = (path: string, body: unknown) => rosettaPost(sys.apiUrl, path, body);

  // rosetta-cli: `make test` builds it while the tests run (`waitForTools`).
  beforeAll(() => waitForTools(join(import.meta.dirname, '..', '..', '..')), 900_000);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rosetta-data-'));
    const env: NodeJS.ProcessEnv = {};
    if (network === 'mainnet') {
      genesis = new Map([...fixtureLedger(file).outgoing].filter(([, v]) => v > 0n));
      const genesisFile = join(dir, 'genesis-balances.json');
      writeFileSync(
        genesisFile,
        JSON.stringify(
          [...genesis].map(([address, value]) => ({
            account_identifier: { address },
            currency: { symbol: 'STX', decimals: 6 },
            value: value.toString(),
          })),
        ),
      );
      env['ROSETTA_GENESIS_BALANCES_FILE'] = genesisFile;
    }
    sys = await startRosettaSystem(testInfra().databaseUrl, file, env);
  });
  afterAll(async () => {
    await sys?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the network of the chain and advertises the canonical tip of the fixtures README', async () => {
    const list = await post('/network/list', {});
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ network_identifiers: [networkId] });
    const status = await post('/network/status', { network_identifier: networkId });
    expect(status.status).toBe(200);
    expect(status.body.current_block_identifier).toEqual({ index: tip.height, hash: tip.indexBlockHash });
    const ledger = fixtureLedger(file);
    expect(status.body.genesis_block_identifier).toEqual({
      index: ledger.canonical[0]!.block_height,
      hash: ledger.canonical[0]!.index_block_hash,
    });
    const tipBlock = await post('/block', { network_identifier: networkId });
    expect(tipBlock.body.block.block_identifier).toEqual({ index: tip.height, hash: tip.indexBlockHash });
  });

  it('is served through the gateway like every other family, errors included', async () => {
    const direct = await post('/network/status', { network_identifier: networkId });
    const viaGateway = await rosettaPost(sys.gatewayUrl, '/network/status', { network_identifier: networkId });
    expect(viaGateway.status).toBe(200);
    expect(viaGateway.body).toEqual(direct.body);
    const malformed = await rosettaPost(sys.gatewayUrl, '/block', '{"network_identifier":');
    expect(malformed.status).toBe(500);
    expect(malformed.body).toMatchObject({ code: 701, message: 'Malformed request', retriable: false });
  });

  it('serves every canonical block, with operations whose sums equal the balances computed from the fixture', async () => {
    const ledger = fixtureLedger(file, genesis);
    const sums = new Map<string, bigint>();
    let previous: { index: number; hash: string } | null = null;
    for (const nodeBlock of ledger.canonical) {
      const byIndex = await post('/block', {
        network_identifier: networkId,
        block_identifier: { index: nodeBlock.block_height },
      });
      expect(byIndex.status).toBe(200);
      const block = byIndex.body.block;
      expect(block.block_identifier).toEqual({ index: nodeBlock.block_height, hash: nodeBlock.index_block_hash });
      if (previous) expect(block.parent_block_identifier).toEqual(previous);
      else expect(block.parent_block_identifier).toEqual(block.block_identifier);
      // Milliseconds (the recorded epoch-3 boot block has burn time 0: Rosetta checks no genesis timestamp).
      if (previous) expect(block.timestamp).toBe(Number(nodeBlock.block_time ?? nodeBlock.burn_block_time) * 1000);
      // Every transaction of the node's block is there, in order, after the block-level one (if any).
      const hashes = (block.transactions as Array<{ transaction_identifier: { hash: string } }>).map(
        (t) => t.transaction_identifier.hash,
      );
      expect(hashes.filter((h) => h !== nodeBlock.index_block_hash)).toEqual(nodeBlock.transactions.map((t) => t.txid));
      previous = block.block_identifier;
      for (const tx of block.transactions as Array<{ operations: Op[] }>) {
        expect(tx.operations.map((o) => o.operation_identifier.index)).toEqual(tx.operations.map((_, i) => i));
        for (const op of tx.operations) {
          expect(['success', 'abort_by_response', 'abort_by_post_condition']).toContain(op.status);
          if (op.status === 'success' && op.amount)
            sums.set(accountKey(op), (sums.get(accountKey(op)) ?? 0n) + BigInt(op.amount.value));
        }
      }
    }
    const expected = new Map<string, bigint>();
    for (const [address, v] of ledger.spendable) if (v !== 0n || sums.has(address)) expected.set(address, v);
    for (const [address, v] of ledger.locked) expected.set(`${address}:stacked`, v);
    for (const [key, v] of sums) if (v === 0n && !expected.has(key)) expected.set(key, 0n);
    expect(Object.fromEntries([...sums].map(([k, v]) => [k, v.toString()]))).toEqual(
      Object.fromEntries([...expected].map(([k, v]) => [k, v.toString()])),
    );
    // And /account/balance at the tip says the same for each account, sub-account included.
    for (const [key, v] of expected) {
      const [address, sub] = key.split(':');
      const res = await post('/account/balance', {
        network_identifier: networkId,
        account_identifier: sub ? { address, sub_account: { address: sub } } : { address },
      });
      expectMessage(key, () => expect(res.status).toBe(200));
      expectMessage(key, () =>
        expect(res.body.balances).toEqual([{ value: v.toString(), currency: { symbol: 'STX', decimals: 6 } }]),
      );
      expect(res.body.block_identifier).toEqual({ index: tip.height, hash: tip.indexBlockHash });
    }
  });

  it('answers historical balances at a block and the next nonce', async () => {
    const ledger = fixtureLedger(file, genesis);
    const mid = ledger.canonical[Math.floor(ledger.canonical.length / 2)]!;
    const atMid = fixtureLedger(file, genesis, mid.block_height);
    const [address, value] =
      [...atMid.spendable].find(([a]) => ledger.spendable.get(a) !== atMid.spendable.get(a)) ?? [...atMid.spendable][0]!;
    for (const block_identifier of [
      { index: mid.block_height },
      { hash: mid.index_block_hash },
      { index: mid.block_height, hash: mid.index_block_hash },
    ]) {
      const res = await post('/account/balance', {
        network_identifier: networkId,
        account_identifier: { address },
        block_identifier,
      });
      expect(res.status).toBe(200);
      expect(res.body.block_identifier).toEqual({ index: mid.block_height, hash: mid.index_block_hash });
      expect(res.body.balances[0].value).toBe(value.toString());
    }
    // The next nonce of a sender: one past the highest nonce it used in the canonical chain.
    const nonces = new Map<string, bigint>();
    for (const b of ledger.canonical) {
      for (const t of b.transactions) {
        if (t.raw_tx === '0x00') continue;
        const { decodeTransaction } = await import('@bda/stacks-codec');
        const d = decodeTransaction(t.raw_tx);
        if ((nonces.get(d.senderAddress) ?? -1n) < d.nonce) nonces.set(d.senderAddress, d.nonce);
      }
    }
    const [sender, nonce] = [...nonces].sort((a, b) => Number(b[1] - a[1]))[0]!;
    const res = await post('/account/balance', { network_identifier: networkId, account_identifier: { address: sender } });
    expect(res.body.metadata).toEqual({ sequence_number: Number(nonce + 1n) });
  });

  it('serves no block a reorg removed, and refuses index and hash that disagree', async () => {
    const ledger = fixtureLedger(file);
    const canonical = new Set(ledger.canonical.map((b) => b.index_block_hash));
    const orphans = loadRecordedEvents(file)
      .filter((e) => e.path === '/new_block')
      .map((e) => JSON.parse(e.body) as { index_block_hash: string; block_height: number })
      .filter((b) => !canonical.has(b.index_block_hash));
    if (file === 'mainnet-reorg-scenario1.tsv') expect(orphans.length).toBe(3);
    for (const o of orphans) {
      const byHash = await post('/block', { network_identifier: networkId, block_identifier: { hash: o.index_block_hash } });
      expect(byHash.status).toBe(500);
      expect(byHash.body).toMatchObject({ code: 708, message: 'Block not found', retriable: true });
      const byIndex = await post('/block', { network_identifier: networkId, block_identifier: { index: o.block_height } });
      expect(byIndex.body.block.block_identifier.hash).toBe(
        ledger.canonical.find((b) => b.block_height === o.block_height)!.index_block_hash,
      );
    }
    const [a, b] = ledger.canonical.slice(-2);
    const mismatch = await post('/block', {
      network_identifier: networkId,
      block_identifier: { index: a!.block_height, hash: b!.index_block_hash },
    });
    expect(mismatch.status).toBe(500);
    expect(mismatch.body).toMatchObject({ code: 709, message: 'Block index and hash disagree', retriable: false });
  });

  it('passes rosetta-cli check:data from genesis to the tip: zero reconciliation failures, every active account reconciled', async () => {
    const { run, results, reconciled, failures } = await runCheckData({ onlineUrl: `${sys.apiUrl}/rosetta/v1`, network });
    const summary = `${JSON.stringify(results)}\n${run.stdout.slice(-3000)}`;
    // At the tip, with every account the tool saw reconciled (not only synced: see runCheckData).
    expectMessage(summary, () => expect(results.end_condition?.type).toBe('Reconciliation Coverage End Condition'));
    expectMessage(summary, () => expect(results.error ?? '').toBe(''));
    // `reconciliation` is true, or null when the run ended before the tool's first counter flush (see runCheckData):
    // the reconciliations themselves are checked from its log below. false would be a failed reconciliation.
    const { reconciliation, ...checks } = results.tests;
    expectMessage(summary, () =>
      expect(checks).toEqual({ request_response: true, response_assertion: true, block_syncing: true, balance_tracking: true }),
    );
    expectMessage(summary, () => expect(reconciliation).not.toBe(false));
    expectMessage(summary, () => expect(failures).toEqual([]));
    expectMessage(summary, () => expect(results.stats.failed_reconciliations).toBe(0));
    expectMessage(summary, () =>
      expect(results.stats.blocks).toBe(tip.height - fixtureLedger(file).canonical[0]!.block_height + 1),
    );
    // Every account an operation of the canonical chain moves STX of was reconciled by the tool (its computed balance
    // against /account/balance) after it saw it.
    const ledger = fixtureLedger(file, genesis);
    const moved = new Set([...ledger.spendable.keys(), ...[...ledger.locked.keys()].map((a) => `${a}:stacked`)]);
    expectMessage(summary, () => expect(results.stats.accounts).toBe(moved.size));
    expectMessage(summary, () => expect([...moved].filter((a) => !reconciled.has(a))).toEqual([]));
  });

  it('passes rosetta-cli check:spec --all against this online instance and an offline one', async () => {
    const offline = await startRosettaApi(null, { offline: true, network, nodeRpcUrls: [], nodeTimeoutMs: 1_000 });
    try {
      const run = await runCheckSpec({
        onlineUrl: `${sys.apiUrl}/rosetta/v1`,
        offlineUrl: `${offline.baseUrl}/rosetta/v1`,
        network,
      });
      const out = `${run.stdout}\n${run.stderr}`;
      expectMessage(out, () => expect(run.code).toBe(0));
      expectMessage(out, () => expect(out).toMatch(/Success/));
      expectMessage(out, () => expect(out).not.toMatch(/Failure/));
    } finally {
      await offline.close();
    }
  });
});
