import { describe, expect, it } from '@jest/globals';
import { minedTxListJson, type DbTx } from '@bda/db';
import { BlockRowBuilder, CV, EventRowBuilder, MempoolTxRowBuilder, testAddress, TxRowBuilder } from '../../testing/builders';
import type { DbTxRow } from '../datastore/txs';
import { loadSchemaSources } from '../../openapi';
import { SchemaValidator } from '../../schema-validator';
import {
  functionSignature,
  toMempoolStatus,
  toMempoolTransactionResponse,
  toTransactionResponse,
  toTxPageJson,
  toTxMetadata,
  UnexpectedRowError,
  withoutFunctionArgs,
} from './tx';

const validator = new SchemaValidator(loadSchemaSources());
const block = new BlockRowBuilder().height(9).build();
const contract = `${testAddress('d')}.c`;

function row(tx: DbTx): DbTxRow {
  const { raw_tx: _raw, contract_abi: _abi, burnchain_op: _op, ...rest } = tx;
  return { ...rest, parent_block_hash: block.parent_block_hash, parent_burn_block_time: '1700000000' };
}

describe('toTransactionResponse', () => {
  const variants: Array<[string, DbTx]> = [
    ['token_transfer', new TxRowBuilder().inBlock(block).build()],
    ['smart_contract', new TxRowBuilder().inBlock(block).smartContract(contract, '(ok 1)', null).build()],
    [
      'contract_call',
      new TxRowBuilder()
        .inBlock(block)
        .contractCall(contract, 'f', [{ ...CV.u100, name: 'n', type: 'uint' }])
        .build(),
    ],
    ['coinbase', new TxRowBuilder().inBlock(block).coinbase().build()],
    ['tenure_change', new TxRowBuilder().inBlock(block).tenureChange().build()],
    ['poison_microblock', new TxRowBuilder().inBlock(block).poisonMicroblock().build()],
  ];

  it.each(variants)('maps a %s transaction to a schema-valid response', (type, tx) => {
    const res = toTransactionResponse(row(tx), [new EventRowBuilder().forTx(tx).build()]);
    expect(res.tx_type).toBe(type);
    validator.validateComponent('transaction.schema.json', res);
    validator.validateComponent('get-transaction-response.schema.json', res);
  });

  it('reports parent burn time 0 and an empty ISO when the parent block is unknown', () => {
    const res = toTransactionResponse({
      ...row(new TxRowBuilder().build()),
      parent_burn_block_time: null,
      parent_block_hash: null,
    });
    expect(res).toMatchObject({ parent_burn_block_time: 0, parent_burn_block_time_iso: '', parent_block_hash: '' });
  });

  it('rejects a transaction type it does not know (an indexer/api mismatch, not bad input)', () => {
    expect(() => toTxMetadata('new_type', {})).toThrow(UnexpectedRowError);
  });

  it('fails schema validation for a response missing a field', () => {
    const res = toTransactionResponse(row(new TxRowBuilder().build())) as unknown as Record<string, unknown>;
    delete res['nonce'];
    expect(() => validator.validateComponent('transaction.schema.json', res)).toThrow(/nonce/);
    expect(() =>
      validator.validateComponent('transaction.schema.json', {
        ...toTransactionResponse(row(new TxRowBuilder().build())),
        extra: 1,
      }),
    ).toThrow(/does not match/);
  });
});

describe('functionSignature', () => {
  it('builds the public function definition from named arguments', () => {
    expect(functionSignature('transfer', [{ hex: '', repr: '', name: 'amount', type: 'uint' }], true)).toBe(
      '(define-public (transfer (amount uint)))',
    );
    expect(functionSignature('transfer', [{ hex: '', repr: '', name: 'amount', type: 'uint' }], false)).toBe(
      '(define-public (transfer (amount uint)))',
    );
    expect(functionSignature('ping', [], true)).toBe('(define-public (ping ))');
  });

  it('is empty when an argument name is unknown', () => {
    expect(functionSignature('f', [{ hex: '', repr: '', name: '', type: 'uint' }], false)).toBe('');
  });

  it('is empty for a call without arguments when the ABI is unknown, as the reference', () => {
    expect(functionSignature('ping', [], false)).toBe('');
  });

  it('is empty in the response for a zero-argument call to a contract without a known ABI', () => {
    const tx = new TxRowBuilder().inBlock(block).contractCall(contract, 'ping', []).build();
    expect(toTransactionResponse(row(tx))).toMatchObject({
      contract_call: { contract_id: contract, function_name: 'ping', function_signature: '', function_args: [] },
    });
    const abis = new Map([[contract, { functions: [{ name: 'ping', access: 'public', args: [] }] }]]);
    expect(toTransactionResponse(row(tx), [], abis)).toMatchObject({
      contract_call: { function_signature: '(define-public (ping ))', function_args: [] },
    });
  });
});

describe('sponsor_nonce', () => {
  it('is shown on a sponsored transaction, mined or pending, and validates', () => {
    const mined = toTransactionResponse(row(new TxRowBuilder().inBlock(block).sponsoredBy(testAddress('s'), '12').build()));
    expect(mined).toMatchObject({ sponsored: true, sponsor_address: testAddress('s'), sponsor_nonce: 12 });
    validator.validateComponent('transaction.schema.json', mined);
    const pending = toMempoolTransactionResponse(
      (({ raw_tx: _r, ...rest }) => rest)(new MempoolTxRowBuilder().sponsoredBy(testAddress('s'), '3').build()),
    );
    expect(pending).toMatchObject({ sponsored: true, sponsor_nonce: 3 });
    validator.validateComponent('mempool-transaction.schema.json', pending);
  });

  it('is left out when the transaction is not sponsored, or the row predates the column', () => {
    expect(toTransactionResponse(row(new TxRowBuilder().inBlock(block).build()))).not.toHaveProperty('sponsor_nonce');
    const unknown = toTransactionResponse(
      row(new TxRowBuilder().inBlock(block).sponsoredBy(testAddress('s')).with({ sponsor_nonce: null }).build()),
    );
    expect(unknown).toMatchObject({ sponsored: true, sponsor_address: testAddress('s') });
    expect(unknown).not.toHaveProperty('sponsor_nonce');
  });
});

describe('post conditions', () => {
  const pox = (condition_code: string) => ({ type: 'pox', principal: { type_id: 'principal_origin' }, condition_code });

  it('validates pox post conditions by the reference API names', () => {
    const res = toTransactionResponse(
      row(
        new TxRowBuilder()
          .inBlock(block)
          .with({ post_conditions: [pox('not_performed'), pox('maybe_performed'), pox('performed')] })
          .build(),
      ),
    );
    validator.validateComponent('transaction.schema.json', res);
  });

  it.each(['will_not_perform', 'may_perform', 'will_perform'])('rejects the pox condition code %s', (code) => {
    const res = toTransactionResponse(
      row(
        new TxRowBuilder()
          .inBlock(block)
          .with({ post_conditions: [pox(code)] })
          .build(),
      ),
    );
    expect(() => validator.validateComponent('transaction.schema.json', res)).toThrow(/post_conditions/);
  });
});

describe('mempool transactions', () => {
  it('maps statuses as clients know them', () => {
    expect(toMempoolStatus('pending')).toBe('pending');
    expect(toMempoolStatus('mined')).toBe('pending');
    expect(toMempoolStatus('dropped_replace_by_fee')).toBe('dropped_replace_by_fee');
    expect(toMempoolStatus('dropped_problematic')).toBe('dropped_problematic');
  });

  it('shows a drop for a reason the reference has no name for as dropped_stale_garbage_collect', () => {
    expect(toMempoolStatus('dropped_unknown')).toBe('dropped_stale_garbage_collect');
    expect(toMempoolStatus('dropped_something_new')).toBe('dropped_stale_garbage_collect');
    const res = toMempoolTransactionResponse(
      (({ raw_tx: _r, ...rest }) => rest)(new MempoolTxRowBuilder().status('dropped_unknown').build()),
    );
    expect(res.tx_status).toBe('dropped_stale_garbage_collect');
    validator.validateComponent('mempool-transaction.schema.json', res);
    expect(() =>
      validator.validateComponent('mempool-transaction.schema.json', { ...res, tx_status: 'dropped_unknown' }),
    ).toThrow(/tx_status/);
  });

  it('maps a sponsored mempool transaction to a schema-valid response', () => {
    const res = toMempoolTransactionResponse(
      (({ raw_tx: _r, ...rest }) => rest)(new MempoolTxRowBuilder().with({ sponsor_address: testAddress('s') }).build()),
    );
    expect(res).toMatchObject({ sponsored: true, sponsor_address: testAddress('s'), receipt_time: 1714564800 });
    validator.validateComponent('mempool-transaction.schema.json', res);
    validator.validateComponent('get-transaction-response.schema.json', res);
  });
});

describe('toTxPageJson', () => {
  const rows = [
    row(new TxRowBuilder().inBlock(block).build()),
    row(
      new TxRowBuilder()
        .inBlock(block)
        .contractCall(contract, 'f', [{ ...CV.u100, name: 'n', type: 'uint' }])
        .build(),
    ),
  ];
  const joined = rows.map((r) => minedTxListJson(r)).join(',');

  it('writes the page JSON.stringify writes for the object, the kept texts copied in', () => {
    const page = { limit: 20, offset: 40, total: 1234 };
    const expected = JSON.stringify({ ...page, results: rows.map((r) => toTransactionResponse({ ...r, canonical: true })) });
    expect(toTxPageJson(page, joined)).toBe(expected);
    expect(toTxPageJson({ ...page, total: 0 }, '')).toBe('{"limit":20,"offset":40,"total":0,"results":[]}');
    expect(toTxPageJson({ ...page, total: 0 }, '', true)).toBe('{"limit":20,"offset":40,"total":0,"results":[]}');
  });

  it('drops the contract calls’ arguments with exclude, as withoutFunctionArgs does on the object', () => {
    const page = { limit: 2, offset: 0, total: 2 };
    const results = rows.map((r) => withoutFunctionArgs(toTransactionResponse({ ...r, canonical: true })));
    expect(results[1]).not.toHaveProperty('contract_call.function_args');
    expect(toTxPageJson(page, joined, true)).toBe(JSON.stringify({ ...page, results }));
  });
});
