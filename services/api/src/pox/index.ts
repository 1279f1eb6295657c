export { poxRouter } from './pox-router';
