export { addCanonicalChainBlocks, removeChainBlocks } from './chain-read-models';
export { applyBurnchainRewards } from './burnchain-rewards';
export { refreshBurnchainPositions } from './burnchain-positions';
