/**
 * `npm run build`: one ES module per service and command under `dist/`, run with plain node (no TypeScript at run
 * time). The project's own packages (`@bda/*`, TypeScript sources) are bundled in; every other package stays an
 * import from node_modules, so native and optional dependencies (pg, kafkajs, knex's dialects) load as they always
 * do. Source maps point stack traces at the sources (`node --enable-source-maps`).
 *
 *   node scripts/build.mjs [--outdir dist]
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');

/** Output name → entry point. */
export const BUILD_ENTRIES = {
  observer: 'services/observer/src/main.ts',
  indexer: 'services/indexer/src/main.ts',
  api: 'services/api/src/main.ts',
  gateway: 'services/gateway/src/main.ts',
  'import-events': 'services/observer/src/cli/import.ts',
  keys: 'services/gateway/src/cli/keys.ts',
};

/** Bare imports other than the workspace's own packages are left to node. */
const externalDependencies = {
  name: 'external-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@bda/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

export async function buildAll(outdir = join(ROOT, 'dist')) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(BUILD_ENTRIES).map(([name, entry]) => [name, join(ROOT, entry)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    plugins: [externalDependencies],
    logLevel: 'warning',
  });
  return outdir;
}

// No top-level await: the test setup loads this module through require() (test/support/global-setup.ts).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  const started = Date.now();
  void buildAll(values.outdir ? join(process.cwd(), values.outdir) : undefined).then((outdir) => {
    console.log(`built ${Object.keys(BUILD_ENTRIES).join(', ')} into ${outdir} in ${Date.now() - started} ms`);
  });
}
