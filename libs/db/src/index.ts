export * from './create-db';
export * from './db-types';
export * from './migrations';
export * from './rune-types';
export * from './bns-types';
export * from './connection-failure';
export * from './tx-json';
export * from './bns-address-names';
