import { describe, expect, it } from '@jest/globals';
import { DEFAULT_NODE_ROUTES } from '../env';
import { checkTarget, isNodePath, matchRoute, parseRouteList } from './allowlist';

const routes = parseRouteList(DEFAULT_NODE_ROUTES, 1_048_576);

describe('parseRouteList', () => {
  it('reads the default allowlist: GETs retry without a body, the reading POSTs retry within 256 KiB', () => {
    const byKey = new Map(routes.map((r) => [`${r.method} ${r.pattern}`, r]));
    expect(byKey.size).toBe(routes.length);
    const gets = routes.filter((r) => r.method === 'GET');
    expect(gets.length).toBe(42);
    expect(gets.filter((r) => !r.retry || r.bodyLimit !== 0)).toEqual([]);
    const posts = routes.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.pattern} ${r.retry} ${r.bodyLimit}`);
    expect(posts.sort()).toEqual([
      'POST /v2/contracts/call-read/{address}/{contract}/{function} true 262144',
      'POST /v2/fees/transaction true 262144',
      'POST /v2/map_entry/{address}/{contract}/{map} true 262144',
      'POST /v2/transactions false 2097152',
    ]);
    expect(routes.filter((r) => r.broadcast).map((r) => `${r.method} ${r.pattern}`)).toEqual(['POST /v2/transactions']);
  });

  it('gives a POST without options the default limit and no retry', () => {
    const [r] = parseRouteList('post /v2/foo/{x}', 1000);
    expect(r).toMatchObject({ method: 'POST', retry: false, bodyLimit: 1000, broadcast: false });
  });

  it('refuses malformed entries', () => {
    expect(() => parseRouteList('FETCH /v2/x', 1)).toThrow(/METHOD/);
    expect(() => parseRouteList('GET /v2/a b', 1)).toThrow();
    expect(() => parseRouteList('GET /v2/a%2f', 1)).toThrow(/invalid segment/);
    expect(() => parseRouteList(' , ', 1)).toThrow(/empty/);
  });
});

describe('matchRoute', () => {
  it('matches the five routes of the specification and /v2/info', () => {
    expect(matchRoute(routes, 'GET', '/v2/info')?.pattern).toBe('/v2/info');
    expect(matchRoute(routes, 'GET', '/v2/pox')?.pattern).toBe('/v2/pox');
    expect(matchRoute(routes, 'GET', '/v2/accounts/SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7')).toBeDefined();
    expect(matchRoute(routes, 'POST', '/v2/contracts/call-read/SP000000000000000000002Q6VF78/bns/get-name-price')).toBeDefined();
    expect(matchRoute(routes, 'POST', '/v2/fees/transaction')?.retry).toBe(true);
    expect(matchRoute(routes, 'POST', '/v2/transactions')?.retry).toBe(false);
  });

  it('matches neither other methods nor longer or shorter paths', () => {
    expect(matchRoute(routes, 'POST', '/v2/info')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/v2/transactions')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/v2/info/')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/v2/accounts')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/v2/accounts/SP1/extra')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/v2/contracts/call-read/SP1/c')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/v2/microblocks')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/v3/blocks/upload')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/v3/block_proposal')).toBeUndefined();
    expect(matchRoute(routes, 'POST', '/v2/mempool/query')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/V2/INFO')).toBeUndefined();
  });
});

describe('checkTarget', () => {
  it('splits a clean target into path and query', () => {
    expect(checkTarget('/v2/accounts/SP1?proof=0&tip=abc')).toEqual({
      ok: true,
      path: '/v2/accounts/SP1',
      query: '?proof=0&tip=abc',
    });
    expect(checkTarget('/runes/v1/etchings/UNCOMMON%E2%80%A2GOODS')).toMatchObject({ ok: true });
  });

  it.each([
    ['http://10.0.0.1:20443/v2/info', 'absolute-form'],
    ['*', 'asterisk-form'],
    ['v2/info', 'no leading slash'],
    ['//evil.example/v2/info', 'empty first segment'],
    ['/v2/info/../neighbors', 'dot-dot segment'],
    ['/v2/./info', 'dot segment'],
    ['/v2/accounts/..', 'trailing dot-dot'],
    ['/v2/accounts/%2e%2e/neighbors', 'encoded dot-dot'],
    ['/v2/accounts/%2E./x', 'mixed encoded dot'],
    ['/v2/accounts/SP1%2f..%2fneighbors', 'encoded slash'],
    ['/v2/accounts/SP1%5c..%5cx', 'encoded backslash'],
    ['/v2/accounts/SP1\\..\\x', 'backslash'],
    ['/v2/accounts/%252e%252e', 'double encoding'],
    ['/v2/accounts/SP1%00', 'encoded NUL'],
    ['/v2/info#frag', 'fragment'],
    ['/v2/info\u00e9', 'raw non-ASCII'],
    ['/v2//info', 'empty segment'],
  ])('refuses %s (%s)', (target) => {
    expect(checkTarget(target).ok).toBe(false);
  });
});

describe('isNodePath', () => {
  it('sends /v2/prices to the api and the rest of /v2 to the allowlist, whatever the case', () => {
    expect(isNodePath('/v2/info')).toBe(true);
    expect(isNodePath('/V2/info')).toBe(true);
    expect(isNodePath('/v2')).toBe(true);
    expect(isNodePath('/v2/pricesX')).toBe(true);
    expect(isNodePath('/v2/prices/names/muneeb.id')).toBe(false);
    expect(isNodePath('/V2/Prices/namespaces/id')).toBe(false);
    expect(isNodePath('/v2/prices')).toBe(false);
    expect(isNodePath('/extended/v1/tx/0x1')).toBe(false);
    expect(isNodePath('/v2x/info')).toBe(false);
    expect(isNodePath('/v3/tenures/info')).toBe(true);
    expect(isNodePath('/V3/blocks/upload')).toBe(true);
    expect(isNodePath('/v3x/info')).toBe(false);
    expect(isNodePath('/extended/v3/principals/SP1/balances/ft')).toBe(false);
  });
});
