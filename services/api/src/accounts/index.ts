export { accountRoutes } from './account-routes';
export { accountLookupRoutes } from './routes/account-lookup-routes';
