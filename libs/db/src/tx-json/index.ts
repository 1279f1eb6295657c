export * from './contract-abi';
export * from './mined-tx-json';
export * from './row-values';
export * from './kept-tx-list-json';
export * from './v3-transaction-summary';
export * from './principal-tx-json';
export * from './mempool-tx-json';
export * from './tx-summary-json';
