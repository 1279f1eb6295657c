export { addCanonicalChainBlocks, removeChainBlocks } from './chain-read-models';
