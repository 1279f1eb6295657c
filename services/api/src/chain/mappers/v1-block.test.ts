import { describe, expect, it } from '@jest/globals';
import { BlockRowBuilder } from '../../testing/builders';
import type { DbV1BlockRow } from '../datastore/v1-blocks';
import { toV1BlockJson, toV1BlockListJson, toV1BlockResponse } from './v1-block';

const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** A v1 block row: `txs` as the kept JSON text, microblock counts and microblocks as the statement gives them. */
function v1Row(
  height: number,
  parts: Partial<Pick<DbV1BlockRow, 'tx_ids_json' | 'microblock_tx_counts' | 'accepted' | 'streamed'>>,
): DbV1BlockRow {
  return {
    ...new BlockRowBuilder().height(height).build(),
    tx_ids_json: null,
    microblock_tx_counts: null,
    accepted: null,
    streamed: null,
    ...parts,
  };
}

describe('toV1BlockJson', () => {
  const withMicroblocks = v1Row(7, {
    tx_ids_json: JSON.stringify([id(1), id(2), id(3)]),
    microblock_tx_counts: { [id(10)]: 2 },
    accepted: [id(10), id(11)],
    streamed: [id(12)],
  });
  const empty = v1Row(8, {});

  it('writes the text JSON.stringify writes for the same block, the kept ids copied in', () => {
    for (const row of [withMicroblocks, empty]) expect(toV1BlockJson(row)).toBe(JSON.stringify(toV1BlockResponse(row)));
  });

  it('lists the kept ids in their order, [] without transactions, and counts 0 for an accepted microblock none came in', () => {
    const got = JSON.parse(toV1BlockJson(withMicroblocks)) as Record<string, unknown>;
    expect(got['txs']).toEqual([id(1), id(2), id(3)]);
    expect(got['microblocks_accepted']).toEqual([id(10), id(11)]);
    expect(got['microblocks_streamed']).toEqual([id(12)]);
    expect(got['microblock_tx_count']).toEqual({ [id(10)]: 2, [id(11)]: 0 });
    expect(Object.keys(got).indexOf('txs')).toBe(Object.keys(got).indexOf('execution_cost_write_length') + 1);
    expect(JSON.parse(toV1BlockJson(empty))).toMatchObject({ txs: [], microblocks_accepted: [], microblock_tx_count: {} });
  });

  it('writes a page as JSON.stringify writes the list of those blocks', () => {
    const page = { limit: 2, offset: 5, total: 40 };
    const rows = [withMicroblocks, empty];
    expect(toV1BlockListJson(page, rows)).toBe(JSON.stringify({ ...page, results: rows.map(toV1BlockResponse) }));
    expect(toV1BlockListJson(page, [])).toBe('{"limit":2,"offset":5,"total":40,"results":[]}');
  });
});
