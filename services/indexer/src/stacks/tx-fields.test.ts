import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { decodeTransaction } from '@bda/stacks-codec';
import { decodeRawTxColumns, decodeTxColumns, toTxFields } from './tx-fields';
import type { NodeTx } from './node-payloads';

const MOCKNET = fileURLToPath(new URL('../../../../test/fixtures/stacks-node-events/mocknet.tsv', import.meta.url));
const minedTxs = readFileSync(MOCKNET, 'utf8')
  .split('\n')
  .filter((line) => line.includes('\t/new_block\t'))
  .flatMap((line) => (JSON.parse(line.split('\t')[3]!) as { transactions: NodeTx[] }).transactions)
  .filter((tx) => tx.raw_tx.length > 4);

describe('decodeRawTxColumns', () => {
  it('gives the txid the node computed, and the same frozen decoding for the same bytes seen again', () => {
    const tx = minedTxs[0]!;
    const first = decodeRawTxColumns(tx.raw_tx);
    expect(first.tx_id).toBe(tx.txid);
    // A copy of the string, as a later event would carry: the decoding is found again, not redone.
    const again = decodeRawTxColumns((' ' + tx.raw_tx).slice(1));
    expect(again).toBe(first);
    expect(Object.isFrozen(first.columns) && Object.isFrozen(first.fields)).toBe(true);
  });

  it('gives, from what it kept, exactly what decoding the bytes afresh gives, to a mined or an announced transaction', () => {
    for (const tx of minedTxs.slice(0, 20)) {
      const fresh = toTxFields(decodeTransaction(tx.raw_tx));
      const announced = decodeRawTxColumns(tx.raw_tx);
      const mined = decodeTxColumns(tx);
      expect(mined).toBe(announced);
      expect(announced.fields).toEqual(fresh);
      expect(announced.columns.payload).toBe(JSON.stringify(fresh.payload));
      expect(announced.columns.sender_address).toBe(fresh.sender_address);
    }
  });

  it('throws for bytes that are not a transaction, every time', () => {
    expect(() => decodeRawTxColumns('0x0102')).toThrow();
    expect(() => decodeRawTxColumns('0x0102')).toThrow();
  });
});
