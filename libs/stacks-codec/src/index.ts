export { DecodeError } from './decode-error';
export {
  type StacksNetworkName,
  StacksAddressVersion,
  MAX_CONTRACT_NAME_LENGTH,
  isValidStacksAddress,
  isValidContractName,
  isValidPrincipal,
  isContractPrincipal,
  principalNetwork,
  decodeStacksAddress,
  encodeStacksAddress,
  addressVersionNetwork,
} from './principal';
export {
  type ClarityNode,
  type DecodedClarityValue,
  ClarityTypePrefix,
  isValidClarityName,
  parseClarityValue,
  clarityRepr,
  clarityTypeSignature,
  decodeClarityValue,
  decodeClarityValueList,
} from './clarity-value';
export {
  type TxTypeId,
  type AnchorModeName,
  type PostConditionModeName,
  type AuthTypeName,
  type TenureChangeCauseName,
  type PostConditionPrincipal,
  type FungibleConditionCode,
  type NonFungibleConditionCode,
  type PoxConditionCode,
  type PostConditionAsset,
  type PostCondition,
  type TokenTransferPayload,
  type SmartContractPayload,
  type ContractCallPayload,
  type CoinbasePayload,
  type MicroblockHeader,
  type PoisonMicroblockPayload,
  type TenureChangePayload,
  type TransactionPayload,
  type BurnchainOrigin,
  type DecodedTransaction,
  TransactionVersion,
  ChainId,
  AddressHashMode,
  addressVersionForHashMode,
  txIdFromBytes,
  decodeTransaction,
} from './decode-transaction';
export { type ContractAbi, type NamedFunctionArg, normalizeContractAbi, describeContractCall } from './contract-abi';
export { type PoxAddress, PoxAddressVersion, parsePoxAddress } from './pox-address';
export {
  type NodeEvent,
  type BurnchainNodeTx,
  type SynthesizeBurnchainTxInput,
  synthesizeBurnchainTransaction,
} from './synthesize-burnchain-tx';
export { payloadContractId, payloadFields } from './payload-fields';
