import http from 'node:http';
import https from 'node:https';
import type { Logger } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import { UpstreamConnections } from './upstream-connections';

export interface PoolOptions {
  /** Consecutive failures (connect error, 5xx, timeout) before a passive ejection. */
  ejectAfter: number;
  /** First ejection time; doubled on each ejection that follows closely on the last one. */
  ejectBaseMs: number;
  ejectMaxMs: number;
  /** Keep-alive sockets per member and process. */
  maxSockets: number;
  /**
   * Panic threshold, in percent of the members (Envoy's term; default 50): a passive ejection that would leave fewer
   * members available than this is refused, the last available member is never ejected on passive evidence, and
   * while fewer than this are available (active health checks took the others out) the passive ejections are
   * ignored and every member the health checks consider up takes traffic.
   */
  panicThresholdPercent?: number;
}

type HealthState = 'unknown' | 'healthy' | 'unhealthy';

/** One upstream server: a node of the pool or an api replica. */
export class Member {
  /** Origin without credentials: the label in logs and metrics. */
  readonly name: string;
  readonly hostHeader: string;
  /** node:http keep-alive agent: the health probes. */
  readonly agent: http.Agent;
  readonly request: typeof http.request;
  /** Keep-alive connections for the forwarder's tries (upstream-connections.ts, ADR 0044). */
  readonly connections: UpstreamConnections;
  /** `Basic …` from the URL's credentials, sent on every forwarded try. */
  readonly authorization: string | undefined;
  readonly hostname: string;
  readonly port: number;
  readonly auth: string | undefined;
  health: HealthState = 'unknown';
  healthReason = '';
  healthPasses = 0;
  healthFails = 0;
  consecutiveFailures = 0;
  ejections = 0;
  ejectedUntil = 0;
  /** When a refused ejection of this member was last logged. */
  refusalLoggedAt = -Infinity;
  inFlight = 0;
  tip: number | undefined;

  constructor(url: string, opts: PoolOptions) {
    const u = new URL(url);
    const tls = u.protocol === 'https:';
    this.name = `${u.protocol}//${u.host}`;
    this.hostHeader = u.host;
    this.hostname = u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(u.port || (tls ? 443 : 80));
    this.auth = u.username ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined;
    // noDelay: a proxied request or answer must not wait for Nagle's algorithm.
    const agentOpts = {
      keepAlive: true,
      noDelay: true,
      maxSockets: opts.maxSockets,
      maxFreeSockets: opts.maxSockets,
      scheduling: 'lifo' as const,
    };
    this.agent = tls ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
    this.request = tls ? https.request : http.request;
    this.authorization = this.auth === undefined ? undefined : `Basic ${Buffer.from(this.auth).toString('base64')}`;
    // Same limits as the agent: maxSockets connections, one request at a time on each (no pipelining). The time to
    // the response headers is the forwarder's (its try timeout, UPSTREAM_TRY_TIMEOUT_MS); a body silent for 300 s is
    // cut as a backstop for answers read only to be dropped.
    this.connections = new UpstreamConnections(u, { maxSockets: opts.maxSockets });
  }

  /** Takes traffic: not marked down by the health checker and not ejected. */
  available(now: number): boolean {
    return this.health !== 'unhealthy' && this.ejectedUntil <= now;
  }
}

/**
 * Members, their state and the choice of one per try: power of two choices on in-flight tries among the
 * available members not tried yet for this request (round-robin start, so idle members share evenly).
 */
export class UpstreamPool {
  readonly members: Member[];
  private rr = 0;

  constructor(
    readonly name: 'node' | 'api',
    urls: readonly string[],
    private readonly opts: PoolOptions,
    private readonly logger: Logger,
    private readonly metrics: Pick<GatewayMetrics, 'upstreamEjections' | 'upstreamEjectionsRefused'>,
  ) {
    this.members = urls.map((u) => new Member(u, opts));
    this.panicFraction = (opts.panicThresholdPercent ?? 50) / 100;
  }

  private readonly panicFraction: number;

  pick(tried?: ReadonlySet<Member>): Member | undefined {
    const now = Date.now();
    let candidates: Member[] | undefined;
    // Fast path: every member available and none tried.
    let available = 0;
    for (const m of this.members) if (m.available(now)) available++;
    if (available === this.members.length && (!tried || tried.size === 0)) candidates = this.members;
    else if (this.inPanic(available)) {
      // Panic: passive ejections are ignored; only what the active health checks took out stays out.
      candidates = this.members.filter((m) => m.health !== 'unhealthy' && !tried?.has(m));
    }
    if (!candidates) candidates = this.members.filter((m) => m.available(now) && !tried?.has(m));
    const c = candidates.length;
    if (c === 0) return undefined;
    if (c === 1) return candidates[0];
    const i = this.rr++ % c;
    if (this.rr >= 1 << 30) this.rr = 0;
    const j = (i + 1 + Math.floor(Math.random() * (c - 1))) % c;
    const a = candidates[i]!;
    const b = candidates[j]!;
    return b.inFlight < a.inFlight ? b : a;
  }

  availableCount(): number {
    const now = Date.now();
    return this.members.filter((m) => m.available(now)).length;
  }

  /** Fewer members available than the panic threshold. */
  private inPanic(available: number): boolean {
    return available / this.members.length < this.panicFraction;
  }

  reportSuccess(m: Member): void {
    m.consecutiveFailures = 0;
  }

  /**
   * A failure the member caused (connect error, reset, broken answer, 5xx, timeout: never one the client caused,
   * see forward.ts); enough in a row eject the member for a time that grows with repeats, unless that would leave
   * the pool below its panic threshold or without any available member.
   */
  reportFailure(m: Member, outcome: string): void {
    m.consecutiveFailures++;
    const now = Date.now();
    if (m.consecutiveFailures < this.opts.ejectAfter || m.ejectedUntil > now) return;
    let availableAfter = 0;
    for (const other of this.members) if (other !== m && other.available(now)) availableAfter++;
    if (availableAfter === 0 || this.inPanic(availableAfter)) {
      m.consecutiveFailures = 0;
      this.metrics.upstreamEjectionsRefused.labels(this.name, m.name).inc();
      // Logged at most once per base ejection time and member: a pool in trouble would otherwise flood the log.
      if (now - m.refusalLoggedAt >= this.opts.ejectBaseMs) {
        m.refusalLoggedAt = now;
        this.logger.warn(
          { pool: this.name, member: m.name, outcome, available: availableAfter, members: this.members.length },
          'upstream ejection refused (panic threshold)',
        );
      }
      return;
    }
    // Ejections close together grow the time; a member that stayed good for the longest time starts over.
    const sinceLast = m.ejectedUntil === 0 ? Infinity : now - m.ejectedUntil;
    m.ejections = sinceLast > this.opts.ejectMaxMs ? 1 : m.ejections + 1;
    const ms = Math.min(this.opts.ejectMaxMs, this.opts.ejectBaseMs * 2 ** (m.ejections - 1));
    m.ejectedUntil = now + ms;
    m.consecutiveFailures = 0;
    this.metrics.upstreamEjections.labels(this.name, m.name).inc();
    this.logger.warn({ pool: this.name, member: m.name, outcome, ejectedMs: ms, ejections: m.ejections }, 'upstream ejected');
  }

  /** Set by the active health checker. */
  setHealth(m: Member, healthy: boolean, reason: string): void {
    const next: HealthState = healthy ? 'healthy' : 'unhealthy';
    if (m.health === next) return;
    const prev = m.health;
    m.health = next;
    m.healthReason = reason;
    const log = { pool: this.name, member: m.name, reason, tip: m.tip };
    if (next === 'unhealthy') this.logger.warn(log, 'upstream marked down');
    else if (prev === 'unhealthy') this.logger.info(log, 'upstream back up');
  }

  destroy(): void {
    for (const m of this.members) {
      m.agent.destroy();
      m.connections.destroy();
    }
  }
}
