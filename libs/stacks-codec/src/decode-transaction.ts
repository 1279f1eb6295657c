import { createHash, getHashes } from 'node:crypto';
import { sha512_256 } from '@noble/hashes/sha2';
import { ByteReader, bytesToHex, hexToBytes } from './byte-reader';
import {
  type DecodedClarityValue,
  readAddress,
  readClarityName,
  readClarityValue,
  readContractName,
  readDecodedClarityValue,
  readPrincipalValue,
  principalString,
} from './clarity-value';
import { DecodeError } from './decode-error';
import { StacksAddressVersion, encodeStacksAddress } from './principal';

/** Transaction version byte: 0x00 mainnet, 0x80 testnet. */
export const TransactionVersion = { Mainnet: 0x00, Testnet: 0x80 } as const;
export const ChainId = { Mainnet: 0x00000001, Testnet: 0x80000000 } as const;

export type TxTypeId = 'token_transfer' | 'smart_contract' | 'contract_call' | 'poison_microblock' | 'coinbase' | 'tenure_change';
export type AnchorModeName = 'on_chain_only' | 'off_chain_only' | 'any';
/** `originator` is a newer mode (`@stacks/transactions` 7.6); nodes of today send `allow` or `deny`. */
export type PostConditionModeName = 'allow' | 'deny' | 'originator';
export type AuthTypeName = 'standard' | 'sponsored';
export type TenureChangeCauseName =
  | 'block_found'
  | 'extended'
  | 'extended_runtime'
  | 'extended_read_count'
  | 'extended_read_length'
  | 'extended_write_count'
  | 'extended_write_length';

/** Spending-condition hash modes. 0x00 and 0x02 are single-signature, the others multi-signature. */
export const AddressHashMode = {
  P2PKH: 0x00,
  P2SH: 0x01,
  P2WPKH: 0x02,
  P2WSH: 0x03,
  P2SHNonSequential: 0x05,
  P2WSHNonSequential: 0x07,
} as const;

// ---- post conditions, in the reference API's JSON shape (stored and served as is) ----

export type PostConditionPrincipal =
  | { type_id: 'principal_origin' }
  | { type_id: 'principal_standard'; address: string }
  | { type_id: 'principal_contract'; address: string; contract_name: string };

export type FungibleConditionCode =
  'sent_equal_to' | 'sent_greater_than' | 'sent_greater_than_or_equal_to' | 'sent_less_than' | 'sent_less_than_or_equal_to';
export type NonFungibleConditionCode = 'sent' | 'not_sent' | 'maybe_sent';
/**
 * PoX condition codes 0x30/0x31/0x32 by the reference API's names (`@stacks/transactions` calls the same codes
 * `will-not-perform` / `may-perform` / `will-perform`; clients of the reference switch on these).
 */
export type PoxConditionCode = 'not_performed' | 'maybe_performed' | 'performed';

export interface PostConditionAsset {
  contract_address: string;
  contract_name: string;
  asset_name: string;
}

export type PostCondition =
  | { type: 'stx'; principal: PostConditionPrincipal; condition_code: FungibleConditionCode; amount: string }
  | {
      type: 'fungible';
      principal: PostConditionPrincipal;
      condition_code: FungibleConditionCode;
      amount: string;
      asset: PostConditionAsset;
    }
  | {
      type: 'non_fungible';
      principal: PostConditionPrincipal;
      condition_code: NonFungibleConditionCode;
      asset: PostConditionAsset;
      asset_value: { hex: string; repr: string };
    }
  /** Newer post-condition kinds known to `@stacks/transactions` 7.6 (not produced by current nodes). */
  | { type: 'staking'; principal: PostConditionPrincipal; condition_code: FungibleConditionCode; amount: string }
  | { type: 'pox'; principal: PostConditionPrincipal; condition_code: PoxConditionCode };

// ---- payloads ----

export interface TokenTransferPayload {
  typeId: 'token_transfer';
  /** `SP…` or `SP….contract`. */
  recipient: string;
  amount: bigint;
  /** `0x` + the memo bytes (34 bytes, zero padded, for a decoded transaction). */
  memoHex: string;
}

export interface SmartContractPayload {
  typeId: 'smart_contract';
  /** `<sender address>.<name>`. */
  contractId: string;
  contractName: string;
  sourceCode: string;
  /** Set for versioned smart contracts (payload 0x06); `null` for the original payload (0x01). */
  clarityVersion: number | null;
}

export interface ContractCallPayload {
  typeId: 'contract_call';
  contractId: string;
  contractAddress: string;
  contractName: string;
  functionName: string;
  functionArgs: DecodedClarityValue[];
  /** `0x` + u32 argument count + serialized arguments (the reference API's `function_args_buffer`). */
  functionArgsHex: string;
}

export interface CoinbasePayload {
  typeId: 'coinbase';
  /** Which wire payload this came from (0x04, 0x05, 0x08). */
  variant: 'coinbase' | 'coinbase_to_alt_recipient' | 'nakamoto_coinbase';
  /** `0x` + the 32 coinbase bytes. */
  payloadHex: string;
  altRecipient: string | null;
  /** `0x` + the 80-byte VRF proof of a Nakamoto coinbase, else `null`. */
  vrfProofHex: string | null;
}

export interface MicroblockHeader {
  version: number;
  sequence: number;
  prevBlock: string;
  txMerkleRoot: string;
  signature: string;
}

export interface PoisonMicroblockPayload {
  typeId: 'poison_microblock';
  /** `0x` + the serialized headers (the reference API's `microblock_header_1/2`). */
  microblockHeader1Hex: string;
  microblockHeader2Hex: string;
  microblockHeader1: MicroblockHeader;
  microblockHeader2: MicroblockHeader;
}

export interface TenureChangePayload {
  typeId: 'tenure_change';
  tenureConsensusHash: string;
  prevTenureConsensusHash: string;
  burnViewConsensusHash: string;
  previousTenureEnd: string;
  previousTenureBlocks: number;
  cause: TenureChangeCauseName;
  pubkeyHash: string;
}

export type TransactionPayload =
  | TokenTransferPayload
  | SmartContractPayload
  | ContractCallPayload
  | CoinbasePayload
  | PoisonMicroblockPayload
  | TenureChangePayload;

/** Where a transaction synthesized from a Bitcoin operation came from (see `synthesizeBurnchainTransaction`). */
export interface BurnchainOrigin {
  op: 'transfer_stx' | 'stack_stx' | 'delegate_stx' | 'vote_for_aggregate_key' | 'events';
  /** Bitcoin txid (hex, no prefix) when the node gave it. */
  burnTxid: string | null;
  burnBlockHeight: number | null;
  vtxindex: number | null;
}

/**
 * A normalized Stacks transaction: plain data (amounts and nonces are bigint), hashes and bytes as `0x` hex.
 * Produced by `decodeTransaction` (raw bytes) and `synthesizeBurnchainTransaction` (`raw_tx` = `0x00`).
 */
export interface DecodedTransaction {
  /** `0x` + SHA-512/256 of the raw bytes (or the node's txid for a synthesized transaction). */
  txId: string;
  /** 0x00 mainnet, 0x80 testnet. */
  version: number;
  chainId: number;
  anchorMode: AnchorModeName;
  postConditionMode: PostConditionModeName;
  postConditions: PostCondition[];
  authType: AuthTypeName;
  /** Hash mode of the origin spending condition (`AddressHashMode`). */
  originHashMode: number;
  /** c32 address of the origin (from its hash mode, signer hash and the transaction version). */
  senderAddress: string;
  sponsorAddress: string | null;
  /** Origin account nonce. */
  nonce: bigint;
  /** Fee paid: the sponsor's fee for a sponsored transaction, the origin's otherwise (as the reference API). */
  feeRate: bigint;
  sponsorNonce: bigint | null;
  payload: TransactionPayload;
  /** `null` for a transaction decoded from raw bytes. */
  burnchain: BurnchainOrigin | null;
}

interface SpendingCondition {
  hashMode: number;
  address: string;
  nonce: bigint;
  fee: bigint;
}

const FUNGIBLE_CODES: Record<number, FungibleConditionCode> = {
  0x01: 'sent_equal_to',
  0x02: 'sent_greater_than',
  0x03: 'sent_greater_than_or_equal_to',
  0x04: 'sent_less_than',
  0x05: 'sent_less_than_or_equal_to',
};
const NON_FUNGIBLE_CODES: Record<number, NonFungibleConditionCode> = {
  0x10: 'sent',
  0x11: 'not_sent',
  0x12: 'maybe_sent',
};
const POX_CODES: Record<number, PoxConditionCode> = {
  0x30: 'not_performed',
  0x31: 'maybe_performed',
  0x32: 'performed',
};
const ANCHOR_MODES: Record<number, AnchorModeName> = { 1: 'on_chain_only', 2: 'off_chain_only', 3: 'any' };
const POST_CONDITION_MODES: Record<number, PostConditionModeName> = { 1: 'allow', 2: 'deny', 3: 'originator' };
const TENURE_CHANGE_CAUSES: TenureChangeCauseName[] = [
  'block_found',
  'extended',
  'extended_runtime',
  'extended_read_count',
  'extended_read_length',
  'extended_write_count',
  'extended_write_length',
];

function isSingleSig(hashMode: number): boolean {
  return hashMode === AddressHashMode.P2PKH || hashMode === AddressHashMode.P2WPKH;
}

/**
 * Address version of a spending condition: single-sig P2PKH gives SP/ST; every other mode (multisig, and the
 * P2SH-wrapped P2WPKH single-sig) gives SM/SN, as stacks-core does.
 */
export function addressVersionForHashMode(hashMode: number, txVersion: number): number {
  const mainnet = txVersion === TransactionVersion.Mainnet;
  if (hashMode === AddressHashMode.P2PKH) {
    return mainnet ? StacksAddressVersion.MainnetSingleSig : StacksAddressVersion.TestnetSingleSig;
  }
  return mainnet ? StacksAddressVersion.MainnetMultiSig : StacksAddressVersion.TestnetMultiSig;
}

/** `0x` + SHA-512/256 of the serialized transaction: the Stacks transaction id. */
export function txIdFromBytes(bytes: Uint8Array): string {
  // OpenSSL's SHA-512/256 is some fifty times faster than the JS one on a large contract deploy.
  if (NATIVE_SHA512_256) return `0x${createHash('sha512-256').update(bytes).digest('hex')}`;
  return bytesToHex(sha512_256(bytes));
}

const NATIVE_SHA512_256 = getHashes().includes('sha512-256');

function readSpendingCondition(r: ByteReader, txVersion: number, role: string): SpendingCondition {
  const start = r.offset;
  const hashMode = r.readU8(`${role} hash mode`);
  if (!Object.values(AddressHashMode).includes(hashMode as never)) {
    r.fail(`${role}: unknown hash mode 0x${hashMode.toString(16).padStart(2, '0')}`, start);
  }
  const signer = r.readBytes(20, `${role} signer`);
  const nonce = r.readU64(`${role} nonce`);
  const fee = r.readU64(`${role} fee`);
  if (isSingleSig(hashMode)) {
    const keyEncoding = r.readU8(`${role} key encoding`);
    if (keyEncoding > 1) r.fail(`${role}: unknown public key encoding ${keyEncoding}`, r.offset - 1);
    r.readBytes(65, `${role} signature`);
  } else {
    const fieldCount = r.readU32(`${role} auth field count`);
    if (fieldCount * 34 > r.remaining) r.fail(`${role}: ${fieldCount} auth fields exceed the remaining bytes`);
    for (let i = 0; i < fieldCount; i++) {
      const fieldType = r.readU8(`${role} auth field type`);
      if (fieldType === 0x00 || fieldType === 0x01) r.readBytes(33, `${role} public key`);
      else if (fieldType === 0x02 || fieldType === 0x03) r.readBytes(65, `${role} signature`);
      else r.fail(`${role}: unknown auth field type ${fieldType}`, r.offset - 1);
    }
    r.readU16(`${role} signatures required`);
  }
  const address = encodeStacksAddress(addressVersionForHashMode(hashMode, txVersion), signer);
  return { hashMode, address, nonce, fee };
}

function readPostConditionPrincipal(r: ByteReader): PostConditionPrincipal {
  const start = r.offset;
  const prefix = r.readU8('post-condition principal');
  switch (prefix) {
    case 0x01:
      return { type_id: 'principal_origin' };
    case 0x02:
      return { type_id: 'principal_standard', address: readAddress(r, 'post-condition principal') };
    case 0x03: {
      const address = readAddress(r, 'post-condition principal');
      return { type_id: 'principal_contract', address, contract_name: readContractName(r, 'contract name') };
    }
    default:
      return r.fail(`unknown post-condition principal type ${prefix}`, start);
  }
}

function readAsset(r: ByteReader): PostConditionAsset {
  const contract_address = readAddress(r, 'asset contract address');
  const contract_name = readContractName(r, 'asset contract name');
  const asset_name = readClarityName(r, 'asset name');
  return { contract_address, contract_name, asset_name };
}

function readCode<T>(r: ByteReader, table: Record<number, T>, what: string): T {
  const code = r.readU8(what);
  const name = table[code];
  if (name === undefined) r.fail(`unknown ${what} 0x${code.toString(16).padStart(2, '0')}`, r.offset - 1);
  return name;
}

function readPostCondition(r: ByteReader): PostCondition {
  const start = r.offset;
  const kind = r.readU8('post-condition type');
  if (kind > 4) r.fail(`unknown post-condition type ${kind}`, start);
  const principal = readPostConditionPrincipal(r);
  switch (kind) {
    case 0x00: {
      const condition_code = readCode(r, FUNGIBLE_CODES, 'fungible condition code');
      return { type: 'stx', principal, condition_code, amount: r.readU64('amount').toString() };
    }
    case 0x01: {
      const asset = readAsset(r);
      const condition_code = readCode(r, FUNGIBLE_CODES, 'fungible condition code');
      return { type: 'fungible', principal, condition_code, amount: r.readU64('amount').toString(), asset };
    }
    case 0x02: {
      const asset = readAsset(r);
      const { hex, repr } = readDecodedClarityValue(r);
      const condition_code = readCode(r, NON_FUNGIBLE_CODES, 'non-fungible condition code');
      return { type: 'non_fungible', principal, condition_code, asset, asset_value: { hex, repr } };
    }
    case 0x03: {
      const condition_code = readCode(r, FUNGIBLE_CODES, 'fungible condition code');
      return { type: 'staking', principal, condition_code, amount: r.readU64('amount').toString() };
    }
    default:
      return { type: 'pox', principal, condition_code: readCode(r, POX_CODES, 'pox condition code') };
  }
}

function readMicroblockHeader(r: ByteReader): { hex: string; header: MicroblockHeader } {
  const start = r.offset;
  const header: MicroblockHeader = {
    version: r.readU8('microblock version'),
    sequence: r.readU16('microblock sequence'),
    prevBlock: r.readHex(32, 'microblock parent'),
    txMerkleRoot: r.readHex(32, 'microblock merkle root'),
    signature: r.readHex(65, 'microblock signature'),
  };
  return { hex: bytesToHex(r.bytes.subarray(start, r.offset)), header };
}

function readPayload(r: ByteReader, senderAddress: string): TransactionPayload {
  const start = r.offset;
  const payloadType = r.readU8('payload type');
  switch (payloadType) {
    case 0x00: {
      const recipient = readPrincipalValue(r, 'token-transfer recipient');
      const amount = r.readU64('token-transfer amount');
      const memoHex = r.readHex(34, 'token-transfer memo');
      return { typeId: 'token_transfer', recipient, amount, memoHex };
    }
    case 0x01:
    case 0x06: {
      const clarityVersion = payloadType === 0x06 ? r.readU8('clarity version') : null;
      const contractName = readContractName(r, 'contract name');
      const sourceCode = r.readLengthPrefixedString('contract source code', 4);
      return {
        typeId: 'smart_contract',
        contractId: `${senderAddress}.${contractName}`,
        contractName,
        sourceCode,
        clarityVersion,
      };
    }
    case 0x02: {
      const contractAddress = readAddress(r, 'contract address');
      const contractName = readContractName(r, 'contract name');
      const functionName = readClarityName(r, 'function name');
      const argsStart = r.offset;
      const count = r.readU32('function argument count');
      if (count > r.remaining) r.fail(`function argument count ${count} exceeds the remaining bytes`, argsStart);
      const functionArgs: DecodedClarityValue[] = [];
      for (let i = 0; i < count; i++) functionArgs.push(readDecodedClarityValue(r));
      return {
        typeId: 'contract_call',
        contractId: `${contractAddress}.${contractName}`,
        contractAddress,
        contractName,
        functionName,
        functionArgs,
        functionArgsHex: bytesToHex(r.bytes.subarray(argsStart, r.offset)),
      };
    }
    case 0x03: {
      const h1 = readMicroblockHeader(r);
      const h2 = readMicroblockHeader(r);
      return {
        typeId: 'poison_microblock',
        microblockHeader1Hex: h1.hex,
        microblockHeader2Hex: h2.hex,
        microblockHeader1: h1.header,
        microblockHeader2: h2.header,
      };
    }
    case 0x04:
      return {
        typeId: 'coinbase',
        variant: 'coinbase',
        payloadHex: r.readHex(32, 'coinbase'),
        altRecipient: null,
        vrfProofHex: null,
      };
    case 0x05: {
      const payloadHex = r.readHex(32, 'coinbase');
      const altRecipient = readPrincipalValue(r, 'coinbase recipient');
      return { typeId: 'coinbase', variant: 'coinbase_to_alt_recipient', payloadHex, altRecipient, vrfProofHex: null };
    }
    case 0x08: {
      const payloadHex = r.readHex(32, 'coinbase');
      const recipientAt = r.offset;
      const recipient = readClarityValue(r);
      let altRecipient: string | null = null;
      if (recipient.type !== 'optional') r.fail('nakamoto coinbase: recipient must be an optional principal', recipientAt);
      if (recipient.value !== null) {
        if (recipient.value.type !== 'principal') r.fail('nakamoto coinbase: recipient is not a principal', recipientAt);
        altRecipient = principalString(recipient.value);
      }
      const vrfProofHex = r.readHex(80, 'VRF proof');
      return { typeId: 'coinbase', variant: 'nakamoto_coinbase', payloadHex, altRecipient, vrfProofHex };
    }
    case 0x07: {
      const tenureConsensusHash = r.readHex(20, 'tenure consensus hash');
      const prevTenureConsensusHash = r.readHex(20, 'previous tenure consensus hash');
      const burnViewConsensusHash = r.readHex(20, 'burn view consensus hash');
      const previousTenureEnd = r.readHex(32, 'previous tenure end');
      const previousTenureBlocks = r.readU32('previous tenure blocks');
      const cause = readCode(r, TENURE_CHANGE_CAUSES as Record<number, TenureChangeCauseName>, 'tenure change cause');
      const pubkeyHash = r.readHex(20, 'pubkey hash');
      return {
        typeId: 'tenure_change',
        tenureConsensusHash,
        prevTenureConsensusHash,
        burnViewConsensusHash,
        previousTenureEnd,
        previousTenureBlocks,
        cause,
        pubkeyHash,
      };
    }
    default:
      return r.fail(`unknown payload type 0x${payloadType.toString(16).padStart(2, '0')}`, start);
  }
}

/**
 * Decodes a consensus-serialized Stacks transaction (a node's `raw_tx`, hex with or without `0x`).
 * Every byte must be consumed; anything malformed (truncated, unknown enum, trailing bytes, bad name) throws a
 * `DecodeError`. `0x00` (a burnchain operation) is not a transaction: use `synthesizeBurnchainTransaction`.
 */
export function decodeTransaction(rawTxHex: string): DecodedTransaction {
  const bytes = hexToBytes(rawTxHex, 'raw transaction');
  if (bytes.length <= 1) {
    throw new DecodeError(
      bytes.length === 1 && bytes[0] === 0
        ? 'raw transaction 0x00 is a burnchain operation, not a serialized transaction'
        : 'raw transaction is empty',
    );
  }
  const r = new ByteReader(bytes);
  try {
    const version = r.readU8('transaction version');
    if (version !== TransactionVersion.Mainnet && version !== TransactionVersion.Testnet) {
      r.fail(`unknown transaction version 0x${version.toString(16).padStart(2, '0')}`, 0);
    }
    const chainId = r.readU32('chain id');
    const authType = r.readU8('auth type');
    if (authType !== 0x04 && authType !== 0x05) r.fail(`unknown auth type 0x${authType.toString(16)}`, 5);
    const origin = readSpendingCondition(r, version, 'origin');
    const sponsor = authType === 0x05 ? readSpendingCondition(r, version, 'sponsor') : null;
    const anchorMode = readCode(r, ANCHOR_MODES, 'anchor mode');
    const postConditionMode = readCode(r, POST_CONDITION_MODES, 'post-condition mode');
    const pcCount = r.readU32('post-condition count');
    if (pcCount > r.remaining) r.fail(`post-condition count ${pcCount} exceeds the remaining bytes`);
    const postConditions: PostCondition[] = [];
    for (let i = 0; i < pcCount; i++) postConditions.push(readPostCondition(r));
    const payload = readPayload(r, origin.address);
    r.expectEnd('transaction');
    return {
      txId: txIdFromBytes(bytes),
      version,
      chainId,
      anchorMode,
      postConditionMode,
      postConditions,
      authType: sponsor ? 'sponsored' : 'standard',
      originHashMode: origin.hashMode,
      senderAddress: origin.address,
      sponsorAddress: sponsor?.address ?? null,
      nonce: origin.nonce,
      feeRate: sponsor ? sponsor.fee : origin.fee,
      sponsorNonce: sponsor?.nonce ?? null,
      payload,
      burnchain: null,
    };
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    // Defensive: nothing above should throw anything else, but a caller must only ever see DecodeError.
    throw new DecodeError(`raw transaction: ${err instanceof Error ? err.message : String(err)}`, {
      offset: r.offset,
      cause: err,
    });
  }
}
