/**
 * The api process with API_WORKERS=2: a node:cluster primary and two workers behind one port. Every worker answers;
 * SIGTERM stops each worker in order (HTTP intake first, then its database pools) before the primary exits 0.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createDb, migrateLatest } from '@bda/db';
import { createTestDatabase, freePort, testInfra } from '@bda/test-support';

const ROOT = join(import.meta.dirname, '../../..');

interface Line {
  pid: number;
  msg: string;
  phase?: string;
  name?: string;
  mode?: string;
  status?: number;
}

describe('api with API_WORKERS=2', () => {
  it('answers from both workers and shuts every worker down in order', async () => {
    const url = await createTestDatabase(testInfra().databaseUrl, 'api_cluster');
    const db = createDb({ connectionString: url, maxConnections: 1 });
    await migrateLatest(db);
    await db.destroy();
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services/api/src/main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: url,
        API_PORT: String(port),
        API_HOST: '127.0.0.1',
        API_WORKERS: '2',
        API_DB_POOL: '2',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Line[] = [];
    let rest = '';
    child.stdout.on('data', (d: Buffer) => {
      rest += d.toString();
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      for (const p of parts) {
        try {
          lines.push(JSON.parse(p) as Line);
        } catch {
          // not a log line
        }
      }
    });
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // Ready once both workers listen.
      const deadline = Date.now() + 60_000;
      while (lines.filter((l) => l.msg === 'api listening').length < 2) {
        if (child.exitCode !== null) throw new Error(`api exited with ${child.exitCode}`);
        if (Date.now() > deadline) throw new Error('the workers did not start within 60 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      const workers = lines.filter((l) => l.msg === 'api listening');
      expect(workers.map((l) => l.mode)).toEqual(['worker', 'worker']);
      const primary = lines.find((l) => l.msg === 'api primary started');
      expect(primary?.pid).toBe(child.pid);
      const workerPids = new Set(workers.map((l) => l.pid));
      expect(workerPids.size).toBe(2);
      expect(workerPids.has(child.pid!)).toBe(false);

      // New connections are spread over the workers (round-robin): each one answers.
      const answeredBy = new Set<number>();
      for (let i = 0; i < 20 && answeredBy.size < 2; i++) {
        const before = lines.length;
        const res = await fetch(`http://127.0.0.1:${port}/runes/v1/`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ status: 'ready', block_height: null });
        const st = await fetch(`http://127.0.0.1:${port}/extended`, { headers: { connection: 'close' } });
        expect(st.status).toBe(200);
        await st.arrayBuffer();
        // The access line of the request names the worker that served it.
        while (!lines.slice(before).some((l) => l.msg === 'request' && l.status === 200)) {
          await new Promise((r) => setTimeout(r, 20));
        }
        for (const l of lines.slice(before)) if (l.msg === 'request') answeredBy.add(l.pid);
      }
      expect(answeredBy).toEqual(workerPids);
      // Metrics answer for every worker (gathered by the primary).
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/api_http_request_duration_seconds_count\{[^}]*route="\/runes\/v1\/"/);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      for (const pid of workerPids) {
        const closed = lines.filter((l) => l.pid === pid && l.msg === 'closed').map((l) => `${l.phase}:${l.name}`);
        expect(closed.slice(0, 1)).toEqual(['intake:http']);
        expect(closed.slice(1).sort()).toEqual([
          'database:access log',
          'database:db pool',
          'database:names db pool',
          'database:runes db pool',
          'intake:live updates',
        ]);
        // Intake (the HTTP server, then the live-update listener) closes before any database pool.
        const lastIntake = Math.max(...closed.map((c, i) => (c.startsWith('intake:') ? i : -1)));
        const firstDatabase = closed.findIndex((c) => c.startsWith('database:'));
        expect(lastIntake).toBeLessThan(firstDatabase);
      }
      const order = lines.map((l) => l.msg);
      expect(order.indexOf('shutdown requested: stopping workers')).toBeLessThan(order.indexOf('closed'));
      expect(order.at(-1)).toBe('api workers stopped');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
