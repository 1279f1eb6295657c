import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { createGatewayMetrics } from './metrics';

describe('hot-path metrics', () => {
  it('exposes counters counted outside prom-client with their labels', async () => {
    const registry = new Registry();
    const m = createGatewayMetrics(registry);
    m.requests.inc('node', '200');
    m.requests.inc('node', '200');
    m.requests.inc('api', '502');
    const text = await registry.metrics();
    expect(text).toContain('gateway_requests_total{target="node",code="200"} 2');
    expect(text).toContain('gateway_requests_total{target="api",code="502"} 1');
    // Scraping twice does not double anything.
    expect(await registry.metrics()).toContain('gateway_requests_total{target="node",code="200"} 2');
  });

  it('exposes histograms with cumulative buckets, sum and count', async () => {
    const registry = new Registry();
    const m = createGatewayMetrics(registry);
    m.upstreamLatency.observe(0.0004, 'node', 'http://a');
    m.upstreamLatency.observe(0.003, 'node', 'http://a');
    m.upstreamLatency.observe(99, 'node', 'http://a');
    const text = await registry.metrics();
    expect(text).toContain('# TYPE gateway_upstream_response_seconds histogram');
    expect(text).toContain('gateway_upstream_response_seconds_bucket{pool="node",member="http://a",le="0.0005"} 1');
    expect(text).toContain('gateway_upstream_response_seconds_bucket{pool="node",member="http://a",le="0.005"} 2');
    expect(text).toContain('gateway_upstream_response_seconds_bucket{pool="node",member="http://a",le="10"} 2');
    expect(text).toContain('gateway_upstream_response_seconds_bucket{pool="node",member="http://a",le="+Inf"} 3');
    expect(text).toContain('gateway_upstream_response_seconds_count{pool="node",member="http://a"} 3');
  });
});
