import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from '@jest/globals';
import { createTestDatabase, freePorts, testInfra } from '@bda/test-support';
import { ROOT } from '../../scripts/lib/service-process';

/** Whether anything answers on the port's health endpoint. */
async function answers(port: number): Promise<boolean> {
  try {
    await (await fetch(`http://127.0.0.1:${port}/healthz`)).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let shell: ChildProcess | undefined;
let scriptPid: number | undefined;

afterAll(() => {
  // Whatever the outcome, nothing of this test may outlive it.
  if (scriptPid && alive(scriptPid)) process.kill(scriptPid, 'SIGINT');
  shell?.kill('SIGKILL');
});

it('stops every service when the process that started it dies without passing on a signal', async () => {
  const [gateway, observer, api, indexer] = (await freePorts(4)) as [number, number, number, number];
  const databaseUrl = await createTestDatabase(testInfra().databaseUrl, 'start_script');
  // A shell that stays the script's parent (the trailing command keeps it from exec-ing node), as make does.
  shell = spawn('bash', ['-c', 'node --import tsx scripts/start.ts; true'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: '',
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(gateway),
      // The gateway's admin listener on any free port (its default, 3998, is one per host).
      GATEWAY_ADMIN_PORT: '0',
      OBSERVER_PORT: String(observer),
      API_PORT: String(api),
      INDEXER_PORT: String(indexer),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    shell!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ctrl-C stops everything')) resolve();
    });
    shell!.once('exit', (code) => reject(new Error(`start script exited (${code}) before it was running:\n${out}`)));
  });
  expect(await answers(gateway)).toBe(true);
  expect(await answers(observer)).toBe(true);
  scriptPid = Number(
    execFileSync('pgrep', ['-P', String(shell.pid)])
      .toString()
      .trim()
      .split('\n')[0],
  );
  expect(alive(scriptPid)).toBe(true);

  shell.kill('SIGKILL');

  // The script notices its parent is gone and stops the services in order, then itself.
  for (let i = 0; i < 600 && alive(scriptPid); i++) await new Promise((r) => setTimeout(r, 100));
  expect(alive(scriptPid)).toBe(false);
  for (const port of [gateway, observer, api, indexer]) expect(await answers(port)).toBe(false);
}, 120_000);
