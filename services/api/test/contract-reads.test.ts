/**
 * The contracts family (`/extended/v1/contract/{contract_id}`, `/{contract_id}/events`, `/by_trait`,
 * `/extended/v2/smart-contracts/status`) on a fixture replayed through the real observer and indexer, against the
 * deploys, ABIs and log events of the fixture's raw node events (deploys decoded here with `@stacks/transactions`),
 * independently of the indexer. Every answer is validated against the documented schemas by the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addressFromVersionHash, addressToString, deserializeTransaction, txidFromData } from '@stacks/transactions';
import { expectMessage, testInfra } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';
import { accountLedger } from './support/account-ledger';
import { loadRecordedEvents } from './support/replayed-database';

const FIXTURE = 'epoch-3-transition.tsv';

interface RawBlock {
  index_block_hash: string;
  block_height: number;
  transactions: Array<{ txid: string; raw_tx: string; status: string; tx_index: number; contract_abi?: unknown }>;
  events: Array<{ txid: string; type: string; committed?: boolean; event_index: number; [body: string]: unknown }>;
}

interface Deploy {
  contractId: string;
  txId: string;
  height: number;
  txIndex: number;
  status: string;
  source: string;
  clarityVersion: number | null;
  abi: unknown;
}

/** A deploy's contract id, source and Clarity version from its raw bytes (null: not a deploy). */
function decodeDeploy(rawTx: string): { contractId: string; source: string; clarityVersion: number | null; txId: string } | null {
  const hex = rawTx.replace(/^0x/, '');
  const tx = deserializeTransaction(hex);
  const p = tx.payload as unknown as {
    payloadType: number;
    contractName?: { content: string };
    codeBody?: { content: string };
    clarityVersion?: number;
  };
  if (p.payloadType !== 1 && p.payloadType !== 6) return null;
  const cond = tx.auth.spendingCondition;
  const mainnet = tx.transactionVersion === 0;
  const version = mainnet ? (cond.hashMode === 0 ? 22 : 20) : cond.hashMode === 0 ? 26 : 21;
  const origin = addressToString(addressFromVersionHash(version, cond.signer));
  return {
    contractId: `${origin}.${p.contractName!.content}`,
    source: p.codeBody!.content,
    clarityVersion: p.payloadType === 6 ? (p.clarityVersion ?? null) : null,
    txId: `0x${txidFromData(Buffer.from(hex, 'hex'))}`,
  };
}

/** PostgreSQL's jsonb containment (`a @> b`), for the trait search's expectation. */
function contains(a: unknown, b: unknown): boolean {
  if (Array.isArray(b)) return Array.isArray(a) && b.every((x) => a.some((y) => contains(y, x)));
  if (b !== null && typeof b === 'object') {
    if (a === null || typeof a !== 'object' || Array.isArray(a)) return false;
    return Object.entries(b).every(([k, v]) => k in a && contains((a as Record<string, unknown>)[k], v));
  }
  return a === b;
}

describe(`contracts after replaying ${FIXTURE}`, () => {
  let api: ApiHarness;
  const deploys: Deploy[] = [];
  const logs: Array<{ contract: string; txId: string; eventIndex: number; height: number; topic: string }> = [];
  const pendingDeploys = new Map<string, string>();

  beforeAll(async () => {
    const ledger = accountLedger(FIXTURE);
    const recorded = loadRecordedEvents(FIXTURE);
    const byHash = new Map<string, RawBlock>();
    for (const r of recorded.filter((e) => e.path === '/new_block')) {
      const b = JSON.parse(r.body) as RawBlock;
      if (!byHash.has(b.index_block_hash)) byHash.set(b.index_block_hash, b);
    }
    for (const c of ledger.canonical) {
      const b = byHash.get(c.indexBlockHash)!;
      for (const t of b.transactions) {
        const d = decodeDeploy(t.raw_tx);
        if (d) deploys.push({ ...d, height: b.block_height, txIndex: t.tx_index, status: t.status, abi: t.contract_abi ?? null });
      }
      for (const e of b.events) {
        if (e.type !== 'contract_event' || e.committed === false) continue;
        const body = e['contract_event'] as { contract_identifier: string; topic: string };
        logs.push({
          contract: body.contract_identifier,
          txId: e.txid,
          eventIndex: e.event_index,
          height: b.block_height,
          topic: body.topic,
        });
      }
    }
    const mined = new Set(deploys.map((d) => d.txId));
    for (const r of recorded.filter((e) => e.path === '/new_mempool_tx')) {
      for (const raw of JSON.parse(r.body) as string[]) {
        const d = decodeDeploy(raw);
        if (d && !mined.has(d.txId) && !pendingDeploys.has(d.contractId)) pendingDeploys.set(d.contractId, d.txId);
      }
    }
    api = await startApi(testInfra().databaseUrl, { fixture: FIXTURE });
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('answers every deployed contract with its canonical deploy, source and ABI', async () => {
    expect(deploys.length).toBeGreaterThan(5);
    for (const d of deploys) {
      const { status, body } = await api.get(`/extended/v1/contract/${d.contractId}`);
      expectMessage(d.contractId, () => expect(status).toBe(200));
      expectMessage(d.contractId, () =>
        expect(body).toMatchObject({
          tx_id: d.txId,
          canonical: true,
          contract_id: d.contractId,
          block_height: d.height,
          clarity_version: d.clarityVersion,
          source_code: d.source,
        }),
      );
      expectMessage(d.contractId, () => expect(body.abi === null ? null : JSON.parse(body.abi)).toEqual(d.abi));
    }
    const unknown = await api.get(`/extended/v1/contract/${deploys[0]!.contractId}-nope`);
    expect(unknown.status).toBe(404);
    const address = await api.get(`/extended/v1/contract/SP000000000000000000002Q6VF78`);
    expect(address.status).toBe(400);
    expect(address.body.message).toMatch(/contract_id/);
  });

  it('lists every contract’s committed log events newest first, with a Warning 299', async () => {
    expect(logs.length).toBeGreaterThan(5);
    for (const contract of new Set(logs.map((l) => l.contract))) {
      const want = logs.filter((l) => l.contract === contract).sort((a, b) => b.height - a.height || b.eventIndex - a.eventIndex);
      const { status, body, headers } = await api.get(`/extended/v1/contract/${contract}/events?limit=50`);
      expectMessage(contract, () => expect(status).toBe(200));
      expect(headers.get('warning')).toMatch(/^299 /);
      expectMessage(contract, () =>
        expect(
          body.results.map((e: { tx_id: string; event_index: number; contract_log: { topic: string } }) => [
            e.tx_id,
            e.event_index,
            e.contract_log.topic,
          ]),
        ).toEqual(want.slice(0, 50).map((l) => [l.txId, l.eventIndex, l.topic])),
      );
      const page = await api.get(`/extended/v1/contract/${contract}/events?limit=2&offset=1`);
      expect(page.body.results).toEqual(body.results.slice(1, 3));
    }
  });

  it('pages every contract’s logs by cursor (v2): every event once, newest first, and the cursors around each page', async () => {
    for (const contract of new Set(logs.map((l) => l.contract))) {
      const want = logs.filter((l) => l.contract === contract).sort((a, b) => b.height - a.height || b.eventIndex - a.eventIndex);
      const walked: Array<[string, number]> = [];
      let cursor: string | null = null;
      let before: string | null = null;
      do {
        const q: string = cursor === null ? '' : `&cursor=${cursor}`;
        const page: {
          status: number;
          body: {
            total: number;
            cursor: string;
            next_cursor: string | null;
            prev_cursor: string | null;
            results: Array<{ tx_id: string; event_index: number }>;
          };
        } = await api.get(`/extended/v2/smart-contracts/${contract}/logs?limit=3${q}`);
        expectMessage(contract, () => expect(page.status).toBe(200));
        expect(page.body.total).toBe(want.length);
        expect(page.body.next_cursor).toBe(before);
        walked.push(...page.body.results.map((e): [string, number] => [e.tx_id, e.event_index]));
        before = page.body.cursor;
        cursor = page.body.prev_cursor;
      } while (cursor !== null);
      expectMessage(contract, () => expect(walked).toEqual(want.map((l) => [l.txId, l.eventIndex])));
      if (want.length > 2) {
        const skipped = await api.get(`/extended/v2/smart-contracts/${contract}/logs?limit=1&offset=2`);
        expect(skipped.body.results.map((e: { tx_id: string; event_index: number }) => [e.tx_id, e.event_index])).toEqual([
          [want[2]!.txId, want[2]!.eventIndex],
        ]);
      }
    }
    const bad = await api.get(`/extended/v2/smart-contracts/${logs[0]!.contract}/logs?cursor=1:2`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/cursor/);
    // Below every event of a contract that logged nothing at height 0.
    const late = logs.find((l) => logs.every((x) => x.contract !== l.contract || x.height > 0))!;
    const below = await api.get(`/extended/v2/smart-contracts/${late.contract}/logs?cursor=0:0:0:0`);
    expect(below.status).toBe(404);
  });

  it('finds the contracts implementing a trait as jsonb containment of their ABIs says', async () => {
    const withAbi = deploys.filter((d) => d.abi !== null && Array.isArray((d.abi as { functions?: unknown[] }).functions));
    const sample = withAbi
      .flatMap((d) => ((d.abi as { functions: Array<Record<string, unknown>> }).functions ?? []).slice(0, 1))
      .slice(0, 5);
    expect(sample.length).toBeGreaterThan(0);
    for (const fn of sample) {
      const trait = { functions: [{ name: fn['name'], access: fn['access'], args: fn['args'], outputs: fn['outputs'] }] };
      const wanted = [
        {
          name: fn['name'],
          access: fn['access'],
          args: (fn['args'] as Array<{ type: unknown }>).map((a) => ({ type: a.type })),
          outputs: fn['outputs'],
        },
      ];
      const want = withAbi
        .filter((d) => contains((d.abi as { functions: unknown }).functions, wanted))
        .sort((a, b) => b.height - a.height || b.txIndex - a.txIndex)
        .map((d) => d.contractId);
      const { status, body } = await api.get(
        `/extended/v1/contract/by_trait?limit=50&trait_abi=${encodeURIComponent(JSON.stringify(trait))}`,
      );
      expectMessage(String(fn['name']), () => expect(status).toBe(200));
      expectMessage(String(fn['name']), () =>
        expect(body.results.map((c: { contract_id: string }) => c.contract_id)).toEqual(want.slice(0, 50)),
      );
    }
    const none = await api.get(
      `/extended/v1/contract/by_trait?trait_abi=${encodeURIComponent(JSON.stringify({ functions: [{ name: 'no-such-fn', access: 'public', args: [], outputs: { type: 'bool' } }] }))}`,
    );
    expect(none.status).toBe(404);
    const bad = await api.get(`/extended/v1/contract/by_trait?trait_abi=%7Bnot-json`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/trait_abi/);
  });

  it('answers the deploy status of mined, pending and unknown contracts', async () => {
    const mined = deploys.slice(0, 3);
    const pending = [...pendingDeploys].slice(0, 2);
    const unknown = `${deploys[0]!.contractId.split('.')[0]}.never-deployed`;
    const ids = [...mined.map((d) => d.contractId), ...pending.map(([id]) => id), unknown];
    const { status, body } = await api.get(
      `/extended/v2/smart-contracts/status?${ids.map((id) => `contract_id=${id}`).join('&')}`,
    );
    expect(status).toBe(200);
    const want: Record<string, unknown> = {};
    for (const d of mined) {
      want[d.contractId] = {
        found: true,
        result: { status: d.status, tx_id: d.txId, contract_id: d.contractId, block_height: d.height },
      };
    }
    for (const [id, txId] of pending) want[id] = { found: true, result: { status: 'pending', tx_id: txId, contract_id: id } };
    want[unknown] = { found: false };
    expect(body).toEqual(want);
    const bad = await api.get(`/extended/v2/smart-contracts/status?contract_id=SP000000000000000000002Q6VF78`);
    expect(bad.status).toBe(400);
  });
});
