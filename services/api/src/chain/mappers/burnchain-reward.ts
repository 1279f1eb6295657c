import { createHash } from 'node:crypto';
import { InputError } from '@bda/common';
import { decodeStacksAddress, isValidStacksAddress, parsePoxAddress } from '@bda/stacks-codec';
import { echo } from '../../params';
import type { DbBurnchainRewardRow, DbRewardSlotHolderRow } from '../datastore/burnchain-rewards';

/** The reference API's `BurnchainReward` (only canonical rows are served, so `canonical` is always true). */
interface BurnchainRewardResponse {
  canonical: boolean;
  burn_block_hash: string;
  burn_block_height: number;
  burn_amount: string;
  reward_recipient: string;
  reward_amount: string;
  reward_index: number;
}

/** The reference API's `BurnchainRewardSlotHolder`. */
interface BurnchainRewardSlotHolderResponse {
  canonical: boolean;
  burn_block_hash: string;
  burn_block_height: number;
  address: string;
  slot_index: number;
}

export interface BurnchainRewardListResponse {
  limit: number;
  offset: number;
  results: BurnchainRewardResponse[];
}

export interface BurnchainRewardSlotHolderListResponse {
  limit: number;
  offset: number;
  total: number;
  results: BurnchainRewardSlotHolderResponse[];
}

/** The reference API's `BurnchainRewardsTotal`. */
export interface BurnchainRewardsTotalResponse {
  reward_recipient: string;
  reward_amount: string;
}

export function toBurnchainRewardResponse(r: DbBurnchainRewardRow): BurnchainRewardResponse {
  return {
    canonical: true,
    burn_block_hash: r.burn_block_hash,
    burn_block_height: r.burn_block_height,
    burn_amount: r.burn_amount,
    reward_recipient: r.recipient,
    reward_amount: r.amount,
    reward_index: r.reward_index,
  };
}

export function toRewardSlotHolderResponse(r: DbRewardSlotHolderRow): BurnchainRewardSlotHolderResponse {
  return {
    canonical: true,
    burn_block_hash: r.burn_block_hash,
    burn_block_height: r.burn_block_height,
    address: r.address,
    slot_index: r.slot_index,
  };
}

/** Bitcoin base58check version bytes of the c32 versions of standard Stacks addresses (c32check's mapping). */
const BITCOIN_VERSION_OF_C32: ReadonlyMap<number, number> = new Map([
  [22, 0], // SP → P2PKH mainnet
  [20, 5], // SM → P2SH mainnet
  [26, 111], // ST → P2PKH testnet
  [21, 196], // SN → P2SH testnet
]);

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function sha256(b: Buffer): Buffer {
  return createHash('sha256').update(b).digest();
}

/** base58check of a version byte and a payload. */
function base58check(version: number, payload: Buffer): string {
  const body = Buffer.concat([Buffer.from([version]), payload]);
  const bytes = Buffer.concat([body, sha256(sha256(body)).subarray(0, 4)]);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * `{address}` of the burnchain reward operations, as the reference API takes it: a Bitcoin address (base58check
 * P2PKH/P2SH of any network, or bech32/bech32m; bech32 answered in lower case, as the node prints it), or a standard
 * Stacks address, turned into the Bitcoin address of the same hash (SP → 1…, SM → 3…, ST → m…/n…, SN → 2…).
 * Anything else → 400 naming `address`.
 */
export function parseBurnchainAddress(raw: string, name = 'address'): string {
  if (raw.length <= 100) {
    if (isValidStacksAddress(raw as unknown)) {
      const { version, hash160 } = decodeStacksAddress(raw);
      return base58check(BITCOIN_VERSION_OF_C32.get(version)!, Buffer.from(hash160, 'hex'));
    }
    try {
      parsePoxAddress(raw);
      return /^(bc|tb|bcrt)1/i.test(raw) ? raw.toLowerCase() : raw;
    } catch {
      // not a Bitcoin address either
    }
  }
  throw new InputError(`${name}: must be a Bitcoin address (base58 or bech32) or a Stacks address, got ${echo(raw)}`);
}
