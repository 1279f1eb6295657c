export { contractsRouter } from './contracts-router';
