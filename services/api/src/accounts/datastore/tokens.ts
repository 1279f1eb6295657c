import type { Knex } from 'knex';
import { query, statement } from '../../datastore/read-statement';
import {
  ABI_SELECT,
  abisOf,
  calledContract,
  deployAbi,
  firstCallOf,
  type ContractAbis,
} from '../../chain/datastore/contract-abis';
import { txParents, txRowSelect, txSelect, type DbTxRow } from '../../chain/datastore/txs';

/** An NFT event or holding of a token list, with its transaction (`DbTxRow`) when the list asks for it. */
interface DbNftItem {
  p_asset_identifier: string;
  p_value_hex: string;
  p_block_height: number;
  p_event_index: number;
  p_type: string;
  p_sender: string | null;
  p_recipient: string | null;
  p_tx_id: string;
}

export type DbNftItemWithTx = DbNftItem & Partial<DbTxRow>;

const NFT_TYPES = `('nft_transfer_event', 'nft_mint_event', 'nft_burn_event')`;

/**
 * A page (`page`: rows with `p_*` columns, `p_tx_id` and `p_index_block_hash`, ordered by `order`) with the number of
 * rows (`total`), each row's canonical transaction (by primary key) and the ABIs of the contracts the page calls.
 */
function pageWithTxs(total: string, page: string, order: string): string {
  return `SELECT c.total, ${txRowSelect('h')}, h.p_asset_identifier, h.p_value_hex, h.p_block_height, h.p_event_index,
          h.p_type, h.p_sender, h.p_recipient, h.p_tx_id, ${ABI_SELECT}
   FROM (${total}) c
   LEFT JOIN LATERAL (
     SELECT q.*, ${firstCallOf('q')} AS first_call
     FROM (
       SELECT pg.*, t.*, row_number() OVER (ORDER BY ${order}) AS pos
       FROM (${page}) pg
       LEFT JOIN LATERAL (
         SELECT ${txSelect('t')}, ${calledContract('t')} AS called
         FROM txs t
         ${txParents('t')}
         WHERE t.tx_id = pg.p_tx_id AND t.index_block_hash = pg.p_index_block_hash AND t.canonical
         OFFSET 0
       ) t ON true
     ) q
   ) h ON true
   ${deployAbi('h.first_call')}
   ORDER BY h.pos`;
}

/** The rows of a page a NFT statement read, and their number. */
async function nftPage(
  db: Knex,
  s: ReturnType<typeof statement>,
  values: unknown[],
): Promise<{ total: number; rows: DbNftItemWithTx[]; abis: ContractAbis }> {
  type Row = { total: string; p_tx_id: string | null; abi_contract_id: string | null; contract_abi: unknown };
  const rows = await query<Row>(db, s, values);
  const items = rows.filter((r) => r.p_tx_id !== null) as unknown as DbNftItemWithTx[];
  return { total: Number(rows[0]?.total ?? 0), rows: items, abis: abisOf(rows) };
}

/** The NFT values a principal (`$1`) holds now, of the classes `$4` (all when null), with the change that left them. */
const HELD = `FROM nft_owner_changes c
   WHERE c.owner = $1 AND ($4::text[] IS NULL OR c.asset_identifier = ANY ($4::text[])) AND NOT EXISTS (
     SELECT 1 FROM nft_owner_changes n
     WHERE n.asset_identifier = c.asset_identifier AND n.value_hex = c.value_hex
       AND (n.block_height, n.event_index) > (c.block_height, c.event_index)
   )`;

/**
 * `/extended/v1/tokens/nft/holdings` (`$1` principal, `$2` limit, `$3` offset, `$4` asset identifiers or null): the
 * values it holds, the newest acquired first, with the transaction that made it the owner.
 */
const HOLDINGS = statement(
  pageWithTxs(
    `SELECT count(*) AS total ${HELD}`,
    `SELECT c.asset_identifier AS p_asset_identifier, c.value_hex AS p_value_hex, c.block_height AS p_block_height,
            c.event_index AS p_event_index, NULL::text AS p_type, NULL::text AS p_sender, c.owner AS p_recipient,
            c.tx_id AS p_tx_id, c.index_block_hash AS p_index_block_hash
     ${HELD}
     ORDER BY c.block_height DESC, c.event_index DESC LIMIT $2 OFFSET $3`,
    'pg.p_block_height DESC, pg.p_event_index DESC',
  ),
);

export function getNftHoldings(db: Knex, principal: string, page: { limit: number; offset: number }, assets: string[] | null) {
  return nftPage(db, HOLDINGS, [principal, page.limit, page.offset, assets]);
}

const EVENT_COLUMNS = `e.asset_identifier AS p_asset_identifier, e.value_hex AS p_value_hex, e.block_height AS p_block_height,
  e.event_index AS p_event_index, e.type AS p_type, e.sender AS p_sender, e.recipient AS p_recipient, e.tx_id AS p_tx_id,
  e.index_block_hash AS p_index_block_hash`;

const VALUE_EVENTS = `FROM events e WHERE e.asset_identifier = $1 AND e.value_hex = $2 AND e.canonical AND e.committed
   AND e.type IN ${NFT_TYPES}`;

/** `/extended/v1/tokens/nft/history` (`$1` class, `$2` value hex, `$3` limit, `$4` offset): newest first. */
const HISTORY = statement(
  pageWithTxs(
    `SELECT count(*) AS total ${VALUE_EVENTS}`,
    `SELECT ${EVENT_COLUMNS} ${VALUE_EVENTS} ORDER BY e.block_height DESC, e.event_index DESC LIMIT $3 OFFSET $4`,
    'pg.p_block_height DESC, pg.p_event_index DESC',
  ),
);

export function getNftHistory(db: Knex, asset: string, valueHex: string, page: { limit: number; offset: number }) {
  return nftPage(db, HISTORY, [asset, valueHex, page.limit, page.offset]);
}

const MINT_EVENTS = `FROM events e WHERE e.asset_identifier = $1 AND e.canonical AND e.committed AND e.type = 'nft_mint_event'`;

/** `/extended/v1/tokens/nft/mints` (`$1` class, `$2` limit, `$3` offset): newest first. */
const MINTS = statement(
  pageWithTxs(
    `SELECT count(*) AS total ${MINT_EVENTS}`,
    `SELECT ${EVENT_COLUMNS} ${MINT_EVENTS} ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2 OFFSET $3`,
    'pg.p_block_height DESC, pg.p_event_index DESC',
  ),
);

export function getNftMints(db: Knex, asset: string, page: { limit: number; offset: number }) {
  return nftPage(db, MINTS, [asset, page.limit, page.offset]);
}

/** A holder of a fungible token (or of STX), amount as a decimal string. */
export interface DbTokenHolder {
  principal: string;
  balance: string;
}

function holdersText(source: string): string {
  return `WITH cur AS MATERIALIZED (${source})
   SELECT t.total, t.supply::text AS supply, p.principal, p.balance::text AS balance
   FROM (SELECT count(*) AS total, coalesce(sum(balance), 0) AS supply FROM cur) t
   LEFT JOIN LATERAL (SELECT principal, balance FROM cur ORDER BY balance DESC, principal LIMIT $2 OFFSET $3) p ON true
   ORDER BY p.balance DESC, p.principal`;
}

/** `/extended/v1/tokens/ft/{token}/holders` (`$1` token, `$2` limit, `$3` offset): every holder, largest first. */
const FT_HOLDERS = statement(
  holdersText(`SELECT principal, balance FROM token_balances WHERE kind = 'ft' AND asset_identifier = $1`),
);

/** The same for STX (`$1` unused): each principal's newest balance row. */
const STX_HOLDERS = statement(
  holdersText(`SELECT DISTINCT ON (principal) principal, balance FROM stx_balance_changes WHERE $1::text = 'stx'
     ORDER BY principal, block_height DESC`),
);

export async function getTokenHolders(
  db: Knex,
  token: string,
  page: { limit: number; offset: number },
): Promise<{ total: number; supply: string; holders: DbTokenHolder[] }> {
  type Row = { total: string; supply: string; principal: string | null; balance: string | null };
  const rows = await query<Row>(db, token === 'stx' ? STX_HOLDERS : FT_HOLDERS, [token, page.limit, page.offset]);
  const first = rows[0]!;
  return {
    total: Number(first.total),
    supply: first.supply,
    holders: rows.filter((r) => r.principal !== null).map((r) => ({ principal: r.principal!, balance: r.balance! })),
  };
}
