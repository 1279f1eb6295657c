export { addCanonicalBnsBlocks, applyBnsAttachments, applyBnsBlock, removeBnsBlocks } from './apply-bns';
export { bnsBlockChanges, type BnsBlockInput } from './bns-changes';
export { BNS_CONTRACT_IDS, BNS_NAMES_ASSET_IDS } from './bns-contract';
export { toStacksAddress } from './bitcoin-address';
export { hash160Hex, parseSubdomainRecords } from './zonefile-records';
export { GENESIS_FILES, importBnsGenesis, type GenesisImportCounts } from './genesis-import';
