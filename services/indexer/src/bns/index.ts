export { addCanonicalBnsBlocks, applyBnsAttachments, applyBnsBlock, removeBnsBlocks } from './apply-bns';
