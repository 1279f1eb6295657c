import pg from 'pg';

/**
 * The bench's own view of what the indexer has applied, on a connection of its own (`application_name` bench-watch)
 * so that its backend can be left out of the PostgreSQL CPU the bench counts (`backendPid`).
 */
export class AppliedWatch {
  private constructor(
    private readonly client: pg.Client,
    readonly backendPid: number,
  ) {}

  static async open(databaseUrl: string): Promise<AppliedWatch> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-watch' });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new AppliedWatch(client, rows[0]!.pid);
  }

  /** The sum of the stored bus positions (it moves with every committed batch) and the number of blocks stored. */
  async progress(): Promise<{ positions: bigint; blocks: number }> {
    const { rows } = await this.client.query<{ positions: string; blocks: string }>(
      'SELECT (SELECT coalesce(sum(position), 0) FROM consumer_positions) AS positions, (SELECT count(*) FROM blocks) AS blocks',
    );
    return { positions: BigInt(rows[0]!.positions), blocks: Number(rows[0]!.blocks) };
  }

  /** Resolves with the time (`performance.now()`) of the first `progress()` that differs from `from`. */
  async firstProgress(from: { positions: bigint }, timeoutMs: number, pollMs = 2): Promise<{ at: number; blocks: number }> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const p = await this.progress();
      if (p.positions !== from.positions) return { at: performance.now(), blocks: p.blocks };
      await new Promise((r) => setTimeout(r, pollMs));
    }
    throw new Error(`the indexer applied nothing within ${timeoutMs} ms`);
  }

  /**
   * Waits until the indexer's stored position reaches the bus head on every topic it consumes (the heads as its
   * `/status` gives them now), polling the database every `pollMs`. Throws after `timeoutMs`.
   */
  async waitForHead(indexerUrl: string, timeoutMs: number, pollMs = 2): Promise<void> {
    const body = (await (await fetch(`${indexerUrl}/status`)).json()) as { topics: Record<string, { head: string }> };
    const targets = Object.entries(body.topics)
      .filter(([, t]) => t.head !== '-1')
      .map(([topic, t]) => [topic, BigInt(t.head)] as const);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await this.client.query<{ topic: string; position: string }>(
        'SELECT topic, position FROM consumer_positions',
      );
      const at = new Map(rows.map((r) => [r.topic, BigInt(r.position)]));
      if (targets.every(([topic, head]) => (at.get(topic) ?? -1n) >= head)) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
    throw new Error(`the indexer did not reach the bus head within ${timeoutMs} ms`);
  }

  /** PostgreSQL backends of the api (application_name bda-api…): read work, not ingestion. */
  async apiBackendPids(): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'bda-api%'",
    );
    return rows.map((r) => r.pid);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
