export { contractRoutes } from './routes/contracts';
