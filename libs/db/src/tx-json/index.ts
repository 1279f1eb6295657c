export * from './contract-abi';
export * from './mined-tx-json';
export * from './row-values';
