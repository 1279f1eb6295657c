import { Block, Transaction } from 'bitcoinjs-lib';

export interface BlockInput {
  /** The spent output's transaction id (display hex); all zeros for the coinbase input. */
  txid: string;
  vout: number;
  witness: Uint8Array[];
  coinbase: boolean;
}

export interface BlockOutput {
  /** Satoshis. */
  value: bigint;
  script: Uint8Array;
}

export interface BlockTransaction {
  txid: string;
  /** Position in the block; the coinbase is 0. */
  index: number;
  inputs: BlockInput[];
  outputs: BlockOutput[];
}

export interface BitcoinBlock {
  hash: string;
  prevHash: string;
  height: number;
  /** Header time, Unix seconds. */
  timestamp: number;
  txs: BlockTransaction[];
}

const COINBASE_VOUT = 0xffff_ffff;

/** Parses a raw serialized block (hex, with or without witness data). The height is not in the block, so it is given. */
export function parseBitcoinBlock(rawHex: string, height: number): BitcoinBlock {
  const block = Block.fromHex(rawHex);
  return {
    hash: block.getId(),
    prevHash: reversedHex(block.prevHash!),
    height,
    timestamp: block.timestamp,
    txs: (block.transactions ?? []).map(toBlockTransaction),
  };
}

function toBlockTransaction(tx: Transaction, index: number): BlockTransaction {
  return {
    txid: tx.getId(),
    index,
    inputs: tx.ins.map((input) => ({
      txid: reversedHex(input.hash),
      vout: input.index,
      witness: input.witness.map((item) => new Uint8Array(item)),
      coinbase: input.index === COINBASE_VOUT && Transaction.isCoinbaseHash(input.hash),
    })),
    outputs: tx.outs.map((output) => ({ value: BigInt(output.value), script: new Uint8Array(output.script) })),
  };
}

/** Hashes are serialized little-endian and displayed big-endian. */
function reversedHex(hash: Uint8Array): string {
  return Buffer.from(hash).reverse().toString('hex');
}
