import { availableParallelism } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { loadApiEnv, pageLimitsFromEnv } from './env';

describe('loadApiEnv', () => {
  it('applies the defaults', () => {
    const env = loadApiEnv({});
    expect(env).toMatchObject({ API_PORT: 3001, API_HOST: '127.0.0.1', API_DB_POOL: 10, LOG_LEVEL: 'info' });
    expect(pageLimitsFromEnv(env)).toEqual({
      tx: { default: 20, max: 50 },
      block: { default: 20, max: 30 },
      event: { default: 20, max: 100 },
      runes: { default: 20, max: 60 },
    });
  });

  it('reads overrides', () => {
    const env = loadApiEnv({ API_PORT: '4000', API_BLOCK_LIMIT_MAX: '50', DATABASE_URL: 'postgres://x/y' });
    expect(env.API_PORT).toBe(4000);
    expect(env.DATABASE_URL).toBe('postgres://x/y');
    expect(pageLimitsFromEnv(env).block.max).toBe(50);
    expect(pageLimitsFromEnv(loadApiEnv({ API_RUNES_LIMIT_DEFAULT: '7', API_RUNES_LIMIT_MAX: '9' })).runes).toEqual({
      default: 7,
      max: 9,
    });
  });

  it('runs one worker per CPU unless API_WORKERS says otherwise', () => {
    expect(loadApiEnv({}).API_WORKERS).toBe(availableParallelism());
    expect(loadApiEnv({ API_WORKERS: '1' }).API_WORKERS).toBe(1);
    expect(() => loadApiEnv({ API_WORKERS: '0' })).toThrow(/API_WORKERS/);
  });

  it('lists every problem at once', () => {
    expect(() => loadApiEnv({ API_PORT: 'x', API_DB_POOL: '0' })).toThrow(/API_PORT[\s\S]*API_DB_POOL/);
  });

  it('rejects a default page size above the maximum', () => {
    expect(() => loadApiEnv({ API_TX_LIMIT_DEFAULT: '60' })).toThrow(/API_TX_LIMIT_DEFAULT: must not exceed API_TX_LIMIT_MAX/);
  });
});
