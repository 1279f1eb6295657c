import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Every gateway metric, registered once per process on the service registry. */
export function createGatewayMetrics(registry: Registry) {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'gateway_requests_total',
      help: 'Requests answered by the gateway, by target (node, api, gateway) and status code',
      labelNames: ['target', 'code'] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from request to response end, by target',
      labelNames: ['target'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
      registers,
    }),
    upstreamTries: new Counter({
      name: 'gateway_upstream_tries_total',
      help: 'Tries sent to an upstream member, by pool, member and outcome (ok, http_5xx, connect_error, timeout, reset)',
      labelNames: ['pool', 'member', 'outcome'] as const,
      registers,
    }),
    upstreamLatency: new Histogram({
      name: 'gateway_upstream_response_seconds',
      help: 'Time from sending a try to the upstream response headers, by pool and member',
      labelNames: ['pool', 'member'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    upstreamRetries: new Counter({
      name: 'gateway_upstream_retries_total',
      help: 'Tries sent again to another member, by pool',
      labelNames: ['pool'] as const,
      registers,
    }),
    upstreamEjections: new Counter({
      name: 'gateway_upstream_ejections_total',
      help: 'Passive ejections (consecutive failures), by pool and member',
      labelNames: ['pool', 'member'] as const,
      registers,
    }),
    upstreamAvailable: new Gauge({
      name: 'gateway_upstream_available',
      help: '1 when the member takes traffic (health check passing and not ejected), by pool and member',
      labelNames: ['pool', 'member'] as const,
      aggregator: 'min',
      registers,
    }),
    upstreamInFlight: new Gauge({
      name: 'gateway_upstream_in_flight',
      help: 'Tries in flight, by pool and member',
      labelNames: ['pool', 'member'] as const,
      registers,
    }),
    nodeTipHeight: new Gauge({
      name: 'gateway_node_tip_height',
      help: 'stacks_tip_height last reported by each node',
      labelNames: ['member'] as const,
      aggregator: 'max',
      registers,
    }),
    healthChecks: new Counter({
      name: 'gateway_health_checks_total',
      help: 'Active health probes, by pool, member and outcome (ok, down, lagging)',
      labelNames: ['pool', 'member', 'outcome'] as const,
      registers,
    }),
    rateLimitDecisions: new Counter({
      name: 'gateway_ratelimit_decisions_total',
      help: 'Rate-limit decisions, by tier (anonymous, key, custom) and outcome (allowed, limited)',
      labelNames: ['tier', 'outcome'] as const,
      registers,
    }),
    redisErrors: new Counter({
      name: 'gateway_ratelimit_redis_errors_total',
      help: 'Rate-limit checks that Redis failed (error, timeout, not connected)',
      registers,
    }),
    fallbackDecisions: new Counter({
      name: 'gateway_ratelimit_fallback_decisions_total',
      help: 'Rate-limit decisions taken by the local limiter because Redis failed',
      registers,
    }),
    auth: new Counter({
      name: 'gateway_auth_total',
      help: 'Key checks, by outcome (anonymous, valid, unknown, revoked, error)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    keyLookups: new Counter({
      name: 'gateway_key_lookups_total',
      help: 'Key lookups that went to PostgreSQL (cache misses)',
      registers,
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
