/** `/extended/v1/info/network_block_times` and `/network_block_time/{network}`: the reference's fixed target times. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { startApi, type ApiHarness } from './support/api-harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi(testInfra().databaseUrl);
});

afterAll(async () => {
  await api?.close();
});

describe('network block times', () => {
  it('gives ten minutes for mainnet and two for testnet, together and one by one', async () => {
    const both = await api.get('/extended/v1/info/network_block_times');
    expect(both.status).toBe(200);
    expect(both.body).toEqual({ mainnet: { target_block_time: 600 }, testnet: { target_block_time: 120 } });
    expect((await api.get('/extended/v1/info/network_block_time/mainnet')).body).toEqual({ target_block_time: 600 });
    expect((await api.get('/extended/v1/info/network_block_time/testnet')).body).toEqual({ target_block_time: 120 });
  });

  it('answers another network with a 400 naming the parameter', async () => {
    for (const network of ['devnet', 'Mainnet', '%20']) {
      const res = await api.get(`/extended/v1/info/network_block_time/${network}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('network');
    }
  });
});
