import { Block, Transaction } from 'bitcoinjs-lib';
import { concatBytes } from '../concat-bytes';
import { runeCommitment } from '../rune-name';
import { pushData } from '../runestone-builder';

/**
 * Builds real serialized Bitcoin blocks for tests and benchmarks (regtest-style: no proof of work,
 * no witness commitment). Transaction ids are known as soon as a transaction is added, so later
 * transactions and blocks can spend its outputs.
 *
 * ```ts
 * const b = new BitcoinBlockBuilder({ prevHash: tip.hash, height: 101 });
 * const etch = b.tx({ inputs: [{ txid, vout: 0, witness: commitWitness(rune) }], outputs: [runestone, p2tr(1)] });
 * const block = b.build(); // { hex, hash, height, txids, ... }
 * ```
 */

export interface TxInputSpec {
  /** Display-order hex id of the transaction whose output is spent. */
  txid: string;
  vout: number;
  witness?: Uint8Array[];
  scriptSig?: Uint8Array;
}

export interface TxOutputSpec {
  script: Uint8Array;
  /** Satoshis (default 1,000). */
  value?: number;
}

export interface TxSpec {
  inputs: TxInputSpec[];
  /** Output scripts, or `{script, value}`. */
  outputs: Array<Uint8Array | TxOutputSpec>;
}

export interface BuiltBlock {
  /** The serialized block, hex (what `POST /new_bitcoin_block` takes as `raw_block`). */
  hex: string;
  hash: string;
  prevHash: string;
  height: number;
  timestamp: number;
  /** Transaction ids in block order; `txids[0]` is the coinbase. */
  txids: string[];
}

export interface BlockBuilderOptions {
  /** Display-order hex hash of the parent block (all zeros for a first block). */
  prevHash: string;
  height: number;
  /** Header time, Unix seconds (default: 1,700,000,000 + 600 × height). */
  timestamp?: number;
  /** Distinguishes blocks at the same height on competing branches (goes into the coinbase). */
  tag?: string;
  /** Coinbase outputs (default: one P2TR output of key 0). */
  coinbaseOutputs?: Array<Uint8Array | TxOutputSpec>;
}

const ZERO_HASH = Buffer.alloc(32);

export class BitcoinBlockBuilder {
  private readonly txs: Transaction[] = [];

  constructor(private readonly opts: BlockBuilderOptions) {
    const coinbase = new Transaction();
    coinbase.version = 2;
    const tag = Buffer.from(opts.tag ?? '', 'utf8');
    coinbase.addInput(
      ZERO_HASH,
      0xffff_ffff,
      0xffff_ffff,
      Buffer.from(concatBytes([pushData(scriptNumber(opts.height)), pushData(tag)])),
    );
    for (const output of opts.coinbaseOutputs ?? [p2trScript(0)]) addOutput(coinbase, output, 5_000_000_000);
    this.txs.push(coinbase);
  }

  /** The coinbase's id (its outputs can be spent by later blocks). */
  get coinbaseTxid(): string {
    return this.txs[0]!.getId();
  }

  /** Adds a transaction and returns its id. */
  tx(spec: TxSpec): string {
    const tx = new Transaction();
    tx.version = 2;
    spec.inputs.forEach((input, i) => {
      tx.addInput(
        Buffer.from(input.txid, 'hex').reverse(),
        input.vout,
        0xffff_fffd,
        input.scriptSig ? Buffer.from(input.scriptSig) : undefined,
      );
      if (input.witness && input.witness.length > 0)
        tx.setWitness(
          i,
          input.witness.map((w) => Buffer.from(w)),
        );
    });
    for (const output of spec.outputs) addOutput(tx, output, 1_000);
    this.txs.push(tx);
    return tx.getId();
  }

  build(): BuiltBlock {
    const block = new Block();
    block.version = 0x2000_0000;
    block.prevHash = Buffer.from(this.opts.prevHash, 'hex').reverse();
    block.timestamp = this.opts.timestamp ?? 1_700_000_000 + 600 * this.opts.height;
    block.bits = 0x207f_ffff;
    block.nonce = 0;
    block.transactions = this.txs;
    block.merkleRoot = Block.calculateMerkleRoot(this.txs);
    return {
      hex: block.toHex(),
      hash: block.getId(),
      prevHash: this.opts.prevHash,
      height: this.opts.height,
      timestamp: block.timestamp,
      txids: this.txs.map((tx) => tx.getId()),
    };
  }
}

function addOutput(tx: Transaction, output: Uint8Array | TxOutputSpec, defaultValue: number): void {
  const spec = output instanceof Uint8Array ? { script: output } : output;
  tx.addOutput(Buffer.from(spec.script), spec.value ?? defaultValue);
}

/** BIP34 height push: minimal little-endian script number. */
function scriptNumber(n: number): Uint8Array {
  if (n === 0) return new Uint8Array(0);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.push(v % 256);
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return Uint8Array.from(bytes);
}

/** `OP_1 <32 bytes>`: a distinct P2TR output script per key number. */
export function p2trScript(key: number): Uint8Array {
  return Uint8Array.of(0x51, 0x20, ...keyBytes(key, 32));
}

/** `OP_0 <20 bytes>`: a distinct P2WPKH output script per key number. */
export function p2wpkhScript(key: number): Uint8Array {
  return Uint8Array.of(0x00, 0x14, ...keyBytes(key, 20));
}

/** `<33-byte compressed key> OP_CHECKSIG`: pay-to-pubkey, an output without an address. */
export function p2pkScript(key: number): Uint8Array {
  return Uint8Array.of(0x21, 0x02, ...keyBytes(key, 32), 0xac);
}

/** A plain OP_RETURN output (not a runestone). */
export function opReturnScript(data: Uint8Array = Uint8Array.of(0xde, 0xad)): Uint8Array {
  return concatBytes([Uint8Array.of(0x6a), pushData(data)]);
}

/**
 * The witness of a taproot script-path spend whose tapscript pushes the commitment of `rune`
 * (`<commitment> OP_DROP OP_TRUE`, then a 33-byte control block).
 */
export function commitWitness(rune: bigint): Uint8Array[] {
  const tapscript = concatBytes([pushData(runeCommitment(rune)), Uint8Array.of(0x75, 0x51)]);
  const controlBlock = Uint8Array.of(0xc0, ...keyBytes(7, 32));
  return [tapscript, controlBlock];
}

/** 32 bytes: the key number big-endian in the last four bytes, over a fixed filler. */
function keyBytes(key: number, length: number): number[] {
  const out = new Array<number>(length).fill(0x11);
  out[length - 4] = (key >>> 24) & 0xff;
  out[length - 3] = (key >>> 16) & 0xff;
  out[length - 2] = (key >>> 8) & 0xff;
  out[length - 1] = key & 0xff;
  return out;
}
