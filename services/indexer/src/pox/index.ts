export { addCanonicalPoxBlocks, removePoxBlocks, rewardSetInsert, type NodeRewardSet } from './pox-read-models';
