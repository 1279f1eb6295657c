import { describe, expect, it } from '@jest/globals';
import { BlockRowBuilder } from '../../testing/builders';
import { loadSchemaSources } from '../../openapi';
import { SchemaValidator } from '../../schema-validator';
import { toBlockResponse } from './block';
import { toServerStatusResponse } from './status';

const validator = new SchemaValidator(loadSchemaSources());

describe('toBlockResponse', () => {
  it('falls back to the burn block time and the height for a Stacks 2.x block', () => {
    const row = new BlockRowBuilder().height(10).build();
    const res = toBlockResponse(row);
    expect(res.block_time).toBe(Number(row.burn_block_time));
    expect(res.block_time_iso).toBe(new Date(Number(row.burn_block_time) * 1000).toISOString());
    expect(res.tenure_height).toBe(10);
    validator.validateComponent('nakamoto-block.schema.json', res);
  });

  it('uses the Nakamoto block time and tenure height, -1 when the tenure height is unknown', () => {
    const known = toBlockResponse(
      new BlockRowBuilder().height(10).nakamoto({ blockTime: 1_750_000_000, tenureHeight: 4 }).build(),
    );
    expect(known).toMatchObject({ block_time: 1_750_000_000, block_time_iso: '2025-06-15T15:06:40.000Z', tenure_height: 4 });
    const unknown = toBlockResponse(
      new BlockRowBuilder().height(10).nakamoto({ blockTime: 1_750_000_000, tenureHeight: null }).build(),
    );
    expect(unknown.tenure_height).toBe(-1);
  });

  it('shows a missing miner txid as an empty string and costs as numbers', () => {
    const res = toBlockResponse(
      new BlockRowBuilder().height(3).with({ miner_txid: null, execution_cost_runtime: '123456789' }).build(),
    );
    expect(res.miner_txid).toBe('');
    expect(res.execution_cost_runtime).toBe(123456789);
    validator.validateComponent('nakamoto-block.schema.json', res);
  });
});

describe('toServerStatusResponse', () => {
  it('has a null tip and null unlock heights before anything is indexed', () => {
    const res = toServerStatusResponse('bda-api 0.1.0', null);
    expect(res).toEqual({
      server_version: 'bda-api 0.1.0',
      status: 'ready',
      pox_v1_unlock_height: null,
      pox_v2_unlock_height: null,
      pox_v3_unlock_height: null,
      chain_tip: null,
    });
    validator.validateComponent('server-status-response.schema.json', res);
  });

  it('leaves the microblock fields out when the tip has no microblock', () => {
    const tip = {
      block_height: 5,
      block_hash: `0x${'01'.repeat(32)}`,
      index_block_hash: `0x${'02'.repeat(32)}`,
      burn_block_height: 800_005,
      block_count: 5,
      microblock_hash: null,
      microblock_sequence: null,
    };
    const res = toServerStatusResponse('v', tip);
    expect(res.chain_tip).toEqual({
      block_height: 5,
      block_hash: tip.block_hash,
      index_block_hash: tip.index_block_hash,
      burn_block_height: 800_005,
    });
    validator.validateComponent('server-status-response.schema.json', res);
  });
});
