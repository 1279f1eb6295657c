import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * A labelled counter for the hot path: counts in a Map keyed by the label values and hands the totals to
 * prom-client when scraped (prom-client hashes and validates the labels on every `inc`).
 */
class HotCounter {
  private readonly counts = new Map<string, { values: string[]; n: number }>();
  readonly counter: Counter<string>;

  constructor(
    name: string,
    help: string,
    private readonly labelNames: readonly string[],
    registers: Registry[],
  ) {
    const counts = this.counts;
    this.counter = new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const { values, n } of counts.values()) {
          const labels: Record<string, string> = {};
          labelNames.forEach((l, i) => (labels[l] = values[i]!));
          this.inc(labels, n);
        }
      },
    });
  }

  inc(...values: string[]): void {
    const key = values.length === 1 ? values[0]! : values.join('\u0001');
    const e = this.counts.get(key);
    if (e) e.n++;
    else this.counts.set(key, { values, n: 1 });
  }
}

interface HistogramSeries {
  values: string[];
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A labelled histogram for the hot path: one Map lookup and an array increment per observation; the
 * Prometheus values (cumulative buckets, sum, count) are built when scraped. Registered on the registry as a
 * custom metric (prom-client's `Histogram` validates and hashes the labels on every observation).
 */
class HotHistogram {
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  observe(seconds: number, ...values: string[]): void {
    const key = values.length === 1 ? values[0]! : values.join('\u0001');
    let s = this.series.get(key);
    if (!s) {
      s = { values, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    let i = 0;
    while (i < this.buckets.length && seconds > this.buckets[i]!) i++;
    s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  get() {
    const out: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const s of this.series.values()) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((l, i) => (labels[l] = s.values[i]!));
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count });
      out.push({ metricName: `${this.name}_sum`, labels, value: s.sum });
      out.push({ metricName: `${this.name}_count`, labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values: out, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

/** Every gateway metric, registered once per process on the service registry. */
export function createGatewayMetrics(registry: Registry) {
  const registers = [registry];
  /** Run at each scrape, before the gauges are read (the pools' state is set into them there). */
  const beforeScrape: Array<() => void> = [];
  return {
    beforeScrape,
    requests: new HotCounter(
      'gateway_requests_total',
      'Requests answered by the gateway, by target (node, api, gateway) and status code',
      ['target', 'code'],
      registers,
    ),
    requestDuration: new HotHistogram(
      'gateway_request_duration_seconds',
      'Time from request to response end, by target',
      ['target'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
      registers,
    ),
    upstreamTries: new HotCounter(
      'gateway_upstream_tries_total',
      'Tries sent to an upstream member, by pool, member and outcome (ok, http_5xx, connect_error, timeout, reset, bad_response)',
      ['pool', 'member', 'outcome'],
      registers,
    ),
    upstreamLatency: new HotHistogram(
      'gateway_upstream_response_seconds',
      'Time from sending a try to the upstream response headers, by pool and member',
      ['pool', 'member'],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    ),
    sharedAnswers: new Counter({
      name: 'gateway_shared_answers_total',
      help: 'Requests for the api answered with the upstream answer of an identical request of the same event-loop turn',
      registers,
    }),
    answerCache: new HotCounter(
      'gateway_answer_cache_total',
      'Api reads by what the answer cache did (hit: served from memory; miss: forwarded, may be kept; bypass: the client asked for a fresh answer), and answers kept (kept)',
      ['result'],
      registers,
    ),
    answerCacheBytes: new Gauge({
      name: 'gateway_answer_cache_bytes',
      help: 'Bytes of api answers kept in memory (ADR 0048)',
      registers,
    }),
    answerFenceEpoch: new Gauge({
      name: 'gateway_answer_fence_epoch',
      help:
        'The data epoch whose kept answers this gateway serves (ADR 0048); 0 while it serves none (no lease: no indexer ' +
        'fencing, Redis away). Across workers, the lowest',
      aggregator: 'min',
      registers,
      collect() {
        for (const f of beforeScrape) f();
      },
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
    upstreamEjectionsRefused: new Counter({
      name: 'gateway_upstream_ejections_refused_total',
      help: 'Passive ejections refused because they would have left the pool below its panic threshold, by pool and member',
      labelNames: ['pool', 'member'] as const,
      registers,
    }),
    upstreamAvailable: new Gauge({
      name: 'gateway_upstream_available',
      help: '1 when the member takes traffic (health check passing and not ejected), by pool and member',
      labelNames: ['pool', 'member'] as const,
      aggregator: 'min',
      registers,
      collect() {
        for (const f of beforeScrape) f();
      },
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
    rateLimitDecisions: new HotCounter(
      'gateway_ratelimit_decisions_total',
      'Rate-limit decisions, by tier (anonymous, key, custom) and outcome (allowed, limited)',
      ['tier', 'outcome'],
      registers,
    ),
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
    auth: new HotCounter(
      'gateway_auth_total',
      'Key checks, by outcome (anonymous, valid, unknown, revoked, unavailable)',
      ['outcome'],
      registers,
    ),
    keyLookups: new Counter({
      name: 'gateway_key_lookups_total',
      help: 'Key lookups that went to PostgreSQL (cache misses)',
      registers,
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
