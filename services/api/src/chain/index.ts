export { chainRouter, chainRoutes } from './chain-router';
export type { RouteContext } from './routes/context';
