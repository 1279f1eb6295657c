export { accountsRouter } from './accounts-router';
export { accountLookupRoutes } from './routes/account-lookup-routes';
