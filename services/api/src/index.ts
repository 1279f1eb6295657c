export { ACCOUNT_LIST_READS } from './accounts/account-list-reads';
export * from './api-types';
export * from './build-app';
export * from './env';
export { NAME_LOOKUP_STATEMENTS } from './names';
export * from './openapi';
export * from './schema-validator';
