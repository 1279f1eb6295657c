import { describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { createDb } from '../src/create-db';

describe('createDb', () => {
  const backendAfterIdle = async (minConnections: number) => {
    const db = createDb({
      connectionString: await createTestDatabase(testInfra().databaseUrl, 'pool'),
      maxConnections: 2,
      minConnections,
      idleTimeoutMs: 100,
    });
    try {
      const pid = async () => ((await db.raw('SELECT pg_backend_pid() AS pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid;
      const first = await pid();
      // Well past the idle timeout (tarn reaps idle connections about once a second).
      await new Promise((r) => setTimeout(r, 2_500));
      return { first, second: await pid() };
    } finally {
      await db.destroy();
    }
  };

  it('keeps its minimum of connections open however long they idle, with their sessions', async () => {
    const { first, second } = await backendAfterIdle(1);
    expect(second).toBe(first);
  });

  it('closes idle connections beyond the minimum', async () => {
    const { first, second } = await backendAfterIdle(0);
    expect(second).not.toBe(first);
  });

  describe('prepared statements on a table that grew since they were planned', () => {
    // The shape of the indexer's mempool announcement: is each id already in a canonical block?
    const planAfterGrowth = async (planCacheMode?: 'force_custom_plan') => {
      const db = createDb({
        connectionString: await createTestDatabase(testInfra().databaseUrl, 'plans'),
        maxConnections: 1,
        planCacheMode,
      });
      try {
        return await db.transaction(async (trx) => {
          await trx.raw('CREATE TABLE mined (tx_id text PRIMARY KEY, canonical boolean NOT NULL)');
          await trx.raw(`PREPARE announced(text[]) AS
            SELECT u.id, EXISTS (SELECT 1 FROM mined m WHERE m.tx_id = u.id AND m.canonical) AS mined FROM unnest($1) AS u(id)`);
          // Planned while the table is empty, as on a fresh system: after five runs the plan is cached.
          // An announcement carries tens of transactions.
          const ids = `ARRAY[${Array.from({ length: 50 }, (_, i) => `'0x${i}'`).join(', ')}]`;
          for (let i = 0; i < 8; i++) await trx.raw(`EXECUTE announced(${ids})`);
          await trx.raw("INSERT INTO mined SELECT '0x' || md5(i::text), true FROM generate_series(1, 50000) i");
          const rows = ((await trx.raw(`EXPLAIN EXECUTE announced(${ids})`)) as { rows: Array<Record<string, string>> }).rows;
          return rows.map((r) => Object.values(r)[0]).join('\n');
        });
      } finally {
        await db.destroy();
      }
    };

    it("keeps PostgreSQL's cached plan by default: every row of the grown table is read for each call", async () => {
      expect(await planAfterGrowth()).toMatch(/Seq Scan on mined/);
    });

    it('plans each execution for the table as it is with force_custom_plan: an index lookup per id', async () => {
      const plan = await planAfterGrowth('force_custom_plan');
      expect(plan).toMatch(/Index Scan using mined_pkey on mined/);
      expect(plan).not.toMatch(/Seq Scan on mined/);
    });
  });
});
