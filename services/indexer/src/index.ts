export * from './env';
export * from './indexer';
export * from './record-applier';
export * from './apply-error';
export * from './indexer-gauges';
export * from './indexer-db';
export * from './progress-route';
export * from './runes/bitcoin-block-handler';
export { rebuildBnsCurrent } from './bns';
