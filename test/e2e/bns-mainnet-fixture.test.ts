import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadSchemaSources, SchemaValidator } from '@bda/api';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { startSystem } from '../support/start-system';
import type { TestSystem } from '../support/test-system';

/**
 * A real mainnet BNS registration: `mainnet-out-of-order-microblock.tsv` holds one (`dang.btc`, transaction
 * 0x67f98d24…, its `names` NFT minted to the sender and the contract's `name-register` print). The expected answer is
 * read off the recorded events by hand: the owner is the mint's recipient, the zonefile hash the print's 20-byte
 * `hash`, and the zonefile itself never arrived (the recording has no `/attachments/new`). Its namespace's `ready` is
 * not in the recording, so no lease is known: `expire_block` 0.
 */
const validator = new SchemaValidator(loadSchemaSources());

describe('a BNS registration recorded on mainnet', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem('postgres', ['indexer', 'observer', 'api']);
    await replayEvents(loadFixture('mainnet-out-of-order-microblock.tsv'), { observerUrl: sys.observerUrl, maxRetryMs: 30_000 });
    await sys.waitForCaughtUp();
  });
  afterAll(() => sys?.stop());

  it('answers the name, its owner’s names and the name list', async () => {
    const owner = 'SPSJJ416M5ZQEMT54PWY4022EWHB0XEDY2Q4TDYD';
    const res = await fetch(`${sys.apiUrl}/v1/names/dang.btc`);
    const body: unknown = await res.json();
    validator.validateResponse('/v1/names/{name}', 'get', res.status, body);
    expect({ status: res.status, body }).toEqual({
      status: 200,
      body: {
        address: owner,
        blockchain: 'stacks',
        expire_block: 0,
        grace_period: 0,
        last_txid: '0x67f98d24b20f455ceaee2228e7fe48b82bb8d5564456e7e4cd65d7dd2a57bf29',
        status: 'name-register',
        zonefile_hash: 'a9755f2e421c072440bfdac7b2a5fed3a2272656',
      },
    });
    expect(await (await fetch(`${sys.apiUrl}/v1/addresses/stacks/${owner}`)).json()).toEqual({ names: ['dang.btc'] });
    expect(await (await fetch(`${sys.apiUrl}/v1/names`)).json()).toEqual(['dang.btc']);
    expect((await fetch(`${sys.apiUrl}/v1/names/dang.btc/zonefile`)).status).toBe(404);
  });
});
