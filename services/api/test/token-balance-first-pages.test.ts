/**
 * The kept first pages of the FT lists (`token_balance_maps.ft_first_*`, migration 112, ADR 0047) as the api answers
 * them: v2 `/extended/v2/addresses/{p}/balances/ft` and v3 `/extended/v3/principals/{p}/balances/ft` without page
 * parameters, byte for byte equal to `JSON.stringify` of the answer built here from the principal's `token_balances`
 * rows (sorted in JS: UTF-8 byte order of the asset, BigInt balances), and to the answer the index range statements
 * give for the same page. Checked after every record of the recordings, applied one by one through the indexer's own
 * handler (the token recording's out-of-order microblock; the reorg recording), while the token block leaves the
 * canonical chain and joins it again through the indexer's read-model functions, on a principal with more kinds than a
 * page (names JSON must escape, u128 and zero balances, rows moving across the page's end, every row gone), and for
 * migration 112's backfill.
 */
import type { Knex } from 'knex';
import { addressFromVersionHash, addressToString } from '@stacks/transactions';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { createDb, KEPT_FT_PAGE_LIMIT, MIGRATIONS } from '@bda/db';
import { expectMessage } from '@bda/test-support';
import { stacksEventHandler } from '../../indexer/src/stacks/stacks-event-handler';
import { addCanonicalBlockReadModels, removeAddressTxs } from '../../indexer/src/stacks/read-models';
import { refreshTokenBalances } from '../../indexer/src/accounts/token-balances';
import { balancesRoutes } from '../src/accounts/routes/balances';
import { ftBalanceRoutes } from '../src/accounts/routes/ft-balances';
import { principalPositionsRoutes } from '../src/accounts/routes/principal-positions';
import { getTokenBalancePageJson } from '../src/accounts/datastore/token-balances';
import { getFtPositionsJson } from '../src/accounts/datastore/principal-positions';
import { getStxBalance } from '../src/accounts/datastore/stx-balance';
import { toAddressStxBalanceResponse } from '../src/accounts/mappers/stx-balance';
import type { GetRoute } from '../src/plain-routes';
import { loadRecordedEvents, type RecordedEvent } from './support/replayed-database';
import { migratedDatabase } from './support/migrated-database';

const V2 = '/extended/v2/addresses/:principal/balances/ft';
const V3 = '/extended/v3/principals/:principal/balances/ft';
const V1 = '/extended/v1/address/:principal/balances';

/** The body of a route's answer as the client receives it (parts joined). */
async function answerText(
  routes: readonly GetRoute[],
  path: string,
  principal: string,
  query: Record<string, string> = {},
): Promise<string> {
  const answer = await routes.find((r) => r.path === path)!.handle({ principal }, query, {});
  if (typeof answer === 'string') return answer;
  expect(answer.status ?? 200).toBe(200);
  const body = answer.body;
  return typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : body.join('');
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The two first-page answers of every principal with FT rows, built in JS from its `token_balances` rows. */
async function expectedPages(db: Knex): Promise<Map<string, { v2: string; v3: string }>> {
  const { rows } = (await db.raw(
    `SELECT principal, asset_identifier, balance::text AS balance FROM token_balances WHERE kind = 'ft'`,
  )) as { rows: Array<{ principal: string; asset_identifier: string; balance: string }> };
  const byPrincipal = new Map<string, Array<{ asset: string; balance: bigint }>>();
  for (const r of rows) {
    const list = byPrincipal.get(r.principal) ?? [];
    list.push({ asset: r.asset_identifier, balance: BigInt(r.balance) });
    byPrincipal.set(r.principal, list);
  }
  const limit = KEPT_FT_PAGE_LIMIT;
  const out = new Map<string, { v2: string; v3: string }>();
  for (const [principal, list] of byPrincipal) {
    const inAssetOrder = [...list].sort((a, b) => byBytes(a.asset, b.asset));
    const held = list
      .filter((r) => r.balance > 0n)
      .sort((a, b) => (a.balance > b.balance ? -1 : a.balance < b.balance ? 1 : byBytes(a.asset, b.asset)));
    const key = (r: { asset: string; balance: bigint } | undefined) => (r === undefined ? null : `${r.balance}:${r.asset}`);
    out.set(principal, {
      v2: JSON.stringify({
        limit,
        offset: 0,
        total: list.length,
        results: inAssetOrder.slice(0, limit).map((r) => ({ token: r.asset, balance: r.balance.toString() })),
      }),
      v3: JSON.stringify({
        total: held.length,
        limit,
        cursor: { next: key(held[limit]), previous: null, current: key(held[0]) },
        results: held.slice(0, limit).map((r) => ({ asset_identifier: r.asset, balance: r.balance.toString() })),
      }),
    });
  }
  return out;
}

/**
 * Every principal's two first pages, as the api answers them from the kept texts, equal `JSON.stringify` of the
 * expected answers and the pages the range statements write; a principal without FT rows (or without any token)
 * gets empty pages. `label` names the step in a failure.
 */
async function expectKeptPages(db: Knex, label: string, also: readonly string[] = []): Promise<number> {
  const v2Routes = ftBalanceRoutes(db);
  const v3Routes = principalPositionsRoutes(db);
  const expected = await expectedPages(db);
  const { rows } = (await db.raw('SELECT principal FROM token_balance_maps')) as { rows: Array<{ principal: string }> };
  const principals = new Set([...expected.keys(), ...rows.map((r) => r.principal), ...also, 'SP000000000000000000002Q6VF78']);
  for (const p of principals) {
    const want = expected.get(p) ?? {
      v2: JSON.stringify({ limit: KEPT_FT_PAGE_LIMIT, offset: 0, total: 0, results: [] }),
      v3: JSON.stringify({
        total: 0,
        limit: KEPT_FT_PAGE_LIMIT,
        cursor: { next: null, previous: null, current: null },
        results: [],
      }),
    };
    const v2 = await answerText(v2Routes, V2, p);
    const v3 = await answerText(v3Routes, V3, p);
    expectMessage(`${label}: ${p}`, () => expect({ v2, v3 }).toEqual(want));
    // The same pages from the index ranges (the statements every other page still uses).
    const range = await getTokenBalancePageJson(db, p, 'ft', { limit: KEPT_FT_PAGE_LIMIT, offset: 0 });
    const positions = await getFtPositionsJson(db, p, KEPT_FT_PAGE_LIMIT, null);
    const parsed = JSON.parse(want.v3) as { cursor: { current: string | null; next: string | null } };
    const key = (r: { balance: string; asset_identifier: string } | null) =>
      r === null ? null : `${r.balance}:${r.asset_identifier}`;
    expectMessage(`${label}: ${p} (range statements)`, () =>
      expect({
        v2: `{"limit":${KEPT_FT_PAGE_LIMIT},"offset":0,"total":${range.total},"results":${range.resultsJson}}`,
        v3: positions.resultsJson,
        current: key(positions.current),
        next: key(positions.next),
      }).toEqual({
        v2: want.v2,
        v3: JSON.stringify((JSON.parse(want.v3) as { results: unknown }).results),
        current: parsed.cursor.current,
        next: parsed.cursor.next,
      }),
    );
  }
  return expected.size;
}

/**
 * v1 `/balances` of every principal with token rows (and of some without): at the tip (the STX read bringing the kept maps,
 * ADR 0047) and at `until_block` = the tip's height (the maps written from the change rows), byte for byte the
 * answer built from the STX statement without the maps and the mapper, and the maps built here from the
 * `token_balances` rows (asset in UTF-8 byte order; balance or count, totals sent and received).
 */
async function expectV1Balances(db: Knex, label: string): Promise<void> {
  const routes = balancesRoutes(db);
  const { rows } = (await db.raw(
    `SELECT principal, kind, asset_identifier, balance::text AS balance, total_sent::text AS total_sent,
            total_received::text AS total_received
     FROM token_balances`,
  )) as {
    rows: Array<{
      principal: string;
      kind: 'ft' | 'nft';
      asset_identifier: string;
      balance: string;
      total_sent: string;
      total_received: string;
    }>;
  };
  const maps = new Map<string, { ft: typeof rows; nft: typeof rows }>();
  for (const r of rows) {
    const m = maps.get(r.principal) ?? { ft: [], nft: [] };
    m[r.kind].push(r);
    maps.set(r.principal, m);
  }
  const mapText = (list: typeof rows, amount: 'balance' | 'count') =>
    JSON.stringify(
      Object.fromEntries(
        [...list]
          .sort((a, b) => byBytes(a.asset_identifier, b.asset_identifier))
          .map((r) => [r.asset_identifier, { [amount]: r.balance, total_sent: r.total_sent, total_received: r.total_received }]),
      ),
    );
  // Some principals with STX only too: the statement with the maps serves them as well.
  const stxOnly = (
    (await db.raw('SELECT DISTINCT principal FROM stx_balance_changes ORDER BY principal LIMIT 20')) as {
      rows: Array<{ principal: string }>;
    }
  ).rows.map((r) => r.principal);
  for (const p of new Set([...maps.keys(), ...stxOnly, 'SP000000000000000000002Q6VF78'])) {
    const read = await getStxBalance(db, p, null);
    if (read.balance === null) continue;
    const m = maps.get(p) ?? { ft: [], nft: [] };
    const tokens = `"fungible_tokens":${mapText(m.ft, 'balance')},"non_fungible_tokens":${mapText(m.nft, 'count')}}`;
    const want = `{"stx":${JSON.stringify(toAddressStxBalanceResponse(read.balance, read.pending))},${tokens}`;
    await expectMessage(`${label}: v1 ${p}`, async () => expect(await answerText(routes, V1, p)).toBe(want));
    const at = await getStxBalance(db, p, read.balance.height);
    const wantAt = `{"stx":${JSON.stringify(toAddressStxBalanceResponse(at.balance!, null))},${tokens}`;
    const until = String(read.balance.height);
    await expectMessage(`${label}: v1 ${p} until_block`, async () =>
      expect(await answerText(routes, V1, p, { until_block: until })).toBe(wantAt),
    );
  }
}

/** The kept columns of every row. */
async function keptColumns(db: Knex): Promise<unknown[]> {
  return (
    (await db.raw(
      `SELECT principal, ft_first_by_asset, ft_first_by_balance, ft_first_current, ft_first_next
       FROM token_balance_maps ORDER BY principal`,
    )) as { rows: unknown[] }
  ).rows;
}

/** Migration 112 run again (rolled back after) writes the columns the indexer kept. */
async function expectBackfillAsKept(db: Knex): Promise<void> {
  const kept = await keptColumns(db);
  const [, migration] = MIGRATIONS.find(([name]) => name === '112-token-balance-first-pages')!;
  const trx = await db.transaction();
  try {
    await migration.down(trx);
    await migration.up(trx);
    expect(await keptColumns(trx)).toEqual(kept);
  } finally {
    await trx.rollback();
  }
}

const dbs: Knex[] = [];
afterAll(async () => {
  for (const db of dbs) await db.destroy();
});

/** A fresh migrated database with `events` applied one by one through the indexer's handler, checked after each. */
async function replayChecked(label: string, events: RecordedEvent[]): Promise<{ db: Knex; principals: number }> {
  const db = createDb({ connectionString: await migratedDatabase(label), maxConnections: 4 });
  dbs.push(db);
  const handler = stacksEventHandler(createLogger('indexer', 'silent'));
  let principals = 0;
  for (const [i, e] of events.entries()) {
    await db.transaction(async (trx) => {
      handler.onBatchStart();
      await handler.handle(trx, { path: e.path, received_at: e.receivedAt, body: JSON.parse(e.body) as unknown });
      await handler.beforeCommit(trx);
    });
    principals = Math.max(principals, await expectKeptPages(db, `${label} after record ${i} (${e.path})`));
    await expectV1Balances(db, `${label} after record ${i} (${e.path})`);
  }
  return { db, principals };
}

/** Runs `body` in a transaction that is rolled back. */
async function rolledBack(db: Knex, body: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  await db
    .transaction(async (trx) => {
      await body(trx);
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
}

describe('kept first pages of the FT lists (migration 112)', () => {
  it('answer every principal as its rows give them after every record of the token recording, while its token block leaves and joins again, and as the backfill writes them', async () => {
    const { db, principals } = await replayChecked(
      'ft_first_pages_ooo',
      loadRecordedEvents('mainnet-out-of-order-microblock.tsv'),
    );
    expect(principals).toBeGreaterThan(1);
    await expectBackfillAsKept(db);
    const { rows } = (await db.raw(
      `SELECT DISTINCT c.index_block_hash FROM token_balance_changes c JOIN blocks b USING (index_block_hash) WHERE b.canonical`,
    )) as { rows: Array<{ index_block_hash: string }> };
    expect(rows.length).toBeGreaterThan(0);
    await rolledBack(db, async (trx) => {
      for (const { index_block_hash } of rows) {
        await removeAddressTxs(trx, [index_block_hash]);
        await expectKeptPages(trx, `without ${index_block_hash}`);
        await expectV1Balances(trx, `without ${index_block_hash}`);
        await expectBackfillAsKept(trx);
      }
      for (const { index_block_hash } of rows) {
        await addCanonicalBlockReadModels(trx, [index_block_hash]);
        await expectKeptPages(trx, `${index_block_hash} back`);
        await expectV1Balances(trx, `${index_block_hash} back`);
      }
    });
  }, 120_000);

  it('answer every principal after every record of the reorg recording', async () => {
    const { db } = await replayChecked('ft_first_pages_reorg', loadRecordedEvents('mainnet-reorg-scenario1.tsv'));
    await expectBackfillAsKept(db);
  }, 120_000);

  it('cut a principal’s lists at the page size, follow its rows across the page’s end, and go with its last row', async () => {
    const { db } = await replayChecked('ft_first_pages_many', loadRecordedEvents('mocknet.tsv').slice(0, 3));
    const who = addressToString(addressFromVersionHash(22, '11'.repeat(20)));
    const names = ['quote"back\\slash', 'tab\tnl\ncr\r\u0001', 'café-🙂', 'zero', 'u128'];
    const kinds = Array.from({ length: 150 }, (_, i) => `SP1.c::${names[i] ?? `k${String(i).padStart(3, '0')}`}`);
    // Balances: many equal ones (the asset breaks the tie), one zero, one u128.
    const start = kinds.map((asset, i): [string, bigint] => [
      asset,
      asset.endsWith('::zero') ? 0n : asset.endsWith('::u128') ? 2n ** 128n - 1n : BigInt(i % 7) * 1000n + 1n,
    ]);
    const write = async (trx: Knex.Transaction, height: number, rows: Array<[string, bigint]>) => {
      await trx.raw(
        `INSERT INTO token_balance_changes (principal, kind, asset_identifier, block_height, index_block_hash, balance, total_sent, total_received)
         SELECT ?, 'ft', a, ?, '0xtest', b, 0, b FROM unnest(?::text[], ?::numeric[]) AS t(a, b)`,
        [who, height, rows.map(([a]) => a), rows.map(([, b]) => b.toString())],
      );
      await refreshTokenBalances(
        trx,
        rows.map(([asset_identifier]) => ({ principal: who, kind: 'ft', asset_identifier })),
      );
    };
    await rolledBack(db, async (trx) => {
      await write(trx, 1, start);
      await expectKeptPages(trx, 'written');
      await expectV1Balances(trx, 'written');
      const [page] = (await trx.raw('SELECT ft_first_next FROM token_balance_maps WHERE principal = ?', [who])).rows as [
        { ft_first_next: string | null },
      ];
      expect(page.ft_first_next).not.toBeNull();
      await expectBackfillAsKept(trx);
      // Rows across the page's end both ways: the smallest balances become the largest and the largest zero.
      await write(
        trx,
        2,
        start.map(([a, b]): [string, bigint] => [a, b === 1n ? 10n ** 30n : b >= 6000n ? 0n : b]),
      );
      await expectKeptPages(trx, 'moved');
      await expectV1Balances(trx, 'moved');
      await expectBackfillAsKept(trx);
      // Every change row gone (its block left): the principal's row goes, its pages are empty.
      await trx.raw('DELETE FROM token_balance_changes WHERE principal = ?', [who]);
      await refreshTokenBalances(
        trx,
        kinds.map((asset_identifier) => ({ principal: who, kind: 'ft', asset_identifier })),
      );
      expect((await trx.raw('SELECT 1 FROM token_balance_maps WHERE principal = ?', [who])).rows).toEqual([]);
      await expectKeptPages(trx, 'gone', [who]);
    });
  }, 120_000);
});
