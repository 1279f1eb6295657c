export * from './apply-block';
export * from './bitcoin-block-handler';
export * from './rollback-block';
