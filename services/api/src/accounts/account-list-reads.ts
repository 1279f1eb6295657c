import { getAddressHistory } from '../chain/datastore/address-txs';
import { getAddressAssets } from './datastore/address-assets';
import { getAddressTransactions } from './datastore/address-transactions';
import { getInboundStxTransfers } from './datastore/stx-inbound';
import { getTxsWithTransfers } from './datastore/txs-with-transfers';
import { getPrincipalTransactionSummaries } from './datastore/v3-transactions';

/**
 * The reads behind a principal's lists (v1, v2 and v3 transactions, v1 transactions with transfers, assets, inbound
 * STX), as the routes call them: for `bench/accounts`, which prints their plans as the api runs them.
 */
export const ACCOUNT_LIST_READS = {
  getAddressHistory,
  getAddressTransactions,
  getPrincipalTransactionSummaries,
  getTxsWithTransfers,
  getAddressAssets,
  getInboundStxTransfers,
};
