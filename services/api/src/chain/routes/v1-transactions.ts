import type { GetRoute } from '../../plain-routes';
import { ReadRoutes, type ReadReply, type ReadRequest } from '../../read-routes';
import { InputError, NotFoundError } from '@bda/common';
import { EVENT_TYPE_GROUP_IDS } from '@bda/db';
import type { MempoolTransactionResponse, TransactionResponse } from '../../api-types';
import { isValidPrincipal } from '../../codec';
import { noStore, respondNotModifiedIfFresh } from '../../http-cache';
import {
  echo,
  parseHash32,
  parsePage,
  parsePrincipal,
  parseTxId,
  queryBoolean,
  queryEnum,
  queryInt,
  queryString,
} from '../../params';
import {
  EVENT_TYPE_GROUPS,
  getBlockTxs,
  getEvents,
  getMempoolStats,
  getRawTx,
  getTxList,
  type TxBlockKey,
  type TxPage,
} from '../datastore/tx-lists';
import { getTxById } from '../datastore/txs';
import { getPrincipalEventTexts, toEventPageJson } from '../datastore/principal-events';
import { toEventResponse } from '../mappers/event';
import { toMempoolStatsResponse } from '../mappers/mempool-stats';
import { toMempoolTransactionResponse, toTransactionResponse, toTxPageJson, withoutFunctionArgs } from '../mappers/tx';
import { parseHeightParam, redirectBareHash } from './chain-params';
import { markDeprecated } from '../../deprecated';
import type { RouteContext } from './context';

/** The transaction types of the reference's `type` filter (each the stored `type_id` of the same name). */
const TX_TYPES = ['contract_call', 'smart_contract', 'token_transfer', 'coinbase', 'poison_microblock', 'tenure_change'] as const;

/** The most ids `/extended/v1/tx/multiple` looks up in one request. */
const MAX_MULTIPLE_TX_IDS = 200;

/** Largest time or nonce filter accepted (int8 columns; the reference takes safe integers). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A list parameter the reference takes repeated or comma-separated (`type=a,b`, `type=a&type=b`): each value must be
 * one of `allowed`. Undefined when absent.
 */
function queryList(query: Record<string, unknown>, name: string, allowed?: readonly string[]): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const parts = (Array.isArray(raw) ? raw : [raw]).map((v) => {
    if (typeof v !== 'string') throw new InputError(`query parameter ${name}: must be a single value or a comma-separated list`);
    return v;
  });
  const values = parts.flatMap((p) => p.split(','));
  for (const v of values) {
    if (allowed ? !allowed.includes(v) : v === '') {
      throw new InputError(
        `query parameter ${name}: ${echo(v)} is not ${allowed ? `one of ${allowed.join(', ')}` : 'a value'} (a comma-separated list or repeated)`,
      );
    }
  }
  return values;
}

/** A page's body: JSON text with the page's joined kept texts copied in (`toTxPageJson`). */
function txPageBody(page: TxPage, limit: number, offset: number, exclude: boolean): string {
  return toTxPageJson({ limit, offset, total: page.total }, page.results, exclude);
}

/**
 * The rest of the reference API's `/extended/v1/tx…`: the list with its filters, several transactions at once, events,
 * raw bytes, a block's transactions and the mempool's statistics.
 */
export function v1TransactionsRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v1/tx', async (req, res) => {
    // `/extended/v1/tx/` too: the reference's own client (`@stacks/blockchain-api-client`) asks for the list there.
    markDeprecated(res);
    const { limit, offset } = parsePage(req.query, ctx.limits.tx, { zeroMeansDefault: true });
    const types = queryList(req.query, 'type', TX_TYPES) ?? [];
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const order = queryEnum(req.query, 'order', ['asc', 'desc'] as const, 'desc');
    const sortBy = queryEnum(req.query, 'sort_by', ['block_height', 'burn_block_time', 'fee'] as const, 'block_height');
    const rawFrom = queryString(req.query, 'from_address');
    if (rawFrom !== undefined && (rawFrom.includes('.') || !isValidPrincipal(rawFrom))) {
      throw new InputError(`query parameter from_address: ${echo(rawFrom)} is not a valid STX address`);
    }
    const principal = (name: string) => {
      const raw = queryString(req.query, name);
      return raw === undefined ? undefined : parsePrincipal(raw, `query parameter ${name}`);
    };
    const toAddress = principal('to_address');
    const contractId = principal('contract_id');
    const functionName = queryString(req.query, 'function_name');
    if (functionName !== undefined && !/^[a-zA-Z][a-zA-Z0-9_!?+<>=/*-]{0,127}$/.test(functionName)) {
      throw new InputError(`query parameter function_name: ${echo(functionName)} is not a Clarity function name`);
    }
    const opt = (name: string) =>
      queryString(req.query, name) === undefined ? undefined : queryInt(req.query, name, { default: 0, min: 0, max: MAX_SAFE });
    const page = await getTxList(
      ctx.db,
      { limit, offset, sortBy, order },
      {
        types: [...new Set(types)],
        fromAddress: rawFrom,
        toAddress,
        startTime: opt('start_time'),
        endTime: opt('end_time'),
        contractId,
        functionName,
        nonce: opt('nonce'),
      },
    );
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    // JSON text with the kept transaction texts copied in; `send` keeps the JSON type.
    res.send(txPageBody(page, limit, offset, exclude));
  });

  router.get('/extended/v1/tx/multiple', async (req, res) => {
    const events = parsePage(req.query, ctx.limits.event, {
      limit: 'event_limit',
      offset: 'event_offset',
      zeroMeansDefault: true,
    });
    queryBoolean(req.query, 'unanchored');
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const raw = queryList(req.query, 'tx_id');
    if (!raw || raw.length === 0) throw new InputError('query parameter tx_id: required, one or more transaction ids');
    if (raw.length > MAX_MULTIPLE_TX_IDS) {
      throw new InputError(`query parameter tx_id: at most ${MAX_MULTIPLE_TX_IDS} transaction ids, got ${raw.length}`);
    }
    const ids = [...new Set(raw.map((id) => parseTxId(id, 'query parameter tx_id')))];
    type Found =
      { found: true; result: TransactionResponse | MempoolTransactionResponse } | { found: false; result: { tx_id: string } };
    const body: Record<string, Found> = {};
    for (const id of ids) {
      const found = await getTxById(ctx.db, id, events);
      if (!found) body[id] = { found: false, result: { tx_id: id } };
      else if (found.kind === 'mempool') {
        body[id] = {
          found: true,
          result: withoutFunctionArgs(toMempoolTransactionResponse(found.mempoolTx, found.abis), exclude),
        };
      } else {
        body[id] = {
          found: true,
          result: withoutFunctionArgs(toTransactionResponse(found.tx, found.events, found.abis), exclude),
        };
      }
    }
    // Mined and pending transactions side by side: the answer is as fresh as the mempool, never cached.
    noStore(res);
    res.json(body);
  });

  router.get('/extended/v1/tx/mempool/stats', async (_req, res) => {
    const rows = await getMempoolStats(ctx.db);
    noStore(res);
    res.json(toMempoolStatsResponse(rows));
  });

  router.get('/extended/v1/tx/events', async (req, res) => {
    markDeprecated(res);
    const { limit, offset } = parsePage(
      req.query,
      { default: ctx.limits.tx.default, max: ctx.limits.event.max },
      {
        zeroMeansDefault: true,
      },
    );
    const rawTx = queryString(req.query, 'tx_id');
    const rawAddress = queryString(req.query, 'address');
    const txId = rawTx === undefined ? undefined : parseTxId(rawTx, 'query parameter tx_id');
    const address = rawAddress === undefined ? undefined : parsePrincipal(rawAddress, 'query parameter address');
    const groups = queryList(req.query, 'type', Object.keys(EVENT_TYPE_GROUPS)) ?? [];
    const types = (groups.length > 0 ? groups : Object.keys(EVENT_TYPE_GROUPS)).flatMap((g) => EVENT_TYPE_GROUPS[g]!);
    if (txId === undefined && address === undefined) {
      throw new InputError('query parameter address: give address (a principal) or tx_id (a transaction id)');
    }
    if (txId !== undefined && address !== undefined) {
      throw new InputError('query parameter address: give either address or tx_id, not both');
    }
    if (address !== undefined) {
      const ids = groups.map((g) => EVENT_TYPE_GROUP_IDS[g]!);
      const page = await getPrincipalEventTexts(ctx.db, address, ids, Object.keys(EVENT_TYPE_GROUPS).length, { limit, offset });
      if (respondNotModifiedIfFresh(req, res, page.tip)) return;
      res.send(toEventPageJson({ limit, offset }, page.texts));
      return;
    }
    const of = { txId: txId!, types: [...new Set(types)] };
    const { tip, events } = await getEvents(ctx.db, of, { limit, offset });
    if (respondNotModifiedIfFresh(req, res, tip)) return;
    res.json({ limit, offset, events: events.map(toEventResponse).filter((e) => e !== null) });
  });

  router.get('/extended/v1/tx/block/:block_hash', async (req, res) => {
    markDeprecated(res);
    const hash = parseHash32(req.params.block_hash, 'block_hash', 'a block hash');
    const { limit, offset } = parsePage(req.query, { default: ctx.limits.tx.default, max: 200 }, { zeroMeansDefault: true });
    await blockTxs(
      req,
      res,
      { kind: 'blockHash', hash },
      { limit, offset },
      `block_hash: no canonical block with block hash ${hash}`,
    );
  });

  router.get('/extended/v1/tx/block_height/:height', async (req, res) => {
    markDeprecated(res);
    const height = parseHeightParam(req.params.height, 'height');
    const { limit, offset } = parsePage(req.query, ctx.limits.tx, { zeroMeansDefault: true });
    await blockTxs(req, res, { kind: 'height', height }, { limit, offset }, `height: no canonical block at height ${height}`);
  });

  const blockTxs = async (
    req: ReadRequest,
    res: ReadReply,
    key: TxBlockKey,
    page: { limit: number; offset: number },
    notFound: string,
  ) => {
    const exclude = queryBoolean(req.query, 'exclude_function_args');
    const found = await getBlockTxs(ctx.db, key, { ...page, order: 'desc' });
    if (!found.found) throw new NotFoundError(notFound);
    if (respondNotModifiedIfFresh(req, res, found.tip)) return;
    res.send(txPageBody(found, page.limit, page.offset, exclude));
  };

  router.get('/extended/v1/tx/:tx_id/raw', async (req, res) => {
    markDeprecated(res);
    const raw = req.params.tx_id;
    if (redirectBareHash(res, raw, 'tx_id', 'a transaction id', (h) => `/extended/v1/tx/${h}/raw`)) return;
    const txId = parseTxId(raw);
    parsePage(req.query, ctx.limits.event, { limit: 'event_limit', offset: 'event_offset', zeroMeansDefault: true });
    const bytes = await getRawTx(ctx.db, txId);
    if (!bytes) throw new NotFoundError(`tx_id: transaction ${txId} is neither mined in a canonical block nor in the mempool`);
    noStore(res);
    res.json({ raw_tx: `0x${bytes.toString('hex')}` });
  });

  return router.routes;
}
