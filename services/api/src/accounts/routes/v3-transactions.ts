import type { GetRoute } from '../../plain-routes';
import { ReadRoutes, type ReadRequest } from '../../read-routes';
import type { Knex } from 'knex';
import { InputError, NotFoundError } from '@bda/common';
import type { PageLimits } from '../../env';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { echo, parsePrincipal, parseTxId, queryInt, queryString } from '../../params';
import {
  getBalanceChanges,
  getMempoolSummaries,
  getPrincipalTransactionSummaries,
  getTransactionEventsV3,
  getTransactionSummaries,
  getTransactionV3,
  getTxBalanceChanges,
  type BalanceChangeCursor,
  type KeptCursorPage,
  type MempoolCursor,
  type TxPosition,
} from '../datastore/v3-transactions';
import {
  balanceChangeCursorOf,
  toBalanceChangeResponse,
  toMempoolTransactionV3Response,
  toTransactionEventV3Response,
  toTransactionV3Response,
  txCursorOf,
} from '../mappers/v3-transactions';
import { toTransactionSummaryResponse, TX_INCLUDE_FIELDS, type TxIncludeField } from '../../mappers/v3-transaction-summary';
import { withResultsJson } from '../../mappers/page-json';

const INT4_MAX = 2_147_483_647;

/** `limit` of a v3 cursor list: 1…max (the reference's v3 lists take no 0), default as configured. */
function v3Limit(req: ReadRequest, limits: { default: number; max: number }): number {
  return queryInt(req.query, 'limit', { default: limits.default, min: 1, max: limits.max });
}

function int4(raw: string, what: string): number {
  const n = Number(raw);
  if (raw.length > 10 || n > INT4_MAX) throw new InputError(`query parameter cursor: ${what} ${echo(raw)} is out of range`);
  return n;
}

/** `<block height>:<microblock sequence>:<tx index>`, as the v3 transaction lists write their cursors. */
function txCursor(req: ReadRequest): TxPosition | null {
  const raw = queryString(req.query, 'cursor');
  if (raw === undefined) return null;
  const m = /^([0-9]+):([0-9]+):([0-9]+)$/.exec(raw);
  if (!m)
    throw new InputError(`query parameter cursor: must be <block height>:<microblock sequence>:<tx index>, got ${echo(raw)}`);
  return { height: int4(m[1]!, 'block height'), sequence: int4(m[2]!, 'microblock sequence'), txIndex: int4(m[3]!, 'tx index') };
}

/** `<receipt time>:<tx id>`, as the v3 mempool lists write their cursors. */
function mempoolCursor(req: ReadRequest): MempoolCursor | null {
  const raw = queryString(req.query, 'cursor');
  if (raw === undefined) return null;
  const m = /^([0-9]{1,15}):((0x)?[0-9a-fA-F]{64})$/.exec(raw);
  if (!m) throw new InputError(`query parameter cursor: must be <receipt time>:<tx id>, got ${echo(raw)}`);
  return { seconds: Number(m[1]), txId: parseTxId(m[2]!, 'query parameter cursor') };
}

/**
 * A list-valued query parameter given repeated (`?a=x&a=y`) or comma-separated (`?a=x,y`), as the reference's v3
 * operations take `include` and `tx_id`.
 */
function queryList(req: ReadRequest, name: string): string[] | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  const parts = (Array.isArray(v) ? v : [v]).flatMap((p) => {
    if (typeof p !== 'string') throw new InputError(`query parameter ${name}: must be a list of values`);
    return p.split(',');
  });
  return parts;
}

function includeFields(req: ReadRequest): TxIncludeField[] {
  const raw = queryList(req, 'include') ?? [];
  const seen = new Set<string>();
  for (const f of raw) {
    if (!(TX_INCLUDE_FIELDS as readonly string[]).includes(f)) {
      throw new InputError(`query parameter include: each value must be one of ${TX_INCLUDE_FIELDS.join(', ')}, got ${echo(f)}`);
    }
    if (seen.has(f)) throw new InputError(`query parameter include: ${echo(f)} is given more than once`);
    seen.add(f);
  }
  return [...seen] as TxIncludeField[];
}

/**
 * The reference API's v3 transaction operations (its current successors of the v1/v2 lists, not deprecated):
 * `/extended/v3/transactions` (with one transaction and its events), `/extended/v3/mempool/transactions`, and a
 * principal's transactions, balance changes and pending transactions under `/extended/v3/principals/{principal}`.
 * Cursor paging as the reference computes it (`cursor.next` is the next page's first row, `previous` the previous
 * page's, `current` this page's).
 */
export function v3TransactionRoutes(db: Knex, limits: PageLimits): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v3/transactions', async (req, res) => {
    const limit = v3Limit(req, limits.tx);
    const cursor = txCursor(req);
    const page = await getTransactionSummaries(db, limit, cursor);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json(cursorPage(page, limit, txCursorOf, toTransactionSummaryResponse));
  });

  router.get('/extended/v3/transactions/:tx_id', async (req, res) => {
    const txId = parseTxId(req.params.tx_id);
    const include = includeFields(req);
    const found = await getTransactionV3(db, txId);
    if (!found) throw new NotFoundError('Transaction not found');
    if (found.kind === 'mempool') {
      res.json(toMempoolTransactionV3Response(found.tx, include));
      return;
    }
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.json(toTransactionV3Response(found.tx, found.eventCount, include));
  });

  router.get('/extended/v3/transactions/:tx_id/events', async (req, res) => {
    const txId = parseTxId(req.params.tx_id);
    const limit = v3Limit(req, limits.event);
    const raw = queryString(req.query, 'cursor');
    if (raw !== undefined && !/^[0-9]{1,10}$/.test(raw)) {
      throw new InputError(`query parameter cursor: must be an event index (digits), got ${echo(raw)}`);
    }
    const from = raw === undefined ? 0 : int4(raw, 'event index');
    const { tip, found, total, events } = await getTransactionEventsV3(db, txId, from, limit);
    if (!found) throw new NotFoundError('Transaction not found');
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    const page = events.slice(0, limit);
    const first = page[0];
    res.json({
      total,
      limit,
      cursor: {
        next: events[limit] ? String(events[limit].event_index) : null,
        previous: first && first.event_index > 0 ? String(Math.max(first.event_index - limit, 0)) : null,
        current: first ? String(first.event_index) : null,
      },
      results: page.map(toTransactionEventV3Response).filter((e) => e !== null),
    });
  });

  router.get('/extended/v3/mempool/transactions', async (req, res) => {
    const limit = v3Limit(req, limits.tx);
    const cursor = mempoolCursor(req);
    res.send(keptCursorPageJson(limit, await getMempoolSummaries(db, limit, cursor, null)));
  });

  router.get('/extended/v3/principals/:principal/mempool/transactions', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const limit = v3Limit(req, limits.tx);
    const cursor = mempoolCursor(req);
    res.send(keptCursorPageJson(limit, await getMempoolSummaries(db, limit, cursor, principal)));
  });

  router.get('/extended/v3/principals/:principal/transactions', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const limit = v3Limit(req, limits.tx);
    const cursor = txCursor(req);
    const page = await getPrincipalTransactionSummaries(db, principal, limit, cursor);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.send(keptCursorPageJson(limit, page));
  });

  router.get('/extended/v3/principals/:principal/transactions/:tx_id/balance-changes', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const txId = parseTxId(req.params.tx_id);
    const limit = v3Limit(req, limits.tx);
    const raw = queryString(req.query, 'cursor');
    let cursor: { assetType: number; asset: string } | null = null;
    if (raw !== undefined) {
      const m = /^([0-9]{1,5}):(\S+)$/.exec(raw);
      if (!m) throw new InputError(`query parameter cursor: must be <asset type>:<asset identifier>, got ${echo(raw)}`);
      cursor = { assetType: Number(m[1]), asset: m[2]! };
    }
    const page = await getTxBalanceChanges(db, principal, txId, limit, cursor);
    res.json(
      cursorPage(
        page,
        limit,
        (r) => `${r.asset_type}:${r.asset_identifier}`,
        (r) => toBalanceChangeResponse(r, false),
      ),
    );
  });

  router.get('/extended/v3/principals/:principal/balance-changes', async (req, res) => {
    const principal = parsePrincipal(req.params.principal);
    const limit = v3Limit(req, limits.tx);
    const raw = queryString(req.query, 'cursor');
    let cursor: BalanceChangeCursor | null = null;
    if (raw !== undefined) {
      const m = /^([0-9]+):([0-9]+):([0-9]+):([0-9]{1,5}):(\S+)$/.exec(raw);
      if (!m) {
        throw new InputError(
          `query parameter cursor: must be <block height>:<microblock sequence>:<tx index>:<asset type>:<asset identifier>, got ${echo(raw)}`,
        );
      }
      cursor = {
        height: int4(m[1]!, 'block height'),
        sequence: int4(m[2]!, 'microblock sequence'),
        txIndex: int4(m[3]!, 'tx index'),
        assetType: Number(m[4]),
        asset: m[5]!,
      };
    }
    const rawIds = queryList(req, 'tx_id');
    if (rawIds === undefined || rawIds.length === 0)
      throw new InputError('query parameter tx_id: at least one transaction id is required');
    if (rawIds.length > limits.tx.max) {
      throw new InputError(`query parameter tx_id: at most ${limits.tx.max} transaction ids, got ${rawIds.length}`);
    }
    const txIds = [...new Set(rawIds.map((id) => parseTxId(id, 'query parameter tx_id')))];
    const page = await getBalanceChanges(db, principal, txIds, limit, cursor);
    res.json(cursorPage(page, limit, balanceChangeCursorOf, (r) => toBalanceChangeResponse(r, true)));
  });

  return router.routes;
}

/**
 * A v3 cursor page of kept texts as JSON text (`send` keeps the JSON type): the envelope as `cursorPage` writes it
 * (`total`, `limit`, `cursor`) with the page's joined texts copied in as `results` (a principal's history items, ADR
 * 0039/0046; pending transactions, ADR 0045, rendered by `toMempoolTransactionSummaryResponse`'s mapper).
 */
function keptCursorPageJson(limit: number, page: KeptCursorPage): string {
  return withResultsJson({ total: page.total, limit, cursor: page.cursor }, page.texts);
}

interface CursorPageResponse<T> {
  total: number;
  limit: number;
  cursor: { next: string | null; previous: string | null; current: string | null };
  results: T[];
}

/**
 * A v3 cursor page from the `limit + 1` rows read: the first `limit` as results, `next` the cursor of the row after them
 * (the next page's first), `previous` the previous page's first, `current` this page's first.
 */
function cursorPage<R, T>(
  page: { total: number; rows: R[]; prevCursor: string | null },
  limit: number,
  cursorOf: (row: R) => string,
  toResponse: (row: R) => T,
): CursorPageResponse<T> {
  const results = page.rows.slice(0, limit);
  const next = page.rows[limit];
  return {
    total: page.total,
    limit,
    cursor: {
      next: next !== undefined ? cursorOf(next) : null,
      previous: page.prevCursor,
      current: results[0] !== undefined ? cursorOf(results[0]) : null,
    },
    results: results.map(toResponse),
  };
}
