export { addCanonicalBnsBlocks, applyBnsAttachments, applyBnsBlock, removeBnsBlocks } from './apply-bns';
export { rebuildBnsCurrent } from './refresh-bns-current';
