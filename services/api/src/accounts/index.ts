export { accountsRouter } from './accounts-router';
