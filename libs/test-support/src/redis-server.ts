import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from './free-port';

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  /** Working directory of the server (nothing is persisted there). */
  dataDir: string;
  port?: number;
}

/**
 * Starts a real Redis from Debian's `redis-server` package (`apt-get install -y redis-server`) on
 * 127.0.0.1 with a free port, no persistence, and resolves once it answers PING.
 */
export async function startRedis(opts: StartRedisOptions): Promise<RunningRedis> {
  const port = opts.port ?? (await freePort());
  mkdirSync(opts.dataDir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    opts.dataDir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--loglevel',
    'warning',
    '--logfile',
    '',
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  const deadline = Date.now() + 15_000;
  for (;;) {
    const failure = await Promise.race([
      spawnError.then((e) =>
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error("redis-server not found: install Debian's package with `apt-get install -y redis-server`")
          : e,
      ),
      exited.then((code) => new Error(`redis-server exited with code ${code} before answering PING:\n${output}`)),
      ping(port).then((ok) => (ok ? null : undefined)),
    ]);
    if (failure === null) break;
    if (failure instanceof Error) throw failure;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING on port ${port} within 15 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => stopChild(child, exited),
  };
}

/** One PING over a raw socket; true on `+PONG`. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let data = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      data += d.toString();
      if (data.includes('\r\n')) done(data.startsWith('+PONG'));
    });
  });
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
