export { namesRouter } from './names-router';
export type { BnsNameInfoResponse } from './mappers/name-info';
export type { BnsPriceResponse } from './mappers/name-price';
export { namePrice, namespacePrice } from './mappers/name-price';
