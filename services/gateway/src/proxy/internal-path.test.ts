import { describe, expect, it } from '@jest/globals';
import { expectMessage } from '@bda/test-support';
import { isInternalPath } from './internal-path';

describe('isInternalPath', () => {
  it('recognizes the internal endpoints in any spelling a router might accept', () => {
    for (const path of [
      '/metrics',
      '/metrics/',
      '/METRICS',
      '/Metrics/x',
      '/%6detrics',
      '/%6D%45TRICS',
      '/healthz',
      '/HealthZ/',
      '/%68ealthz',
      '/readyz',
      '/READYZ/',
      '/%72%65%61%64%79%7a',
    ]) {
      expectMessage(path, () => expect(isInternalPath(path)).toBe(true));
    }
  });

  it('leaves every other path alone', () => {
    for (const path of [
      '/',
      '/extended/v1/metrics',
      '/metricsx',
      '/metric',
      '/v2/info',
      '/runes/v1/healthz',
      '/%zz',
      '/readyz-x',
    ]) {
      expectMessage(path, () => expect(isInternalPath(path)).toBe(false));
    }
  });
});
