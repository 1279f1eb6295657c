import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { tableChecksums } from '../support/table-checksums';
import { TestSystem } from '../support/test-system';

/**
 * Two indexers read the same bus into two databases: one runs undisturbed, the other is SIGKILLed at
 * random points while the events stream in, and restarted each time. Both must end with identical
 * tables (same envelopes, so even receipt times must match).
 */
describe.each(['kafka', 'postgres'] as const)('an indexer killed at random points over the %s bus', (bus) => {
  let steady: TestSystem;
  let crashy: TestSystem;
  beforeAll(async () => {
    const serverUrl = testInfra().databaseUrl;
    const kafkaBrokers = testInfra().kafkaBrokers;
    steady = await TestSystem.start({ bus, serverUrl, kafkaBrokers, services: ['indexer', 'observer'] });
    crashy = await TestSystem.start({ bus, serverUrl, kafkaBrokers, services: ['indexer'], shareBusWith: steady });
  });
  afterAll(async () => {
    await crashy?.stop();
    await steady?.stop();
  });

  it('ends with exactly the tables of the uninterrupted indexer', async () => {
    const events = [...loadFixture('epoch-3-transition.tsv'), ...loadFixture('mainnet-reorg-scenario1.tsv')];
    const replay = replayEvents(events, { observerUrl: steady.observerUrl, maxRetryMs: 60_000 });
    let kills = 0;
    let replayDone = false;
    void replay.finally(() => {
      replayDone = true;
    });
    // Kill while the stream is flowing, at random moments, and once more after it ended.
    while (!replayDone || kills < 4) {
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 900));
      await crashy.killService('indexer');
      kills += 1;
      await crashy.startService('indexer');
      if (kills > 20) break;
    }
    await replay;
    await steady.waitForCaughtUp();
    await crashy.waitForCaughtUp();
    expect(kills).toBeGreaterThanOrEqual(4);
    const [a, b] = [await tableChecksums(steady.db), await tableChecksums(crashy.db)];
    expect(b).toEqual(a);
    expect(Number((await crashy.db('blocks').count({ n: '*' }))[0]!.n)).toBeGreaterThan(50);
  }, 300_000);
});
