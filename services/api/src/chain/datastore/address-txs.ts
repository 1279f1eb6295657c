import type { Knex } from 'knex';
import type { DbChainTip } from '@bda/db';
import { FROM_TIP, TIP_SELECT, tipOf, type TipColumns } from '../../datastore/chain-tip';
import { ABI_SELECT, abisOf, calledContract, deployAbi, firstCallOf, type ContractAbis } from './contract-abis';
import { query, statement, type Statement } from '../../datastore/read-statement';
import { txParents, txRowSelect, txRowsOf, txSelect, type DbTxRow } from './txs';

/**
 * Which part of an address's history: everything, one block height, or up to and including a block given by its
 * height or by its block hash or index block hash (`0x` lower-case hex).
 */
export type HeightRange =
  { kind: 'all' } | { kind: 'at'; height: number } | { kind: 'until'; height: number } | { kind: 'untilHash'; hash: string };

const COUNTER = 'coalesce((SELECT n.tx_count FROM address_tx_counts n WHERE n.address = $1), 0)';
const UNTIL_TOTAL = `CASE WHEN r.height >= coalesce(tip.block_height, 0) THEN ${COUNTER}
    ELSE greatest(0, ${COUNTER} - (SELECT count(*) FROM address_txs x WHERE x.address = $1 AND x.block_height > r.height))
  END`;

/**
 * Per kind of range: the upper bound `r.height` (`$4`), the number of the address's transactions in the range, and
 * the condition on the key page. Everything: the maintained counter. One height: a count over that height's slice of
 * the primary key (the address's transactions in one block). Up to a height: the counter less a count over the
 * primary key above that height, the part newer than the requested point (nothing to count from the tip up).
 */
const RANGES: Record<HeightRange['kind'], { bound?: string; total: string; keys: string }> = {
  all: { total: COUNTER, keys: '' },
  at: {
    total: '(SELECT count(*) FROM address_txs x WHERE x.address = $1 AND x.block_height = $4)',
    keys: 'AND block_height = $4',
  },
  until: {
    bound: 'CROSS JOIN LATERAL (SELECT $4::int AS height) r',
    total: UNTIL_TOTAL,
    keys: 'AND block_height <= r.height',
  },
  untilHash: {
    // The block is looked up as `/extended/v2/blocks/{hash}` does; no row when no canonical block has the hash.
    bound: `LEFT JOIN LATERAL (
       SELECT x.block_height AS height FROM blocks x
       WHERE x.canonical AND (x.index_block_hash = $4 OR x.block_hash = $4)
       ORDER BY x.block_height DESC LIMIT 1
     ) r ON true`,
    total: UNTIL_TOTAL,
    keys: 'AND block_height <= r.height',
  },
};

/**
 * `/extended/v1/address/{principal}/transactions` in one statement (`$1` address, `$2` limit, `$3` offset, `$4` the
 * range's height or hash): the tip, the total, one page of the history with each transaction's row, and the ABIs
 * of the contracts the page calls.
 *
 * The page is a backward range scan of the `address_txs` primary key (address, block_height, microblock_sequence,
 * tx_index), newest first. The offset is applied to the key columns alone (`k`), which the primary key holds:
 * PostgreSQL skips the first `offset` entries in the index (an index-only scan once vacuum has marked the pages
 * all-visible) and reads table rows for the page only (`a`, then `txs` by primary key). Selecting every column in the
 * one scan read a table row for every skipped entry too: at offset 50,000 of one address, about 95 ms of CPU a
 * request (`bench/api/chain-reads.ts`). The page is read only when the offset lies inside the range (`$3 < total`),
 * so an offset past the end costs no scan. Rows whose transaction is no longer canonical are left out.
 *
 * Each key's rows are read in a LATERAL subquery that OFFSET 0 keeps from being flattened: the generic plan guesses
 * an unknown LIMIT at a tenth of the address's rows, and with the join flattened it hash-joined that many keys
 * against a sequential scan of `address_txs` (`address-transactions.test.ts`); per key, it is a primary key lookup.
 */
function historyText(kind: HeightRange['kind']): string {
  const range = RANGES[kind];
  return `SELECT ${TIP_SELECT}, ${range.bound ? 'r.height' : 'NULL::int'} AS until_height, c.total,
          ${txRowSelect('h')}, ${ABI_SELECT}
   FROM ${FROM_TIP}
   ${range.bound ?? ''}
   CROSS JOIN LATERAL (SELECT ${range.total} AS total OFFSET 0) c
   LEFT JOIN LATERAL (
     SELECT page.*, ${firstCallOf('page')} AS first_call
     FROM (
       SELECT t.*, row_number() OVER (ORDER BY k.block_height DESC, k.microblock_sequence DESC, k.tx_index DESC) AS pos
       FROM (
         SELECT block_height, microblock_sequence, tx_index FROM address_txs
         WHERE address = $1 ${range.keys}
         ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC
         LIMIT $2 OFFSET $3
       ) k
       CROSS JOIN LATERAL (
         SELECT ${txSelect('t')}, ${calledContract('t')} AS called
         FROM address_txs a
         JOIN txs t ON t.tx_id = a.tx_id AND t.index_block_hash = a.index_block_hash AND t.canonical
         ${txParents('t')}
         WHERE a.address = $1 AND a.block_height = k.block_height AND a.microblock_sequence = k.microblock_sequence
           AND a.tx_index = k.tx_index
         OFFSET 0
       ) t
       WHERE $3 < c.total
     ) page
   ) h ON true
   ${deployAbi('h.first_call')}
   ORDER BY h.pos`;
}

/** The statement of each kind of range, built at start-up. */
export const ADDRESS_HISTORY: Record<HeightRange['kind'], Statement> = {
  all: statement(historyText('all')),
  at: statement(historyText('at')),
  until: statement(historyText('until')),
  untilHash: statement(historyText('untilHash')),
};

export interface AddressHistory {
  tip: DbChainTip | null;
  /** The address's transactions within the range. */
  total: number;
  /** The page, newest first. */
  rows: DbTxRow[];
  abis: ContractAbis;
  /** For `untilHash`: the height of the block with that hash, or null when no canonical block has it. */
  untilHeight: number | null;
}

/** One page of an address's history within `range`, with the tip, the total and the ABIs the page needs. */
export async function getAddressHistory(
  db: Knex,
  address: string,
  page: { limit: number; offset: number },
  range: HeightRange = { kind: 'all' },
): Promise<AddressHistory> {
  const values: unknown[] = [address, page.limit, page.offset];
  if (range.kind === 'at' || range.kind === 'until') values.push(range.height);
  if (range.kind === 'untilHash') values.push(range.hash);
  type Row = TipColumns & {
    until_height: number | null;
    total: number | string;
    tx_id: string | null;
    abi_contract_id: string | null;
    contract_abi: unknown;
  };
  const rows = await query<Row>(db, ADDRESS_HISTORY[range.kind], values);
  const first = rows[0]!;
  return {
    tip: tipOf(first),
    total: Number(first.total),
    rows: txRowsOf(rows),
    abis: abisOf(rows),
    untilHeight: first.until_height,
  };
}
