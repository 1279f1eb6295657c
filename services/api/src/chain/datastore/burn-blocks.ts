import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { query, rowsCarrying, statement } from '../../datastore/read-statement';
import { blockSelect, type DbBlockRow } from './blocks';

/** A burn block holding canonical Stacks blocks (`chain_burn_blocks`), with those blocks' hashes and times. */
export interface DbBurnBlockRow {
  burn_block_height: number;
  burn_block_hash: string;
  burn_block_time: string;
  first_block_height: number;
  last_block_height: number;
  tx_count: string;
  /** Block hashes, highest first. */
  stacks_blocks: string[] | null;
  /** How many there are. */
  block_count: string | null;
  /** Times (block time, or burn block time before Nakamoto) of the lowest and highest of them. */
  first_time: string | null;
  last_time: string | null;
}

const EFFECTIVE_TIME = 'coalesce(nullif(x.block_time, 0), x.burn_block_time)';

/**
 * Per burn block row `c`: its canonical Stacks blocks (`blocks_canonical_burn_height`; a handful, more under Nakamoto),
 * their hashes highest first, their number and the times of the lowest and highest. They are usually a height range,
 * but not always: mainnet's first Stacks block names a later burn block than its children.
 */
const BURN_BLOCK_PARTS = `LEFT JOIN LATERAL (
     SELECT array_agg(x.block_hash ORDER BY x.block_height DESC) AS stacks_blocks, count(*) AS block_count,
            (array_agg(${EFFECTIVE_TIME} ORDER BY x.block_height))[1] AS first_time,
            (array_agg(${EFFECTIVE_TIME} ORDER BY x.block_height DESC))[1] AS last_time
     FROM blocks x WHERE x.canonical AND x.burn_block_height = c.burn_block_height
   ) s ON true`;

const BURN_SELECT =
  'c.burn_block_height, c.burn_block_hash, c.burn_block_time, c.first_block_height, c.last_block_height, c.tx_count, s.stacks_blocks, s.block_count, s.first_time, s.last_time';

/**
 * A page of burn blocks, newest first: the ordinals from the highest (`n.total`) less `$2` down `$1` of them
 * (`chain_burn_blocks_ordinal`), so any offset is an index range. `total` is the number of such burn blocks.
 */
const BURN_BLOCK_PAGE = statement(
  `SELECT ${TIP_SELECT}, n.total, ${BURN_SELECT}
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (SELECT coalesce((SELECT max(ordinal) FROM chain_burn_blocks), 0)::int8 AS total) n
   LEFT JOIN chain_burn_blocks c ON c.ordinal BETWEEN n.total - $2::int8 - $1::int8 + 1 AND n.total - $2::int8
   ${BURN_BLOCK_PARTS}
   ORDER BY c.ordinal DESC`,
);

type BurnRow = TipColumns & { total?: string } & { burn_block_hash: string | null };

/** A burn block as its kept parts (migration 098): the answer's text but for the average time and the count. */
export interface DbBurnBlockJsonRow {
  /** `{…,"avg_block_time":` of the answer; null where the api renders the burn block from the blocks. */
  json_head: string | null;
  tx_count: string;
  block_count: number;
  first_time: string;
  last_time: string;
}

const KEPT_SELECT = 'c.burn_block_height, c.json_head, c.tx_count, c.block_count, c.first_time, c.last_time';

/**
 * `BURN_BLOCK_PAGE` from the kept parts of each burn block (migration 098): the ordinal range alone, no lateral
 * aggregate over the blocks of each row. The total is read once (`OFFSET 0`: inlined, it was probed three times).
 */
const BURN_BLOCK_JSON_PAGE = statement(
  `SELECT ${TIP_SELECT}, n.total, ${KEPT_SELECT}
   FROM ${FROM_TIP}
   CROSS JOIN LATERAL (SELECT coalesce((SELECT max(ordinal) FROM chain_burn_blocks), 0)::int8 AS total OFFSET 0) n
   LEFT JOIN chain_burn_blocks c ON c.ordinal BETWEEN n.total - $2::int8 - $1::int8 + 1 AND n.total - $2::int8
   ORDER BY c.ordinal DESC`,
);

/**
 * A page of burn blocks as their kept parts. When `complete` is false (a burn block without its kept text), the
 * page must be answered from `getBurnBlockPage`.
 */
export async function getBurnBlockJsonPage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; total: number; rows: DbBurnBlockJsonRow[]; complete: boolean }> {
  type Row = TipColumns & { total: string } & { burn_block_height: number | null } & DbBurnBlockJsonRow;
  const rows = await query<Row>(db, BURN_BLOCK_JSON_PAGE, [page.limit, page.offset]);
  const kept = rowsCarrying<Row>(rows, 'burn_block_height');
  return {
    tip: tipOf(rows[0]!),
    total: Number(rows[0]!.total),
    rows: kept,
    complete: kept.every((r) => r.json_head !== null),
  };
}

export async function getBurnBlockPage(
  db: Knex,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; total: number; rows: DbBurnBlockRow[] }> {
  const rows = await query<BurnRow>(db, BURN_BLOCK_PAGE, [page.limit, page.offset]);
  return {
    tip: tipOf(rows[0]!),
    total: Number(rows[0]!.total ?? 0),
    rows: rowsCarrying<DbBurnBlockRow>(rows, 'burn_block_hash'),
  };
}

/** How a burn block is named: its height, its hash, or the newest (`latest`). */
export type BurnBlockKey = { kind: 'height'; height: number } | { kind: 'hash'; hash: string } | { kind: 'latest' };

const BURN_WHERE: Record<BurnBlockKey['kind'], string> = {
  height: 'y.burn_block_height = $1::int',
  hash: 'y.burn_block_hash = $1::text',
  latest: '$1::text IS NULL',
};

function burnBlockText(kind: BurnBlockKey['kind']): string {
  return `SELECT ${TIP_SELECT}, ${BURN_SELECT}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT y.* FROM chain_burn_blocks y WHERE ${BURN_WHERE[kind]} ORDER BY y.burn_block_height DESC LIMIT 1
   ) c ON true
   ${BURN_BLOCK_PARTS}`;
}

const BURN_BLOCK = {
  height: statement(burnBlockText('height')),
  hash: statement(burnBlockText('hash')),
  latest: statement(burnBlockText('latest')),
};

function keyValue(key: BurnBlockKey): unknown {
  return key.kind === 'height' ? key.height : key.kind === 'hash' ? key.hash : null;
}

export async function getBurnBlock(db: Knex, key: BurnBlockKey): Promise<{ tip: DbChainTip | null; row: DbBurnBlockRow | null }> {
  const [row] = await query<BurnRow>(db, BURN_BLOCK[key.kind], [keyValue(key)]);
  return { tip: tipOf(row!), row: rowsCarrying<DbBurnBlockRow>([row!], 'burn_block_hash')[0] ?? null };
}

/**
 * A page of a burn block's canonical Stacks blocks, highest first (`blocks_canonical_burn_height`; `$2` limit, `$3`
 * offset, both bounded by the burn block's blocks), with their number; `found` null when the burn block holds none.
 */
function burnBlockBlocksText(kind: BurnBlockKey['kind']): string {
  return `SELECT ${TIP_SELECT}, c.burn_block_height AS found, n.total, ${blockSelect('b')}
   FROM ${FROM_TIP}
   LEFT JOIN LATERAL (
     SELECT y.* FROM chain_burn_blocks y WHERE ${BURN_WHERE[kind]} ORDER BY y.burn_block_height DESC LIMIT 1
   ) c ON true
   LEFT JOIN LATERAL (
     SELECT count(*) AS total FROM blocks x WHERE x.canonical AND x.burn_block_height = c.burn_block_height
   ) n ON true
   LEFT JOIN LATERAL (
     SELECT ${blockSelect('x')} FROM blocks x WHERE x.canonical AND x.burn_block_height = c.burn_block_height
     ORDER BY x.block_height DESC LIMIT $2 OFFSET $3
   ) b ON true
   ORDER BY b.block_height DESC`;
}

const BURN_BLOCK_BLOCKS = {
  height: statement(burnBlockBlocksText('height')),
  hash: statement(burnBlockBlocksText('hash')),
  latest: statement(burnBlockBlocksText('latest')),
};

export async function getBurnBlockBlocks(
  db: Knex,
  key: BurnBlockKey,
  page: { limit: number; offset: number },
): Promise<{ tip: DbChainTip | null; found: boolean; total: number; rows: DbBlockRow[] }> {
  type Row = TipColumns & { found: number | null; total: string | null };
  const rows = await query<Row>(db, BURN_BLOCK_BLOCKS[key.kind], [keyValue(key), page.limit, page.offset]);
  const first = rows[0]!;
  const total = Number(first.total ?? 0);
  return {
    tip: tipOf(first),
    found: first.found !== null,
    total,
    rows: rowsCarrying<DbBlockRow>(rows, 'index_block_hash'),
  };
}
