export { accountsRouter } from './accounts-router';
export type { AddressStxBalanceResponse, StxBalanceResponse } from './mappers/stx-balance';
