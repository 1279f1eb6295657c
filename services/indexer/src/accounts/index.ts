export { addCanonicalAccountBlocks, removeAccountBlocks } from './account-read-models';
