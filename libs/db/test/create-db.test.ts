import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '@bda/test-support';
import { createDb } from '../src/create-db';

describe('createDb', () => {
  const backendAfterIdle = async (minConnections: number) => {
    const db = createDb({
      connectionString: await createTestDatabase(inject('databaseUrl'), 'pool'),
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
});
