import { describe, expect, it } from '@jest/globals';
import { loadEnv } from './env';

describe('gateway env', () => {
  it('defaults to the reference policy and the embedded layout', () => {
    const env = loadEnv({ DATABASE_URL: 'postgres://x/y' });
    expect(env).toMatchObject({
      GATEWAY_PORT: 3999,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: 50,
      RATE_LIMIT_KEY_PER_MINUTE: 500,
      RATE_LIMIT_BURST_PER_SECOND: 20,
      RATE_LIMIT_IPV6_PREFIX: 56,
      API_URLS: ['http://127.0.0.1:3001'],
      NODE_RPC_URLS: ['http://127.0.0.1:20443'],
      trustProxy: { kind: 'hops', hops: 0 },
    });
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.NODE_RPC_ROUTES).toHaveLength(46);
    expect(env.GATEWAY_WORKERS).toBeGreaterThanOrEqual(1);
  });

  it('reads lists, CIDRs and numbers', () => {
    const env = loadEnv({
      DATABASE_URL: 'postgres://x/y',
      NODE_RPC_URLS: 'http://a:1, http://b:2,',
      TRUSTED_PROXY_CIDRS: '10.0.0.0/8',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5',
      NODE_RPC_ROUTES: 'GET /v2/info',
    });
    expect(env.NODE_RPC_URLS).toEqual(['http://a:1', 'http://b:2']);
    expect(env.trustProxy.kind).toBe('cidrs');
    expect(env.RATE_LIMIT_ANONYMOUS_PER_MINUTE).toBe(5);
    expect(env.NODE_RPC_ROUTES.map((r) => r.pattern)).toEqual(['/v2/info']);
  });

  it('lets any origin in by default, and refuses a CORS entry that is not an origin, naming it', () => {
    expect(loadEnv({ DATABASE_URL: 'postgres://x/y' }).CORS_ALLOWED_ORIGINS).toEqual({ anyOrigin: true });
    expect(loadEnv({ DATABASE_URL: 'postgres://x/y', CORS_ALLOWED_ORIGINS: '' }).CORS_ALLOWED_ORIGINS).toBeUndefined();
    expect(() => loadEnv({ DATABASE_URL: 'postgres://x/y', CORS_ALLOWED_ORIGINS: 'wallet.example' })).toThrow(
      /CORS_ALLOWED_ORIGINS.*"wallet.example" is not an origin/s,
    );
  });

  it('fails fast, listing every problem', () => {
    expect(() => loadEnv({})).toThrow(/DATABASE_URL/);
    expect(() =>
      loadEnv({
        DATABASE_URL: 'postgres://x/y',
        NODE_RPC_URLS: 'ftp://x',
        RATE_LIMIT_KEY_PER_MINUTE: '-1',
        NODE_RPC_ROUTES: 'GET nothing',
      }),
    ).toThrow(/(?=[\s\S]*NODE_RPC_URLS)(?=[\s\S]*RATE_LIMIT_KEY_PER_MINUTE)(?=[\s\S]*NODE_RPC_ROUTES)/);
    expect(() => loadEnv({ DATABASE_URL: 'postgres://x/y', TRUSTED_PROXY_HOPS: '1', TRUSTED_PROXY_CIDRS: '10.0.0.0/8' })).toThrow(
      /not both/,
    );
    expect(() => loadEnv({ DATABASE_URL: 'postgres://x/y', KEY_REVOCATION_POLL_MS: '10000' })).toThrow(/KEY_REVOCATION_POLL_MS/);
  });
});
