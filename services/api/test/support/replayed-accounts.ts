import { afterAll, beforeAll } from '@jest/globals';
import { testInfra } from '@bda/test-support';
import { accountLedger, type AccountLedger } from './account-ledger';
import { startApi, type ApiHarness } from './api-harness';

/**
 * For a describe block over one recorded fixture: an api serving a copy of the database the fixture was replayed into
 * (`startApi`), and the fixture's account ledger computed from the raw events (`accountLedger`), both set up before
 * the block's tests and the api closed after them. Read `api` and `ledger` inside tests (they are set by then).
 */
export function replayedAccounts(fixture: string): { readonly api: ApiHarness; readonly ledger: AccountLedger } {
  let api: ApiHarness | undefined;
  let ledger: AccountLedger | undefined;
  beforeAll(async () => {
    ledger = accountLedger(fixture);
    api = await startApi(testInfra().databaseUrl, { fixture });
  }, 300_000);
  afterAll(async () => {
    await api?.close();
  });
  return {
    get api() {
      if (!api) throw new Error('replayedAccounts: read api inside a test');
      return api;
    },
    get ledger() {
      if (!ledger) throw new Error('replayedAccounts: read ledger inside a test');
      return ledger;
    },
  };
}
