import type { GetRoute } from '../../plain-routes';
import { ReadRoutes } from '../../read-routes';
import { InputError, NotFoundError } from '@bda/common';
import { respondNotModifiedIfFresh } from '../../http-cache';
import { echo, parseHeightOrHash, parsePage, queryInt, queryString, type BlockRef } from '../../params';
import {
  getBlockSignerSignatures,
  getBlockTxSummaries,
  type SummaryBlockKey,
  type TxCursor,
} from '../datastore/block-tx-summaries';
import { txCursorOf, txSummaryPageJson } from '../mappers/tx-summary';
import type { RouteContext } from './context';

/** The reference's signer-signature page sizes (`ResourceType.BlockSignerSignature`). */
const SIGNATURE_PAGE_LIMIT = { default: 500, max: 1000 } as const;

const CURSOR = /^([0-9]{1,10}):([0-9]{1,10}):([0-9]{1,10})$/;
const INT4_MAX = 2_147_483_647;

/** `cursor` of the v3 transaction lists: `block_height:microblock_sequence:tx_index`, each 0 to int4 max. */
function parseTxCursor(query: Record<string, unknown>): TxCursor | undefined {
  const raw = queryString(query, 'cursor');
  if (raw === undefined) return undefined;
  const m = CURSOR.exec(raw);
  const parts = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [];
  if (!m || parts.some((n) => n > INT4_MAX)) {
    throw new InputError(
      `query parameter cursor: must be block_height:microblock_sequence:tx_index (three integers from 0 to ${INT4_MAX}), got ${echo(raw)}`,
    );
  }
  return { block_height: parts[0]!, microblock_sequence: parts[1]!, tx_index: parts[2]! };
}

function summaryKey(ref: BlockRef): SummaryBlockKey {
  return ref.kind === 'height'
    ? { kind: 'height', height: ref.height }
    : ref.kind === 'hash'
      ? { kind: 'hash', hash: ref.hash }
      : { kind: 'latest' };
}

/**
 * `/extended/v3/blocks/{height_or_hash}/transactions` (the reference's successor of the v2 list: transaction
 * summaries, cursor-paged from the newest transaction down) and `/extended/v2/blocks/{height_or_hash}/signer-signatures`
 * (a Nakamoto block's signer signatures, offset-paged).
 */
export function blockExtrasRoutes(ctx: RouteContext): GetRoute[] {
  const router = new ReadRoutes();

  router.get('/extended/v3/blocks/:height_or_hash/transactions', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash, 'height_or_hash', { allowLatest: true });
    // The reference's v3 limit: 1 to the transaction list's maximum (no 0-for-default there).
    const limit = queryInt(req.query, 'limit', { default: ctx.limits.tx.default, min: 1, max: ctx.limits.tx.max });
    const cursor = parseTxCursor(req.query);
    const page = await getBlockTxSummaries(ctx.db, summaryKey(ref), { limit, cursor });
    if (!page.found) throw new NotFoundError(`height_or_hash: no canonical block matches ${echo(req.params.height_or_hash)}`);
    if (respondNotModifiedIfFresh(req, res, page.tip)) return;
    const rows = page.rows.slice(0, limit);
    const extra = page.rows[limit];
    // The kept summary texts copied in (ADR 0042); `send` keeps the JSON type.
    res.send(
      txSummaryPageJson(
        {
          total: page.total,
          limit,
          cursor: {
            next: extra ? txCursorOf(extra) : null,
            previous: page.prevCursor,
            current: rows[0] ? txCursorOf(rows[0]) : null,
          },
        },
        rows.map((r) => r.summary_json),
      ),
    );
  });

  router.get('/extended/v2/blocks/:height_or_hash/signer-signatures', async (req, res) => {
    const ref = parseHeightOrHash(req.params.height_or_hash, 'height_or_hash', { allowLatest: true });
    const { limit, offset } = parsePage(req.query, SIGNATURE_PAGE_LIMIT, { zeroMeansDefault: true });
    const page = await getBlockSignerSignatures(ctx.db, summaryKey(ref), { limit, offset });
    // As the reference: a block it does not find has no signatures (200, total 0), not a 404.
    if (page.found && respondNotModifiedIfFresh(req, res, page.tip)) return;
    res.json({
      limit,
      offset,
      total: page.total,
      results: page.signatures.map((s) => (s.startsWith('0x') ? s : `0x${s}`)),
    });
  });

  return router.routes;
}
