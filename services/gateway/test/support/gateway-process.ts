import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@bda/test-support';
import { request } from './http';

const ROOT = join(import.meta.dirname, '../../../..');
const ENTRY = join(ROOT, 'services/gateway/src/main.ts');

export interface GatewayProcess {
  port: number;
  /** The admin listener (`/metrics`), on 127.0.0.1. */
  adminPort: number;
  url: string;
  /** Every line the process wrote to stdout and stderr so far. */
  lines: string[];
  /** Parsed JSON log lines. */
  logs(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
  child: ChildProcess;
}

/**
 * Starts a real gateway process (`node --import tsx services/gateway/src/main.ts`) with the given
 * environment and waits until `/readyz` answers 200. Its whole output is kept for assertions.
 */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const port = Number(env.GATEWAY_PORT ?? (await freePort()));
  const adminPort = Number(env.GATEWAY_ADMIN_PORT ?? (await freePort()));
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      GATEWAY_WORKERS: '1',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
      GATEWAY_PORT: String(port),
      GATEWAY_ADMIN_PORT: String(adminPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.on('data', (d: Buffer) => {
      rest += d.toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts.filter((l) => l.length > 0));
    });
    stream?.on('end', () => {
      if (rest) lines.push(rest);
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + 60_000;
  const workers = Number(env.GATEWAY_WORKERS ?? 1);
  const readyLines = () => lines.filter((l) => l.includes('"msg":"gateway ready"')).length;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${lines.join('\n')}`);
    const r = await request(port, { path: '/readyz' }).catch(() => undefined);
    // With several workers, every one of them must be ready (the port answers as soon as one is).
    if (r?.status === 200 && readyLines() >= workers) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway not ready within 60 s:\n${lines.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    adminPort,
    url: `http://127.0.0.1:${port}`,
    lines,
    child,
    logs: () =>
      lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}
