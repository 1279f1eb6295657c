/**
 * The kept list texts of pending transactions (`mempool_tx_json`, migration 105, ADR 0041) held to the api's own
 * rendering of each transaction by id (`getTxById` + `toMempoolTransactionResponse`, the statement and mapper of
 * `/extended/v1/tx/{id}`) after every record of the fixtures with a mempool, applied one by one through the indexer's
 * own handler; and migration 105's backfill to the same. On the pox-4 recording a pending call to `pox-4` is
 * announced before the block that deploys the contract: its text must change when the deploy arrives. The same for
 * the kept v3 texts (`mempool_tx_json.v3_json`, migration 110, ADR 0045), held to the v3 mapper's rendering of the row
 * read by id (`getTransactionV3` + `toMempoolTransactionSummaryResponse`) after every record, and migration 110's
 * backfill.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { createDb, MIGRATIONS } from '@bda/db';
import { expectMessage, testInfra } from '@bda/test-support';
import { stacksEventHandler } from '../../indexer/src/stacks/stacks-event-handler';
import { decodeRawTxColumns } from '../../indexer/src/stacks/tx-fields';
import { getTxById } from '../src/chain/datastore/txs';
import { toMempoolTransactionResponse } from '../src/chain/mappers/tx';
import { getTransactionV3 } from '../src/accounts/datastore/v3-transactions';
import { toMempoolTransactionSummaryResponse } from '../src/accounts/mappers/v3-transactions';
import { loadRecordedEvents, replayedDatabase, type RecordedEvent } from './support/replayed-database';
import { migratedDatabase } from './support/migrated-database';

/** Each pending transaction's kept text (null when missing), by id. */
async function keptTexts(db: Knex): Promise<Map<string, string | null>> {
  const { rows } = (await db.raw(
    `SELECT m.tx_id, j.json FROM mempool_txs m LEFT JOIN mempool_tx_json j USING (tx_id) WHERE m.status = 'pending'`,
  )) as { rows: Array<{ tx_id: string; json: string | null }> };
  return new Map(rows.map((r) => [r.tx_id, r.json]));
}

/** Each pending transaction's kept v3 text (null when missing), by id. */
async function keptV3Texts(db: Knex): Promise<Map<string, string | null>> {
  const { rows } = (await db.raw(
    `SELECT m.tx_id, j.v3_json FROM mempool_txs m LEFT JOIN mempool_tx_json j USING (tx_id) WHERE m.status = 'pending'`,
  )) as { rows: Array<{ tx_id: string; v3_json: string | null }> };
  return new Map(rows.map((r) => [r.tx_id, r.v3_json]));
}

/** The v3 mapper's rendering of each transaction given, its row read by id (`/extended/v3/transactions/{tx_id}`). */
async function renderedV3ById(db: Knex, ids: Iterable<string>): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const id of ids) {
    const found = await getTransactionV3(db, id);
    out.set(id, found?.kind === 'mempool' ? JSON.stringify(toMempoolTransactionSummaryResponse(found.tx)) : null);
  }
  return out;
}

/** The api's rendering by id of each transaction given. */
async function renderedById(db: Knex, ids: Iterable<string>): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const id of ids) {
    const found = await getTxById(db, id, { limit: 0, offset: 0 });
    out.set(id, found?.kind === 'mempool' ? JSON.stringify(toMempoolTransactionResponse(found.mempoolTx, found.abis)) : null);
  }
  return out;
}

/** A fresh migrated database and a function applying one recorded event through the indexer's handler. */
async function indexerDb(label: string): Promise<{ db: Knex; apply: (e: RecordedEvent) => Promise<void> }> {
  const db = createDb({ connectionString: await migratedDatabase(label), maxConnections: 2 });
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  const apply = async (e: RecordedEvent) => {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path: e.path, received_at: e.receivedAt, body: JSON.parse(e.body) as unknown });
      await handler.beforeCommit(trx);
    });
  };
  return { db, apply };
}

/** Applies `events` one by one; after each, every pending transaction's text is the api's rendering by id. */
async function replayChecked(label: string, events: RecordedEvent[], afterEach?: (i: number, db: Knex) => Promise<void>) {
  const { db, apply } = await indexerDb(label);
  let checked = 0;
  let checkedV3 = 0;
  for (const [i, e] of events.entries()) {
    await apply(e);
    const kept = await keptTexts(db);
    // No pending row without its text.
    expectMessage(`after record ${i} (${e.path})`, () =>
      expect([...kept].filter(([, json]) => json === null).map(([id]) => id)).toEqual([]),
    );
    // The v3 text after every record: it has no dependency but the row (no ABI), so no record may leave it stale.
    const keptV3 = await keptV3Texts(db);
    const renderedV3 = await renderedV3ById(db, keptV3.keys());
    expectMessage(`v3, after record ${i} (${e.path})`, () => expect(keptV3).toEqual(renderedV3));
    checkedV3 += keptV3.size;
    if (e.path === '/new_mempool_tx' || e.path === '/drop_mempool_tx' || e.path === '/new_block' || i === events.length - 1) {
      const rendered = await renderedById(db, kept.keys());
      expectMessage(`after record ${i} (${e.path})`, () => expect(kept).toEqual(rendered));
      checked += kept.size;
    }
    await afterEach?.(i, db);
  }
  return { db, checked, checkedV3 };
}

/** Migration 105 run again from scratch (rolled back after) fills the texts the indexer kept. */
async function expectBackfillAsKept(db: Knex): Promise<number> {
  const kept = await keptTexts(db);
  const [, migration] = MIGRATIONS.find(([name]) => name === '105-mempool-tx-json')!;
  const trx = await db.transaction();
  try {
    await migration.down(trx);
    await migration.up(trx);
    expect(await keptTexts(trx)).toEqual(kept);
  } finally {
    await trx.rollback();
  }
  return kept.size;
}

/** Migration 110 run again (rolled back after) fills the v3 texts the indexer kept. */
async function expectV3BackfillAsKept(db: Knex): Promise<number> {
  const kept = await keptV3Texts(db);
  const [, migration] = MIGRATIONS.find(([name]) => name === '110-mempool-v3-summary-json')!;
  const trx = await db.transaction();
  try {
    await migration.down(trx);
    await migration.up(trx);
    expect(await keptV3Texts(trx)).toEqual(kept);
  } finally {
    await trx.rollback();
  }
  return kept.size;
}

const POX = 'ST000000000000000000002AMW42H.pox-4';

/**
 * The pox-4 recording with its first call to `pox-4` announced right before the block that deploys `pox-4`; the index
 * of that announcement in the result, and the call's id.
 */
function poxCallBeforeDeploy(): { events: RecordedEvent[]; at: number; callId: string } {
  const events = loadRecordedEvents('regtest-env-pox-4-stack-stx-in-reward-phase-S1.tsv');
  const callsPox = (e: RecordedEvent) =>
    e.path === '/new_mempool_tx' &&
    (JSON.parse(e.body) as string[]).some((raw) => decodeRawTxColumns(raw).columns.contract_id === POX);
  const deploysPox = (e: RecordedEvent) =>
    e.path === '/new_block' &&
    (JSON.parse(e.body) as { transactions: Array<{ raw_tx: string }> }).transactions.some((t) => {
      try {
        const d = decodeRawTxColumns(t.raw_tx);
        return d.columns.type_id === 'smart_contract' && d.columns.contract_id === POX;
      } catch {
        return false;
      }
    });
  const call = events.findIndex(callsPox);
  const deploy = events.findIndex(deploysPox);
  if (deploy < 0 || call < deploy) throw new Error(`the recording changed: pox-4 deployed at ${deploy}, first called at ${call}`);
  const callId = decodeRawTxColumns((JSON.parse(events[call]!.body) as string[])[0]!).tx_id;
  return {
    events: [...events.slice(0, deploy), events[call]!, ...events.slice(deploy, call), ...events.slice(call + 1)],
    at: deploy,
    callId,
  };
}

interface Replayed {
  db: Knex;
  checked: number;
  checkedV3: number;
}

const replays: Partial<Record<'fuzzed' | 'poxLate', Replayed>> = {};
/** `function_signature` of the pox-4 call's kept text right after its announcement and after the deploying block. */
const signatures: string[] = [];

beforeAll(async () => {
  // The two replays at once (each its own database): the file's time is mostly the indexer's per-record work. The
  // epoch-3 recording (238 records, 17 s so) is checked at its end only, on the run's replayed copy (below).
  const pox = poxCallBeforeDeploy();
  const [fuzzed, poxLate] = await Promise.all([
    replayChecked('mempool_json_fuzzed', loadRecordedEvents('fuzzed-transactions-1.tsv')),
    replayChecked('mempool_json_pox_late', pox.events, async (i, db) => {
      if (i !== pox.at && i !== pox.at + 1) return;
      const [row] = (await db.raw('SELECT json FROM mempool_tx_json WHERE tx_id = ?', [pox.callId])).rows as [{ json: string }];
      signatures.push(
        (JSON.parse(row.json) as { contract_call: { function_signature: string } }).contract_call.function_signature,
      );
    }),
  ]);
  Object.assign(replays, { fuzzed, poxLate });
}, 120_000);

afterAll(async () => {
  for (const r of Object.values(replays)) await r.db.destroy();
});

describe('mempool_tx_json over the recordings with a mempool', () => {
  it.each(['fuzzed', 'poxLate'] as const)(
    '%s: every pending transaction’s list text is the api’s rendering by id after every record, and migration 105 fills the same',
    async (name) => {
      // The per-record checks ran in beforeAll (a failure there fails every test of the file).
      const r = replays[name]!;
      expect(r.checked).toBeGreaterThan(0);
      expect(await expectBackfillAsKept(r.db)).toBeGreaterThanOrEqual(0);
    },
  );

  it.each(['fuzzed', 'poxLate'] as const)(
    '%s: every pending transaction’s v3 text is the v3 mapper’s rendering of its row after every record, and migration 110 fills the same',
    async (name) => {
      const r = replays[name]!;
      expect(r.checkedV3).toBeGreaterThan(0);
      expect(await expectV3BackfillAsKept(r.db)).toBeGreaterThanOrEqual(0);
    },
  );

  it('epoch-3 as the system replayed it: every pending transaction’s text is the api’s rendering by id, and the backfill’s', async () => {
    const db = createDb({
      connectionString: await replayedDatabase(testInfra().databaseUrl, 'epoch-3-transition.tsv'),
      maxConnections: 2,
    });
    try {
      const kept = await keptTexts(db);
      expect([...kept].filter(([, json]) => json === null)).toEqual([]);
      expect(kept).toEqual(await renderedById(db, kept.keys()));
      await expectBackfillAsKept(db);
      expect(kept.size).toBeGreaterThan(0);
      const keptV3 = await keptV3Texts(db);
      expect([...keptV3].filter(([, json]) => json === null)).toEqual([]);
      expect(keptV3).toEqual(await renderedV3ById(db, keptV3.keys()));
      await expectV3BackfillAsKept(db);
    } finally {
      await db.destroy();
    }
  });

  it('renders a pending call again when its contract’s deploy arrives: unnamed before, named by the ABI after', () => {
    expect(signatures).toEqual(['', expect.stringMatching(/^\(define-public \(/)]);
  });
});
