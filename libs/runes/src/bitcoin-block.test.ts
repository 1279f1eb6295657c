import { Block, Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from '@jest/globals';
import { parseBitcoinBlock } from './bitcoin-block';

const GENESIS =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c01' +
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff' +
  '0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';

describe('parseBitcoinBlock', () => {
  it('parses the genesis block', () => {
    const block = parseBitcoinBlock(GENESIS, 0);
    expect(block.hash).toBe('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    expect(block.prevHash).toBe('0'.repeat(64));
    expect(block.height).toBe(0);
    expect(block.timestamp).toBe(1_231_006_505);
    expect(block.txs).toHaveLength(1);
    const [coinbase] = block.txs;
    expect(coinbase?.txid).toBe('4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b');
    expect(coinbase?.index).toBe(0);
    expect(coinbase?.inputs).toEqual([{ txid: '0'.repeat(64), vout: 0xffff_ffff, witness: [], coinbase: true }]);
    expect(coinbase?.outputs).toHaveLength(1);
    expect(coinbase?.outputs[0]?.value).toBe(5_000_000_000n);
    expect(coinbase?.outputs[0]?.script).toBeInstanceOf(Uint8Array);
    expect(coinbase?.outputs[0]?.script.length).toBe(67);
  });

  it('keeps witnesses, spent outpoints and output order of segwit transactions', () => {
    const spent = 'ab'.repeat(32);
    const coinbase = new Transaction();
    coinbase.addInput(Buffer.alloc(32), 0xffff_ffff, 0xffff_ffff, Buffer.from('0101', 'hex'));
    coinbase.addOutput(Buffer.from('6a5d00', 'hex'), 0);
    coinbase.setWitness(0, [Buffer.alloc(32)]);
    const spend = new Transaction();
    spend.version = 2;
    spend.addInput(Buffer.from(spent, 'hex').reverse(), 3);
    spend.addOutput(Buffer.from(`5120${'11'.repeat(32)}`, 'hex'), 546);
    spend.addOutput(Buffer.from('6a5d0114', 'hex'), 0);
    spend.setWitness(0, [Buffer.from('aa', 'hex'), Buffer.from('51', 'hex'), Buffer.from('c0' + '22'.repeat(32), 'hex')]);
    const block = new Block();
    block.version = 0x2000_0000;
    block.prevHash = Buffer.alloc(32, 1);
    block.merkleRoot = Block.calculateMerkleRoot([coinbase, spend]);
    block.timestamp = 1_713_571_767;
    block.bits = 0x1703_4219;
    block.nonce = 7;
    block.transactions = [coinbase, spend];

    const parsed = parseBitcoinBlock(block.toHex(), 840_000);
    expect(parsed.hash).toBe(block.getId());
    expect(parsed.prevHash).toBe('01'.repeat(32));
    expect(parsed.height).toBe(840_000);
    expect(parsed.timestamp).toBe(1_713_571_767);
    expect(parsed.txs.map((tx) => [tx.index, tx.txid])).toEqual([
      [0, coinbase.getId()],
      [1, spend.getId()],
    ]);
    const tx = parsed.txs[1]!;
    expect(tx.inputs).toEqual([
      {
        txid: spent,
        vout: 3,
        witness: [Uint8Array.of(0xaa), Uint8Array.of(0x51), Uint8Array.from(Buffer.from('c0' + '22'.repeat(32), 'hex'))],
        coinbase: false,
      },
    ]);
    expect(tx.outputs).toEqual([
      { value: 546n, script: Uint8Array.from(Buffer.from(`5120${'11'.repeat(32)}`, 'hex')) },
      { value: 0n, script: Uint8Array.of(0x6a, 0x5d, 0x01, 0x14) },
    ]);
    expect(parsed.txs[0]?.inputs[0]?.coinbase).toBe(true);
  });
});
