import { join, resolve } from 'node:path';
import { buildAll } from '../../scripts/build.mjs';

/**
 * Builds the services into `<tmp>/dist` and makes every service the bench starts run that bundle with plain node, as
 * `make start` and the image run them (`BDA_BUNDLE_DIR`), unless `sources` asks for the TypeScript sources through
 * tsx (the tests' way), or `BENCH_BUNDLE=<dir>` names a bundle built before (another commit's, for a baseline in the
 * same sitting: `scripts/bundle-at.sh <commit> <dir>`). Returns what the figures were measured on, for the printout.
 */
export async function useBuiltServices(tmp: string, sources: boolean): Promise<string> {
  if (sources) {
    delete process.env.BDA_BUNDLE_DIR;
    return 'the services from their sources (tsx)';
  }
  const given = process.env.BENCH_BUNDLE;
  if (given) {
    process.env.BDA_BUNDLE_DIR = resolve(given);
    return `the bundle in ${given} (BENCH_BUNDLE)`;
  }
  const outdir = await buildAll(join(tmp, 'dist'));
  process.env.BDA_BUNDLE_DIR = outdir;
  return 'the built services (as make start runs them)';
}
