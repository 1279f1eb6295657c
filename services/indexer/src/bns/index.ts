export { addCanonicalBnsBlocks, applyBnsAttachments, applyBnsBlock, removeBnsBlocks } from './apply-bns';
export { ADDRESS_NAMES_AT_HEIGHT_SQL, rebuildBnsCurrent, refreshAddressNamesAtTip } from './refresh-bns-current';
