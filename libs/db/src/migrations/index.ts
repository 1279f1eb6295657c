import type { Knex } from 'knex';
import * as m001 from './001-indexer-bookkeeping';
import * as m002 from './002-blocks';
import * as m003 from './003-burn-blocks';
import * as m004 from './004-transactions';
import * as m005 from './005-events';
import * as m006 from './006-microblocks';
import * as m007 from './007-mempool';
import * as m008 from './008-miner-rewards';
import * as m009 from './009-attachments';
import * as m010 from './010-address-transactions';
import * as m011 from './011-rune-blocks';
import * as m012 from './012-runes';
import * as m013 from './013-rune-outputs';
import * as m014 from './014-rune-taproot-outputs';
import * as m015 from './015-rune-activity';
import * as m016 from './016-rune-balances';
import * as m017 from './017-contract-deploys';
import * as m018 from './018-block-pox-unlock-heights';
import * as m019 from './019-mempool-filters';
import * as m020 from './020-microblock-lookups';
import * as m021 from './021-bytewise-text';
import * as m022 from './022-position-received-at';
import * as m023 from './023-sponsor-nonce';
import * as m024 from './024-stx-address-history';
import * as m025 from './025-rosetta-stx-lock-lookups';
import * as m026 from './026-rosetta-nonce-lookup';
import * as m030 from './030-bns-namespaces';
import * as m031 from './031-bns-names';
import * as m032 from './032-bns-zonefiles';
import * as m033 from './033-bns-subdomains';
import * as m040 from './040-stx-balance-changes';
import * as m041 from './041-token-balance-changes';
import * as m042 from './042-token-balances';
import * as m043 from './043-nft-owner-changes';
import * as m044 from './044-nonce-lookups';
import * as m045 from './045-account-event-lookups';
import * as m046 from './046-principal-positions';
import * as m047 from './047-token-lookups';
import * as m050 from './050-chain-block-lookups';
import * as m051 from './051-chain-read-models';
import * as m052 from './052-mempool-receipt-height';
import * as m053 from './053-block-tenure-lookups';
import * as m054 from './054-microblock-tx-lookups';
import * as m060 from './060-burnchain-reward-read-models';
import * as m065 from './065-pox-events';
import * as m066 from './066-pox-cycles';
import * as m070 from './070-principal-activity';
import * as m071 from './071-stx-supply';
import * as m075 from './075-bns-current';
import * as m076 from './076-principal-lists';
import * as m077 from './077-principal-txs-seq';
import * as m080 from './080-chain-tx-positions';
import * as m081 from './081-burnchain-positions';
import * as m082 from './082-pox-event-positions';
import * as m085 from './085-mempool-principal-stx';
import * as m086 from './086-mempool-pending-count';
import * as m087 from './087-address-txs-seq';
import * as m088 from './088-principal-events';
import * as m089 from './089-microblock-order';
import * as m090 from './090-mempool-principal-counts';
import * as m091 from './091-token-balance-counts';
import * as m092 from './092-token-balances-by-asset';
import * as m093 from './093-block-tx-ids';
import * as m094 from './094-bns-address-names';
import * as m095 from './095-tx-list-json';
import * as m097 from './097-block-json';
import * as m098 from './098-burn-block-json';
import * as m099 from './099-token-balance-maps';
import * as m101 from './101-event-json';
import * as m102 from './102-principal-tx-json';
import * as m104 from './104-token-balance-json';
import * as m105 from './105-mempool-tx-json';
import * as m106 from './106-mempool-receipt-secs';
import * as m107 from './107-v1-block-json';
import * as m108 from './108-tx-summary-json';
import * as m109 from './109-tx-list-json-hash';
import * as m110 from './110-mempool-v3-summary-json';
import * as m111 from './111-principal-tx-json-pair-hash';
import * as m112 from './112-token-balance-first-pages';
import * as m113 from './113-data-epoch';

export { principalActivityInsertSql } from './070-principal-activity';
export {
  INBOUND_KINDS,
  listSeqAt,
  numberedListFillSql,
  numberedListNumberSql,
  type NumberedList,
  PRINCIPAL_LIST_TABLES,
  principalListAddSql,
  principalListFillSql,
  principalListRemoveSql,
} from './076-principal-lists';
export { PRINCIPAL_TXS_LIST } from './077-principal-txs-seq';
export { ADDRESS_TXS_LIST, addressTxsRenumberSql } from './087-address-txs-seq';
export { EVENT_TYPE_GROUP_IDS, principalEventRowsSql, principalEventsRenumberSql } from './088-principal-events';
export { ftFirstPagesSql, KEPT_FT_PAGE_LIMIT } from './112-token-balance-first-pages';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration in order; add new ones at the end. */
export const MIGRATIONS: Array<[string, Migration]> = [
  ['001-indexer-bookkeeping', m001],
  ['002-blocks', m002],
  ['003-burn-blocks', m003],
  ['004-transactions', m004],
  ['005-events', m005],
  ['006-microblocks', m006],
  ['007-mempool', m007],
  ['008-miner-rewards', m008],
  ['009-attachments', m009],
  ['010-address-transactions', m010],
  ['011-rune-blocks', m011],
  ['012-runes', m012],
  ['013-rune-outputs', m013],
  ['014-rune-taproot-outputs', m014],
  ['015-rune-activity', m015],
  ['016-rune-balances', m016],
  ['017-contract-deploys', m017],
  ['018-block-pox-unlock-heights', m018],
  ['019-mempool-filters', m019],
  ['020-microblock-lookups', m020],
  ['021-bytewise-text', m021],
  ['022-position-received-at', m022],
  ['023-sponsor-nonce', m023],
  ['024-stx-address-history', m024],
  ['025-rosetta-stx-lock-lookups', m025],
  ['026-rosetta-nonce-lookup', m026],
  ['030-bns-namespaces', m030],
  ['031-bns-names', m031],
  ['032-bns-zonefiles', m032],
  ['033-bns-subdomains', m033],
  ['040-stx-balance-changes', m040],
  ['041-token-balance-changes', m041],
  ['042-token-balances', m042],
  ['043-nft-owner-changes', m043],
  ['044-nonce-lookups', m044],
  ['045-account-event-lookups', m045],
  ['046-principal-positions', m046],
  ['047-token-lookups', m047],
  ['050-chain-block-lookups', m050],
  ['051-chain-read-models', m051],
  ['052-mempool-receipt-height', m052],
  ['053-block-tenure-lookups', m053],
  ['054-microblock-tx-lookups', m054],
  ['060-burnchain-reward-read-models', m060],
  ['065-pox-events', m065],
  ['066-pox-cycles', m066],
  ['070-principal-activity', m070],
  ['071-stx-supply', m071],
  ['075-bns-current', m075],
  ['076-principal-lists', m076],
  ['077-principal-txs-seq', m077],
  ['080-chain-tx-positions', m080],
  ['081-burnchain-positions', m081],
  ['082-pox-event-positions', m082],
  ['085-mempool-principal-stx', m085],
  ['086-mempool-pending-count', m086],
  ['087-address-txs-seq', m087],
  ['088-principal-events', m088],
  ['089-microblock-order', m089],
  ['090-mempool-principal-counts', m090],
  ['091-token-balance-counts', m091],
  ['092-token-balances-by-asset', m092],
  ['093-block-tx-ids', m093],
  ['094-bns-address-names', m094],
  ['095-tx-list-json', m095],
  ['097-block-json', m097],
  ['098-burn-block-json', m098],
  ['099-token-balance-maps', m099],
  ['101-event-json', m101],
  ['102-principal-tx-json', m102],
  ['104-token-balance-json', m104],
  ['105-mempool-tx-json', m105],
  ['106-mempool-receipt-secs', m106],
  ['107-v1-block-json', m107],
  ['108-tx-summary-json', m108],
  ['109-tx-list-json-hash', m109],
  ['110-mempool-v3-summary-json', m110],
  ['111-principal-tx-json-pair-hash', m111],
  ['112-token-balance-first-pages', m112],
  ['113-data-epoch', m113],
];

/** A knex migration source over the modules above (no file globbing, works under tsx and bundlers). */
export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest({ migrationSource, tableName: 'knex_migrations_indexer' });
}

export async function migrateRollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource, tableName: 'knex_migrations_indexer' }, true);
}
