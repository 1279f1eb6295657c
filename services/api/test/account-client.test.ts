/**
 * The official client, `@stacks/blockchain-api-client` (unmodified), against the accounts and tokens endpoints this
 * api serves, on a fixture replayed through the real observer and indexer: every call answers without an error, its
 * typed `data` is valid against our documented schema for the route, and the values a wallet reads first (STX
 * balances, nonces) are those computed from the fixture's raw events (`support/account-ledger.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@stacks/blockchain-api-client';
import { expectMessage, testInfra } from '@bda/test-support';
import { schemaValidator, startApi, type ApiHarness } from './support/api-harness';
import { accountLedger, type AccountLedger } from './support/account-ledger';
import { loadRecordedEvents } from './support/replayed-database';

const FIXTURE = 'mainnet-out-of-order-microblock.tsv';

describe(`@stacks/blockchain-api-client against the accounts endpoints after replaying ${FIXTURE}`, () => {
  let api: ApiHarness;
  let ledger: AccountLedger;
  let client: ReturnType<typeof createClient>;

  beforeAll(async () => {
    ledger = accountLedger(FIXTURE);
    api = await startApi(testInfra().databaseUrl, { fixture: FIXTURE, listen: true });
    client = createClient({ baseUrl: api.baseUrl });
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  /** A client call's outcome: no error, a 200, and `data` valid against our schema of `template`. */
  function valid<T>(template: string, r: { data?: T; error?: unknown; response: Response }): T {
    expectMessage(`${template} → ${r.response.status} ${JSON.stringify(r.error)}`, () => expect(r.error).toBeUndefined());
    expect(r.response.status).toBe(200);
    schemaValidator.validateResponse(template, 'get', 200, r.data);
    return r.data!;
  }

  it('reads balances, nonces and activity of every principal through the v1, v2 and v3 account operations', async () => {
    // A dozen principals (in name order): enough kinds of account, at a bounded number of calls.
    let calls = 0;
    for (const principal of [...ledger.principals].sort().slice(0, 12)) {
      const path = { principal };
      const stx = valid(
        '/extended/v1/address/{principal}/stx',
        await client.GET('/extended/v1/address/{principal}/stx', { params: { path } }),
      );
      expectMessage(principal, () => expect(stx.balance).toBe(ledger.stxAt(principal).balance.toString()));
      const balances = valid(
        '/extended/v1/address/{principal}/balances',
        await client.GET('/extended/v1/address/{principal}/balances', { params: { path } }),
      );
      expect(balances.stx.balance).toBe(stx.balance);
      const v2 = valid(
        '/extended/v2/addresses/{principal}/balances/stx',
        await client.GET('/extended/v2/addresses/{principal}/balances/stx', { params: { path } }),
      );
      expect(v2.balance).toBe(stx.balance);
      const v3 = valid(
        '/extended/v3/principals/{principal}/balances/stx',
        await client.GET('/extended/v3/principals/{principal}/balances/stx', { params: { path } }),
      );
      expect(v3.balance).toBe(stx.balance);
      calls += 4;
      if (!principal.includes('.')) {
        const nonces = valid(
          '/extended/v1/address/{principal}/nonces',
          await client.GET('/extended/v1/address/{principal}/nonces', { params: { path } }),
        );
        const last = ledger.nonceAt(principal);
        expect(nonces.last_executed_tx_nonce).toBe(last === null ? null : Number(last));
        const v3n = valid(
          '/extended/v3/principals/{principal}/nonces',
          await client.GET('/extended/v3/principals/{principal}/nonces', { params: { path } }),
        );
        expect(v3n.next_nonce).toBe(nonces.possible_next_nonce);
        calls += 2;
      }
    }
    expect(calls).toBeGreaterThan(20);
  });

  it('pages activity, token balances and token lists through the client, with the same bodies the api gives', async () => {
    const holder =
      [...ledger.principals].find((p) => ledger.tokensAt(p, 'ft').size > 0 && ledger.tokensAt(p, 'nft').size > 0) ??
      [...ledger.principals].find((p) => ledger.tokensAt(p, 'ft').size > 0)!;
    const path = { principal: holder };
    const [token] = [...ledger.tokensAt(holder, 'ft').keys()] as [string];
    const query = { limit: 5 };
    const checks: Array<[string, { data?: unknown; error?: unknown; response: Response }, string]> = [
      [
        '/extended/v1/address/{principal}/transactions',
        await client.GET('/extended/v1/address/{principal}/transactions', { params: { path, query } }),
        `/extended/v1/address/${holder}/transactions?limit=5`,
      ],
      [
        '/extended/v1/address/{principal}/assets',
        await client.GET('/extended/v1/address/{principal}/assets', { params: { path, query } }),
        `/extended/v1/address/${holder}/assets?limit=5`,
      ],
      [
        '/extended/v1/address/{principal}/stx_inbound',
        await client.GET('/extended/v1/address/{principal}/stx_inbound', { params: { path, query } }),
        `/extended/v1/address/${holder}/stx_inbound?limit=5`,
      ],
      [
        '/extended/v1/address/{principal}/mempool',
        await client.GET('/extended/v1/address/{principal}/mempool', { params: { path, query } }),
        `/extended/v1/address/${holder}/mempool?limit=5`,
      ],
      [
        '/extended/v1/address/{principal}/transactions_with_transfers',
        await client.GET('/extended/v1/address/{principal}/transactions_with_transfers', { params: { path, query } }),
        `/extended/v1/address/${holder}/transactions_with_transfers?limit=5`,
      ],
      [
        '/extended/v2/addresses/{address}/transactions',
        await client.GET('/extended/v2/addresses/{address}/transactions', { params: { path: { address: holder }, query } }),
        `/extended/v2/addresses/${holder}/transactions?limit=5`,
      ],
      [
        '/extended/v2/addresses/{principal}/balances/ft',
        await client.GET('/extended/v2/addresses/{principal}/balances/ft', { params: { path } }),
        `/extended/v2/addresses/${holder}/balances/ft`,
      ],
      [
        '/extended/v2/addresses/{principal}/balances/ft/{token}',
        await client.GET('/extended/v2/addresses/{principal}/balances/ft/{token}', {
          params: { path: { principal: holder, token } },
        }),
        `/extended/v2/addresses/${holder}/balances/ft/${token}`,
      ],
      [
        '/extended/v3/principals/{principal}/balances/ft',
        await client.GET('/extended/v3/principals/{principal}/balances/ft', { params: { path } }),
        `/extended/v3/principals/${holder}/balances/ft`,
      ],
      [
        '/extended/v3/principals/{principal}/balances/ft/{asset_identifier}',
        await client.GET('/extended/v3/principals/{principal}/balances/ft/{asset_identifier}', {
          params: { path: { principal: holder, asset_identifier: token } },
        }),
        `/extended/v3/principals/${holder}/balances/ft/${token}`,
      ],
      [
        '/extended/v3/principals/{principal}/balances/nft',
        await client.GET('/extended/v3/principals/{principal}/balances/nft', { params: { path } }),
        `/extended/v3/principals/${holder}/balances/nft`,
      ],
      [
        '/extended/v1/tokens/ft/{token}/holders',
        await client.GET('/extended/v1/tokens/ft/{token}/holders', { params: { path: { token } } }),
        `/extended/v1/tokens/ft/${token}/holders`,
      ],
      [
        '/extended/v1/tokens/nft/holdings',
        await client.GET('/extended/v1/tokens/nft/holdings', { params: { query: { principal: holder, tx_metadata: false } } }),
        `/extended/v1/tokens/nft/holdings?principal=${holder}&tx_metadata=false`,
      ],
    ];
    // One of the holder's transactions, one by one, and an NFT class with its values.
    const txs = valid('/extended/v2/addresses/{address}/transactions', checks[5]![1] as never) as {
      results: Array<{ tx: { tx_id: string } }>;
    };
    const txId = txs.results[0]!.tx.tx_id;
    checks.push([
      '/extended/v2/addresses/{address}/transactions/{tx_id}/events',
      await client.GET('/extended/v2/addresses/{address}/transactions/{tx_id}/events', {
        params: { path: { address: holder, tx_id: txId } },
      }),
      `/extended/v2/addresses/${holder}/transactions/${txId}/events`,
    ]);
    checks.push([
      '/extended/v1/address/{principal}/{tx_id}/with_transfers',
      await client.GET('/extended/v1/address/{principal}/{tx_id}/with_transfers', {
        params: { path: { principal: holder, tx_id: txId } },
      }),
      `/extended/v1/address/${holder}/${txId}/with_transfers`,
    ]);
    const nftHolder = [...ledger.principals].find((p) => [...ledger.tokensAt(p, 'nft').values()].some((v) => v > 0n))!;
    const holdings = (
      await client.GET('/extended/v1/tokens/nft/holdings', { params: { query: { principal: nftHolder, tx_metadata: false } } })
    ).data!;
    const nft = holdings.results[0]!;
    checks.push(
      [
        '/extended/v1/tokens/nft/history',
        await client.GET('/extended/v1/tokens/nft/history', {
          params: { query: { asset_identifier: nft.asset_identifier, value: nft.value.hex, tx_metadata: false } },
        }),
        `/extended/v1/tokens/nft/history?asset_identifier=${nft.asset_identifier}&value=${nft.value.hex}&tx_metadata=false`,
      ],
      [
        '/extended/v1/tokens/nft/mints',
        await client.GET('/extended/v1/tokens/nft/mints', {
          params: { query: { asset_identifier: nft.asset_identifier, tx_metadata: true } },
        }),
        `/extended/v1/tokens/nft/mints?asset_identifier=${nft.asset_identifier}&tx_metadata=true`,
      ],
    );
    // A contract that logged in the fixture: its logs (v1 and v2) and its deploy status.
    const logged = loadRecordedEvents(FIXTURE)
      .filter((r) => r.path === '/new_block')
      .flatMap(
        (r) =>
          (JSON.parse(r.body) as { events: Array<{ type: string; contract_event?: { contract_identifier: string } }> }).events,
      )
      .find((e) => e.type === 'contract_event')!.contract_event!.contract_identifier;
    checks.push(
      [
        '/extended/v1/contract/{contract_id}/events',
        await client.GET('/extended/v1/contract/{contract_id}/events', { params: { path: { contract_id: logged } } }),
        `/extended/v1/contract/${logged}/events`,
      ],
      [
        '/extended/v2/smart-contracts/{contract_id}/logs',
        await client.GET('/extended/v2/smart-contracts/{contract_id}/logs', { params: { path: { contract_id: logged } } }),
        `/extended/v2/smart-contracts/${logged}/logs`,
      ],
      [
        '/extended/v2/smart-contracts/status',
        await client.GET('/extended/v2/smart-contracts/status', { params: { query: { contract_id: [logged] } } }),
        `/extended/v2/smart-contracts/status?contract_id=${logged}`,
      ],
    );
    for (const [template, result, url] of checks) {
      const data = valid(template, result);
      const direct = await api.get(url);
      expectMessage(template, () => expect(data).toEqual(direct.body));
    }
    expect(checks.length).toBe(20);
  });

  it('reads the v3 transaction lists, the STX supply and the search through the client, with the same bodies the api gives', async () => {
    const holder =
      [...ledger.principals].find((p) => ledger.tokensAt(p, 'ft').size > 0 && ledger.tokensAt(p, 'nft').size > 0) ??
      [...ledger.principals].find((p) => ledger.tokensAt(p, 'ft').size > 0)!;
    const path = { principal: holder };
    const query = { limit: 5 };
    const mine = valid(
      '/extended/v3/principals/{principal}/transactions',
      await client.GET('/extended/v3/principals/{principal}/transactions', { params: { path, query } }),
    );
    expect(mine.total).toBeGreaterThan(0);
    const txIds = mine.results.map((r) => r.transaction.tx_id);
    const checks: Array<[string, { data?: unknown; error?: unknown; response: Response }, string]> = [
      [
        '/extended/v3/principals/{principal}/transactions',
        await client.GET('/extended/v3/principals/{principal}/transactions', {
          params: { path, query: { limit: 2, cursor: mine.cursor.current! } },
        }),
        `/extended/v3/principals/${holder}/transactions?limit=2&cursor=${mine.cursor.current}`,
      ],
      [
        '/extended/v3/principals/{principal}/transactions/{tx_id}/balance-changes',
        await client.GET('/extended/v3/principals/{principal}/transactions/{tx_id}/balance-changes', {
          params: { path: { principal: holder, tx_id: txIds[0]! } },
        }),
        `/extended/v3/principals/${holder}/transactions/${txIds[0]}/balance-changes`,
      ],
      [
        '/extended/v3/principals/{principal}/balance-changes',
        await client.GET('/extended/v3/principals/{principal}/balance-changes', { params: { path, query: { tx_id: txIds } } }),
        `/extended/v3/principals/${holder}/balance-changes?${txIds.map((id) => `tx_id=${id}`).join('&')}`,
      ],
      [
        '/extended/v3/principals/{principal}/mempool/transactions',
        await client.GET('/extended/v3/principals/{principal}/mempool/transactions', { params: { path } }),
        `/extended/v3/principals/${holder}/mempool/transactions`,
      ],
      [
        '/extended/v3/transactions',
        await client.GET('/extended/v3/transactions', { params: { query } }),
        '/extended/v3/transactions?limit=5',
      ],
      [
        '/extended/v3/transactions/{tx_id}',
        await client.GET('/extended/v3/transactions/{tx_id}', {
          params: { path: { tx_id: txIds[0]! }, query: { include: ['post_conditions', 'result', 'function_args'] } },
        }),
        `/extended/v3/transactions/${txIds[0]}?include=post_conditions,result,function_args`,
      ],
      [
        '/extended/v3/transactions/{tx_id}/events',
        await client.GET('/extended/v3/transactions/{tx_id}/events', { params: { path: { tx_id: txIds[0]! } } }),
        `/extended/v3/transactions/${txIds[0]}/events`,
      ],
      [
        '/extended/v3/mempool/transactions',
        await client.GET('/extended/v3/mempool/transactions', { params: { query } }),
        '/extended/v3/mempool/transactions?limit=5',
      ],
      ['/extended/v1/stx_supply', await client.GET('/extended/v1/stx_supply/', {}), '/extended/v1/stx_supply'],
      [
        '/extended/v1/stx_supply/legacy_format',
        await client.GET('/extended/v1/stx_supply/legacy_format', { params: { query: { height: 1 } } }),
        '/extended/v1/stx_supply/legacy_format?height=1',
      ],
      [
        '/extended/v1/search/{id}',
        await client.GET('/extended/v1/search/{id}', { params: { path: { id: txIds[0]! }, query: { include_metadata: true } } }),
        `/extended/v1/search/${txIds[0]}?include_metadata=true`,
      ],
      [
        '/extended/v1/search/{id}',
        await client.GET('/extended/v1/search/{id}', { params: { path: { id: holder }, query: { include_metadata: true } } }),
        `/extended/v1/search/${holder}?include_metadata=true`,
      ],
    ];
    for (const [template, result, url] of checks) {
      const data = valid(template, result);
      const direct = await api.get(url);
      expectMessage(template, () => expect(data).toEqual(direct.body));
    }
    // The supply the raw fixture says: committed STX mints less burns, plus the coinbase of matured miner rewards.
    let supply = 0n;
    for (const r of loadRecordedEvents(FIXTURE).filter((e) => e.path === '/new_block')) {
      const b = JSON.parse(r.body) as {
        transactions: Array<{ txid: string; status: string }>;
        events: Array<{ txid: string; type: string; committed?: boolean; [k: string]: unknown }>;
        matured_miner_rewards?: Array<{ coinbase_amount: string }>;
      };
      const status = new Map(b.transactions.map((t) => [t.txid, t.status]));
      for (const e of b.events) {
        if (e.committed === false || (status.get(e.txid) ?? 'success') !== 'success') continue;
        const amount = BigInt((e[e.type] as { amount?: string } | undefined)?.amount ?? '0');
        if (e.type === 'stx_mint_event') supply += amount;
        if (e.type === 'stx_burn_event') supply -= amount;
      }
      for (const m of b.matured_miner_rewards ?? []) supply += BigInt(m.coinbase_amount);
    }
    const stx = `${supply / 1_000_000n}.${(supply % 1_000_000n).toString().padStart(6, '0')}`;
    expect((checks[8]![1].data as { total_stx: string }).total_stx).toBe(stx);
    for (const plain of ['/extended/v1/stx_supply/total/plain', '/extended/v1/stx_supply/circulating/plain'] as const) {
      const r = await client.GET(plain, { parseAs: 'text' });
      expect(r.response.status).toBe(200);
      expect(r.response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.data).toBe(stx);
    }
    const v3 = await api.get('/extended/v3/tokens/stx/supply');
    expect(v3.body).toEqual({ total: supply.toString(), projected_total_2050: '2318000000000000' });
    // Not found: the client sees the 404 with the reference's body.
    const unknown = await client.GET('/extended/v1/search/{id}', { params: { path: { id: `0x${'cd'.repeat(32)}` } } });
    expect(unknown.response.status).toBe(404);
    schemaValidator.validateResponse('/extended/v1/search/{id}', 'get', 404, unknown.error);
    expect(unknown.error).toMatchObject({ found: false, result: { entity_type: 'unknown_hash' } });
  });
});
