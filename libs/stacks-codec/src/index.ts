export * from './decode-error';
export * from './principal';
export * from './clarity-value';
export * from './decode-transaction';
export * from './contract-abi';
export * from './pox-address';
export * from './synthesize-burnchain-tx';
