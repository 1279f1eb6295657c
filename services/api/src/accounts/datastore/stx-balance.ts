import type { Knex } from 'knex';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { KeyedBatchLoader } from '../../datastore/keyed-batch-loader';
import { query, statement } from '../../datastore/read-statement';
import type { DbChainTip } from '@bda/db';
import type { TokenBalanceMapsJson } from './token-balances';

/** A principal's STX totals at a height, with the lock in force then (ADR 0024). Amounts are decimal strings. */
export interface DbStxBalance {
  /** The height the balance is at (the tip, or the `until_block` height capped at the tip). */
  height: number;
  balance: string;
  total_sent: string;
  total_received: string;
  total_fees_sent: string;
  total_miner_rewards_received: string;
  lock_tx_id: string | null;
  locked_amount: string | null;
  lock_height: number | null;
  burnchain_lock_height: number | null;
  burnchain_unlock_height: string | null;
  /** Contract of the lock event (`…pox-4`), null when the node did not name one (PoX-1). */
  lock_contract: string | null;
  /** Burn height of the block the balance is at: a lock whose unlock height is below it has expired. */
  burn_block_height: number;
}

/** What the principal's pending mempool transactions would move, in micro-STX (decimal strings). */
export interface DbMempoolStxDelta {
  inbound: string;
  outbound: string;
}

type Row = TipColumns &
  Partial<DbStxBalance> & {
    /** 1-based position of the request in the statement's arrays. */
    n: string;
    at_height: number | null;
    at_burn_block_height: number | null;
    pending_inbound: string | null;
    pending_outbound: string | null;
    /** The kept v1 token maps (`StxBalanceLoader` with `tokenMaps`, reads at the tip), absent or null otherwise. */
    maps_ft?: string | null;
    maps_nft?: string | null;
  };

/** One principal's balance read: the tip it was read at, the balance (null: no canonical block yet), the mempool now. */
export interface StxBalanceRead {
  tip: DbChainTip | null;
  balance: DbStxBalance | null;
  pending: DbMempoolStxDelta;
  /** The principal's v1 `/balances` token maps now (`token_balance_maps`), when asked with a balance at the tip. */
  tokenMaps?: TokenBalanceMapsJson;
}

/**
 * `$1` principals, `$2` heights (null: the tip), element by element: one row per pair, in one statement (one request,
 * or the requests of one turn of the event loop, see `StxBalanceLoader`). Each row: the tip, the canonical block at the
 * height (capped at the tip), the principal's newest balance row at or below it (an index read on
 * `stx_balance_changes`), its newest committed canonical STX lock event up to that height, and what its pending
 * transactions would move now (one row of `mempool_principal_stx`, migration 085: outbound is the amount of the token
 * transfers it sends plus the fees it pays, as origin of an unsponsored transaction or sponsor of a sponsored one;
 * inbound the transfers it receives, as the reference API counts them).
 */
const stxBalancesSql = (tokenMaps: boolean) =>
  `SELECT p.n, ${TIP_SELECT}, at.block_height AS at_height, at.burn_block_height AS at_burn_block_height,
          s.balance, s.total_sent, s.total_received, s.total_fees_sent, s.total_miner_rewards_received,
          l.tx_id AS lock_tx_id, l.locked_amount, l.contract_identifier AS lock_contract, l.block_height AS lock_height, l.unlock_height AS burnchain_unlock_height,
          lb.burn_block_height AS burnchain_lock_height,
          mp.inbound AS pending_inbound, mp.outbound AS pending_outbound${tokenMaps ? MAPS_COLUMNS : ''}
   FROM ${FROM_TIP}
   CROSS JOIN unnest($1::text[], $2::integer[]) WITH ORDINALITY AS p(principal, height, n)
   LEFT JOIN LATERAL (
     SELECT block_height, burn_block_height FROM blocks
     WHERE canonical AND block_height = least(coalesce(p.height, tip.block_height), tip.block_height) LIMIT 1
   ) at ON true
   LEFT JOIN LATERAL (
     SELECT * FROM stx_balance_changes c WHERE c.principal = p.principal AND c.block_height <= at.block_height
     ORDER BY c.block_height DESC LIMIT 1
   ) s ON true
   LEFT JOIN LATERAL (
     SELECT e.tx_id, e.locked_amount, e.block_height, e.unlock_height, e.index_block_hash, e.contract_identifier
     FROM events e
     WHERE e.type = 'stx_lock_event' AND e.canonical AND e.committed AND e.locked_address = p.principal
       AND e.block_height <= at.block_height
     ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1
   ) l ON true
   LEFT JOIN blocks lb ON lb.index_block_hash = l.index_block_hash
   LEFT JOIN mempool_principal_stx mp ON mp.principal = p.principal${tokenMaps ? MAPS_JOIN : ''}`;

/**
 * With `tokenMaps`, each row of a read at the tip (null height) also carries the principal's v1 `/balances` token
 * maps now: the kept texts of `token_balance_maps` (migration 099), `{}` for a principal that never held a token (null
 * at a height: its texts are not read). v1 `/balances` at the tip reads both in one statement (one round trip and one
 * snapshot instead of two: ADR 0047). The row is a probe of the table's primary key per principal (a `LATERAL` kept
 * from being flattened by `OFFSET 0`: as a join, a generic plan may hash the whole table).
 */
const MAPS_COLUMNS = `, CASE WHEN p.height IS NULL THEN coalesce(m.ft, '{}') END AS maps_ft,
          CASE WHEN p.height IS NULL THEN coalesce(m.nft, '{}') END AS maps_nft`;
const MAPS_JOIN = `\n   LEFT JOIN LATERAL (SELECT ft, nft FROM token_balance_maps m WHERE m.principal = p.principal OFFSET 0) m ON true`;
const STX_BALANCES = statement(stxBalancesSql(false));
const STX_BALANCES_WITH_MAPS = statement(stxBalancesSql(true));

function toStxBalanceRead(row: Row | undefined): StxBalanceRead {
  const pending = { inbound: row?.pending_inbound ?? '0', outbound: row?.pending_outbound ?? '0' };
  if (!row || row.at_height === null) return { tip: row ? tipOf(row) : null, balance: null, pending };
  return {
    pending,
    tip: tipOf(row),
    ...(typeof row.maps_ft === 'string' ? { tokenMaps: { ft: row.maps_ft, nft: row.maps_nft! } } : {}),
    balance: {
      height: row.at_height,
      burn_block_height: row.at_burn_block_height ?? 0,
      balance: row.balance ?? '0',
      total_sent: row.total_sent ?? '0',
      total_received: row.total_received ?? '0',
      total_fees_sent: row.total_fees_sent ?? '0',
      total_miner_rewards_received: row.total_miner_rewards_received ?? '0',
      lock_tx_id: row.lock_tx_id ?? null,
      locked_amount: row.locked_amount ?? null,
      lock_height: row.lock_height ?? null,
      burnchain_lock_height: row.burnchain_lock_height ?? null,
      burnchain_unlock_height: row.burnchain_unlock_height ?? null,
      lock_contract: row.lock_contract ?? null,
    },
  };
}

/**
 * The balance reads of several (principal, height) pairs, in their order, by one statement; with `tokenMaps`, each
 * with the principal's v1 token maps now.
 */
export async function getStxBalances(
  db: Knex,
  reads: ReadonlyArray<{ principal: string; height: number | null }>,
  tokenMaps = false,
): Promise<StxBalanceRead[]> {
  const rows = await query<Row>(db, tokenMaps ? STX_BALANCES_WITH_MAPS : STX_BALANCES, [
    reads.map((r) => r.principal),
    reads.map((r) => r.height),
  ]);
  const byPosition = new Map(rows.map((r) => [Number(r.n), r]));
  return reads.map((_, i) => toStxBalanceRead(byPosition.get(i + 1)));
}

/** `null` balance when there is no canonical block yet; `pending`: the mempool now, whatever the height. */
export async function getStxBalance(db: Knex, principal: string, height: number | null): Promise<StxBalanceRead> {
  const [read] = await getStxBalances(db, [{ principal, height }]);
  return read!;
}

/**
 * The balance reads of one turn of the event loop, by one statement (`KeyedBatchLoader`): the api's most frequent
 * account read, so its round trip and pool checkout are paid once per batch. With `tokenMaps` (v1 `/balances`), each
 * read also carries the principal's token maps now (`StxBalanceRead.tokenMaps`).
 */
export class StxBalanceLoader {
  private readonly loader: KeyedBatchLoader<StxBalanceRead>;

  constructor(db: Knex, opts: { tokenMaps?: boolean } = {}) {
    this.loader = new KeyedBatchLoader(async (keys) => {
      const reads = keys.map((key) => {
        const at = key.indexOf('@');
        return { principal: key.slice(at + 1), height: at === 0 ? null : Number(key.slice(0, at)) };
      });
      const answers = await getStxBalances(db, reads, opts.tokenMaps ?? false);
      return new Map(keys.map((key, i) => [key, answers[i]!]));
    });
  }

  /** As `getStxBalance`. */
  async load(principal: string, height: number | null): Promise<StxBalanceRead> {
    return (await this.loader.load(`${height ?? ''}@${principal}`))!;
  }
}

/** The canonical block with this block hash or index block hash (`0x` hex), as its height; null when none. */
const BLOCK_HEIGHT_BY_HASH = statement(
  `SELECT block_height FROM blocks WHERE canonical AND (index_block_hash = $1 OR block_hash = $1) LIMIT 1`,
);

export async function canonicalHeightOf(db: Knex, hash: string): Promise<number | null> {
  const [row] = await query<{ block_height: number }>(db, BLOCK_HEIGHT_BY_HASH, [hash]);
  return row?.block_height ?? null;
}
