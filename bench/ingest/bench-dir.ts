import { rmSync } from 'node:fs';

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
