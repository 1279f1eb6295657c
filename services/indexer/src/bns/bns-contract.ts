/** The BNS contract of Stacks 2.x (boot contract `bns`) on mainnet and testnet. */
export const BNS_CONTRACT_IDS: readonly string[] = ['SP000000000000000000002Q6VF78.bns', 'ST000000000000000000002AMW42H.bns'];

/** Its `names` NFT: who holds a name. */
export const BNS_NAMES_ASSET_IDS: readonly string[] = BNS_CONTRACT_IDS.map((id) => `${id}::names`);

const CONTRACT_SET: ReadonlySet<string> = new Set(BNS_CONTRACT_IDS);
const ASSET_SET: ReadonlySet<string> = new Set(BNS_NAMES_ASSET_IDS);

export const isBnsContract = (id: string | null | undefined): boolean => id != null && CONTRACT_SET.has(id);
export const isBnsNamesAsset = (id: string | null | undefined): boolean => id != null && ASSET_SET.has(id);

/** The name operations the contract prints (`update-zonefile-and-props`), each carrying a zonefile hash. */
export const NAME_OPS: ReadonlySet<string> = new Set([
  'name-register',
  'name-update',
  'name-transfer',
  'name-renewal',
  'name-revoke',
  'name-import',
]);
