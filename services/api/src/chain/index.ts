export { chainRouter } from './chain-router';
export type { RouteContext } from './routes/context';
