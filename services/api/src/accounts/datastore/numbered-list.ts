import { listSeqAt, type PRINCIPAL_LIST_TABLES } from '@bda/db';

type ListTable = (typeof PRINCIPAL_LIST_TABLES)[number];

/** Which rows of a principal's list: those of one block height, or those up to a height (capped at the tip). */
export type ListRange = 'at' | 'until';

/**
 * The FROM items that bound a page of a principal's numbered list (migration 076) after `FROM_TIP`: `r.height` the
 * range's height (`heightParam`: the height, or null for the tip), and `n.hi`/`n.lo` the `seq` of the principal's
 * (`$1`) newest row in the range and newest row below it (0 when none), two index reads whatever the history's
 * length (`OFFSET 0`: read once, not again wherever the statement names them). The range's total is `n.hi - n.lo`.
 */
export function listBounds(table: ListTable, range: ListRange, heightParam: string): string {
  const height =
    range === 'at' ? `${heightParam}::integer` : `least(coalesce(${heightParam}::integer, tip.block_height), tip.block_height)`;
  return `LEFT JOIN LATERAL (SELECT ${height} AS height) r ON true
   CROSS JOIN LATERAL (
     SELECT ${listSeqAt(table, '$1', '<= r.height')} AS hi, ${range === 'at' ? listSeqAt(table, '$1', '< r.height') : '0'} AS lo
     OFFSET 0
   ) n`;
}

/**
 * The rows of one page (`$2` limit, `$3` offset, newest first) of the principal's list between `listBounds`' `n.lo`
 * and `n.hi`, as a FROM item aliased `alias`: one range of the `(principal, seq)` index, whatever the offset.
 */
export function listPage(table: ListTable, alias: string): string {
  return `(SELECT s.* FROM ${table} s
     WHERE s.principal = $1 AND s.seq <= n.hi - $3::integer AND s.seq > greatest(n.lo, n.hi - $3::integer - $2::integer)
     ORDER BY s.seq DESC) ${alias}`;
}
