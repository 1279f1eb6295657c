export { poxRoutes } from './pox-routes';
