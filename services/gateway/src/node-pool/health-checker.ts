import type { Logger } from '@bda/common';
import type { GatewayMetrics } from '../metrics';
import type { Member, UpstreamPool } from './pool';

export interface ProbeResult {
  ok: boolean;
  /** Chain tip reported by a node (`stacks_tip_height`). */
  tip?: number;
  reason?: string;
}

export interface HealthCheckOptions {
  intervalMs: number;
  timeoutMs: number;
  /** Consecutive failed probes before a member is marked down (the first probe decides at once). */
  unhealthyThreshold: number;
  healthyThreshold: number;
  /** A member this many blocks or more behind the best tip of the round is failing (nodes only). */
  maxLagBlocks?: number;
}

/**
 * Active health checks: every interval, probes each member; a member that is down, answers badly or lags
 * more than `maxLagBlocks` behind the best tip seen in the round fails the probe.
 */
export class HealthChecker {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private rounds = 0;
  private readonly firstRound: Promise<void>;
  private resolveFirst!: () => void;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly probe: (m: Member, timeoutMs: number) => Promise<ProbeResult>,
    private readonly opts: HealthCheckOptions,
    private readonly logger: Logger,
    private readonly metrics: Pick<GatewayMetrics, 'healthChecks' | 'nodeTipHeight'>,
  ) {
    this.firstRound = new Promise((r) => (this.resolveFirst = r));
  }

  /** Resolves once every member has been probed once. */
  ready(): Promise<void> {
    return this.firstRound;
  }

  get completedRounds(): number {
    return this.rounds;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      await this.round();
      if (this.running) {
        this.timer = setTimeout(() => void loop(), this.opts.intervalMs);
        this.timer.unref();
      }
    };
    void loop();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  async round(): Promise<void> {
    const results = await Promise.all(
      this.pool.members.map((m) =>
        this.probe(m, this.opts.timeoutMs).catch((err: Error): ProbeResult => ({ ok: false, reason: err.message })),
      ),
    );
    let best: number | undefined;
    for (const r of results) if (r.ok && r.tip !== undefined && (best === undefined || r.tip > best)) best = r.tip;
    this.pool.members.forEach((m, i) => {
      const r = results[i]!;
      let passing = r.ok;
      let reason = r.reason ?? 'ok';
      let outcome = r.ok ? 'ok' : 'down';
      if (r.tip !== undefined) {
        m.tip = r.tip;
        this.metrics.nodeTipHeight.labels(m.name).set(r.tip);
      }
      const max = this.opts.maxLagBlocks;
      if (passing && max !== undefined && best !== undefined && r.tip !== undefined && best - r.tip > max) {
        passing = false;
        reason = `lagging ${best - r.tip} blocks behind the best tip ${best}`;
        outcome = 'lagging';
      }
      this.metrics.healthChecks.labels(this.pool.name, m.name, outcome).inc();
      this.record(m, passing, reason);
    });
    this.rounds++;
    if (this.rounds === 1) this.resolveFirst();
  }

  private record(m: Member, passing: boolean, reason: string): void {
    if (passing) {
      m.healthPasses++;
      m.healthFails = 0;
      if (m.health === 'unknown' || m.healthPasses >= this.opts.healthyThreshold) this.pool.setHealth(m, true, reason);
    } else {
      m.healthFails++;
      m.healthPasses = 0;
      if (m.health === 'unknown' || m.healthFails >= this.opts.unhealthyThreshold) this.pool.setHealth(m, false, reason);
    }
    if (m.health === 'unhealthy' && !passing) m.healthReason = reason;
  }
}
