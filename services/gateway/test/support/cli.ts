import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../../..');
const CLI = join(ROOT, 'services/gateway/src/cli/keys.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the key CLI as `npm run keys -- …` would (a real process). */
export function runKeysCli(databaseUrl: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `create --json` and returns the key and its id. */
export async function createKeyWithCli(
  databaseUrl: string,
  args: string[],
): Promise<{ key: string; id: string; prefix: string }> {
  const r = await runKeysCli(databaseUrl, ['create', '--json', ...args]);
  if (r.code !== 0) throw new Error(`keys create failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as { key: string; id: string; prefix: string };
}
