import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** Entry point of each service (run with tsx, as separate processes, unless a built bundle is asked for). */
export const SERVICE_ENTRY = {
  observer: 'services/observer/src/main.ts',
  indexer: 'services/indexer/src/main.ts',
  api: 'services/api/src/main.ts',
  gateway: 'services/gateway/src/main.ts',
} as const;

export type ServiceName = keyof typeof SERVICE_ENTRY;

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * Starts one service as its own process. Its JSON log lines go to `onLine` (default: stdout with a
 * name prefix).
 */
export function startService(
  name: ServiceName,
  env: NodeJS.ProcessEnv,
  onLine: (name: ServiceName, line: string) => void = (n, l) => process.stdout.write(`${n.padEnd(8)} | ${l}\n`),
  /** In a process group of its own: a terminal's Ctrl-C reaches only the parent, which stops it in order. */
  detached = false,
): ServiceProcess {
  // BDA_NODE_ARGS: extra node flags for every service, e.g. `--cpu-prof --cpu-prof-dir=.tmp/prof` (profiling a
  // run; node refuses those in NODE_OPTIONS).
  const nodeArgs = (env.BDA_NODE_ARGS ?? process.env.BDA_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  // BDA_BUNDLE_DIR: run the built bundle (`npm run build`) with plain node instead of the sources through tsx.
  const bundleDir = env.BDA_BUNDLE_DIR ?? process.env.BDA_BUNDLE_DIR;
  const program = bundleDir
    ? ['--enable-source-maps', join(bundleDir, `${name}.mjs`)]
    : ['--import', 'tsx', join(ROOT, SERVICE_ENTRY[name])];
  const child = spawn(process.execPath, [...nodeArgs, ...program], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => onLine(name, line));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, child, exited };
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopService(p: ServiceProcess, graceMs = 15_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200. */
export async function waitForHttp(url: string, timeoutMs = 60_000, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process behind ${url} exited before it was ready`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}
