import { rmSync } from 'node:fs';
import pg from 'pg';

/**
 * Removes a bench run's folder (its PostgreSQL and Kafka data, its built bundles): a full `run.ts` leaves 2–3 GB.
 * `BENCH_KEEP=1` keeps it, to look at the database or the broker's logs afterwards.
 */
export function removeBenchDir(dir: string): void {
  if (process.env.BENCH_KEEP === '1') {
    console.log(`kept ${dir}`);
    return;
  }
  rmSync(dir, { recursive: true, force: true });
}

/** `BENCH_REUSE`: the one database a kept earlier run filled (`e2e…`) on the server at `serverUrl`. */
export async function filledDatabase(serverUrl: string): Promise<string> {
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'e2e%'");
    if (rows.length !== 1) throw new Error(`BENCH_REUSE: expected one filled database, found ${rows.length}`);
    const url = new URL(serverUrl);
    url.pathname = `/${rows[0]!.datname}`;
    return url.toString();
  } finally {
    await admin.end();
  }
}
