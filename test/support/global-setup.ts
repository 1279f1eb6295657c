import { join } from 'node:path';
import { buildAll } from '../../scripts/build.mjs';
import { setupTestInfra } from '@bda/test-support/setup';
import { ROOT } from '../../scripts/lib/service-process';

/**
 * Jest's global setup of the integration project: the real PostgreSQL, Kafka and Redis (`setupTestInfra`), and the
 * services built once into bundles (`npm run build`'s esbuild step, about a second) that every service process a
 * test starts then runs with plain node (`BDA_BUNDLE_DIR`, read by scripts/lib/service-process.ts): the artifact
 * production runs, and a process start without compiling TypeScript each time. A test that must run the sources
 * (through tsx) says so in its own spawn.
 */
export default async function setup(): Promise<void> {
  await setupTestInfra();
  try {
    process.env.BDA_BUNDLE_DIR = await buildAll(join(ROOT, '.tmp', `test-bundles-${process.pid}`));
  } catch (err) {
    // The sources still run through tsx; test/e2e/built-bundles.test.ts builds on its own and fails on this error.
    console.warn(`global setup: building the bundles failed, service processes run the sources through tsx: ${String(err)}`);
  }
}
