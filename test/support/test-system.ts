import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createDb } from '@bda/db';
import { createTestDatabase, freePorts } from '@bda/test-support';
import { startService, stopService, waitForHttp, type ServiceName, type ServiceProcess } from '../../scripts/lib/service-process';

export interface TestSystemOptions {
  bus: 'kafka' | 'postgres';
  /** URL of the PostgreSQL server (`testInfra().databaseUrl`). */
  serverUrl: string;
  kafkaBrokers: string;
  /** Services to start (default: all four). */
  services?: ServiceName[];
  /** Reuse an existing bus: same topic prefix / same bus database (two systems reading one bus). */
  shareBusWith?: TestSystem;
  /** An existing database to use instead of a new one (a bench measuring reads on a database it filled before). */
  databaseUrl?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The whole system as in production: each service its own process, real PostgreSQL and a real bus
 * (Kafka or the PostgreSQL log). Each system gets its own database and its own topic prefix.
 */
export class TestSystem {
  readonly procs = new Map<ServiceName, ServiceProcess>();
  readonly logs: string[] = [];
  ports!: Record<ServiceName, number>;
  db!: Knex;
  databaseUrl!: string;
  busDatabaseUrl!: string;
  topicPrefix!: string;

  private constructor(private readonly opts: TestSystemOptions) {}

  static async start(opts: TestSystemOptions): Promise<TestSystem> {
    const sys = new TestSystem(opts);
    await sys.init();
    return sys;
  }

  get observerUrl(): string {
    return `http://127.0.0.1:${this.ports.observer}`;
  }
  get apiUrl(): string {
    return `http://127.0.0.1:${this.ports.api}`;
  }
  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.ports.gateway}`;
  }
  get indexerUrl(): string {
    return `http://127.0.0.1:${this.ports.indexer}`;
  }

  private async init(): Promise<void> {
    this.databaseUrl = this.opts.databaseUrl ?? (await createTestDatabase(this.opts.serverUrl, 'e2e'));
    this.busDatabaseUrl = this.opts.shareBusWith?.busDatabaseUrl ?? this.databaseUrl;
    this.topicPrefix = this.opts.shareBusWith?.topicPrefix ?? `t${randomBytes(4).toString('hex')}.`;
    this.db = createDb({ connectionString: this.databaseUrl, maxConnections: 4 });
    const [observer, indexer, api, gateway] = await freePorts(4);
    this.ports = { observer: observer!, indexer: indexer!, api: api!, gateway: gateway! };
    const wanted = this.opts.services ?? ['indexer', 'observer', 'api', 'gateway'];
    // The indexer first: it runs the migrations.
    if (wanted.includes('indexer')) await this.startService('indexer');
    await Promise.all(wanted.filter((s) => s !== 'indexer' && s !== 'gateway').map((s) => this.startService(s)));
    if (wanted.includes('gateway')) await this.startService('gateway');
  }

  envFor(name: ServiceName): NodeJS.ProcessEnv {
    const kafka = this.opts.bus === 'kafka' ? this.opts.kafkaBrokers : '';
    const common = {
      DATABASE_URL: this.databaseUrl,
      BUS_DATABASE_URL: this.busDatabaseUrl,
      KAFKA_BROKERS: kafka,
      BUS_TOPIC_PREFIX: this.topicPrefix,
      LOG_LEVEL: 'info',
      // One api process: a 2-core test machine gains nothing from a worker per CPU (API_WORKERS).
      API_WORKERS: '1',
      ...this.opts.env,
    };
    switch (name) {
      case 'observer':
        return {
          // Bounded staleness as `make start` runs it (ADR 0015), when this system has an indexer to ask.
          ...((this.opts.services ?? ['indexer']).includes('indexer') ? { OBSERVER_INDEXER_URL: this.indexerUrl } : {}),
          ...common,
          OBSERVER_PORT: String(this.ports.observer),
          OBSERVER_HOST: '127.0.0.1',
        };
      case 'indexer':
        return {
          ...common,
          INDEXER_PORT: String(this.ports.indexer),
          INDEXER_GROUP_ID: `indexer-${this.topicPrefix}${this.ports.indexer}`,
          INDEXER_KAFKA_SESSION_TIMEOUT_MS: '6000',
        };
      case 'api':
        return { ...common, API_PORT: String(this.ports.api), API_HOST: '127.0.0.1' };
      case 'gateway':
        return {
          ...common,
          GATEWAY_PORT: String(this.ports.gateway),
          // Its admin listener (/metrics) on any free port unless the test names one: the default (3998) is one per host.
          GATEWAY_ADMIN_PORT: this.opts.env?.GATEWAY_ADMIN_PORT ?? '0',
          HOST: '127.0.0.1',
          GATEWAY_WORKERS: '1',
          API_URLS: this.apiUrl,
          NODE_RPC_URLS: 'http://127.0.0.1:9',
        };
    }
  }

  private healthUrl(name: ServiceName): string {
    return `http://127.0.0.1:${this.ports[name]}/${name === 'indexer' ? 'readyz' : 'healthz'}`;
  }

  async startService(name: ServiceName): Promise<void> {
    const p = startService(name, this.envFor(name), (n, line) => {
      this.logs.push(`${n} ${line}`);
      if (this.logs.length > 5000) this.logs.splice(0, 1000);
    });
    this.procs.set(name, p);
    try {
      await waitForHttp(this.healthUrl(name), 120_000, () => p.child.exitCode === null && p.child.signalCode === null);
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\n${this.logs
          .filter((l) => l.startsWith(name))
          .slice(-30)
          .join('\n')}`,
      );
    }
  }

  /** SIGKILL: no shutdown code runs (a crash). */
  async killService(name: ServiceName): Promise<void> {
    const p = this.procs.get(name);
    if (!p) return;
    p.child.kill('SIGKILL');
    await p.exited;
    this.procs.delete(name);
  }

  async stopService(name: ServiceName): Promise<void> {
    const p = this.procs.get(name);
    if (!p) return;
    await stopService(p);
    this.procs.delete(name);
  }

  /**
   * Waits until the indexer has applied everything on the bus: lag 0 on every topic it consumes
   * (`stacks.node-events`, `bitcoin.blocks`), and something arrived on at least one of them.
   */
  async waitForCaughtUp(timeoutMs = 120_000, pollMs = 100): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        const body = (await (await fetch(`${this.indexerUrl}/status`)).json()) as {
          topics: Record<string, { applied: string | null; head: string; lag: string }>;
        };
        const topics = Object.values(body.topics);
        last = JSON.stringify(body.topics);
        if (topics.length > 0 && topics.every((t) => t.lag === '0') && topics.some((t) => t.head !== '-1')) return;
      } catch {
        // the indexer may be restarting
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
    throw new Error(`indexer did not catch up within ${timeoutMs} ms (last status ${last})`);
  }

  /**
   * Like `waitForCaughtUp`, for benches: asks the indexer for the bus head once, then watches the stored positions in
   * the database. `/status` asks the bus for its head on every call, which, polled every few milliseconds, costs the
   * indexer a measurable share of the CPU it is being timed on.
   */
  async waitForAppliedFromDb(timeoutMs = 120_000, pollMs = 2): Promise<void> {
    const body = (await (await fetch(`${this.indexerUrl}/status`)).json()) as {
      topics: Record<string, { head: string }>;
    };
    const targets = Object.entries(body.topics)
      .filter(([, t]) => t.head !== '-1')
      .map(([topic, t]) => [topic, BigInt(t.head)] as const);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const rows = await this.db('consumer_positions').select<Array<{ topic: string; position: string }>>('topic', 'position');
      const at = new Map(rows.map((r) => [r.topic, BigInt(r.position)]));
      if (targets.every(([topic, head]) => (at.get(topic) ?? -1n) >= head)) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
    throw new Error(`indexer did not reach the bus head within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    for (const name of ['gateway', 'observer', 'api', 'indexer'] as ServiceName[]) await this.stopService(name);
    await this.db.destroy();
  }
}
