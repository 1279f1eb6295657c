export { searchRoutes } from './routes/search';
