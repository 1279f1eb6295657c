/**
 * The reference API's v3 `TransactionSummary`: one definition, in `@bda/db` (`libs/db/src/tx-json/`), which the
 * indexer's kept v3 history items (`principal_tx_json`, ADR 0039) are rendered with too.
 */
export {
  ANCHORED_SEQUENCE,
  TX_INCLUDE_FIELDS,
  memoView,
  summaryBase,
  toTransactionSummaryResponse,
  typePart,
  type DbTxSummaryFields,
  type MinedSummaryBase,
  type TransactionSummaryResponse,
  type TxIncludeField,
  type TypePart,
} from '@bda/db';
