import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until the tools `make test` builds beside the tests (rosetta-cli, schemathesis: `make rosetta-cli
 * schemathesis`) are ready. `make test` starts both test lanes at once and builds those two meanwhile, writing
 * `.tmp/tools.status`: `running <pid>` while it builds, then the build's exit code. A test that needs a tool calls
 * this first:
 * - no status file (a test run by hand, or by jest alone): returns at once, the tool is expected to be there;
 * - `running` by a process still alive: waits for the code (at most `timeoutMs`); by a process that is gone (an
 *   interrupted `make test`): returns, as without a file;
 * - `0`: returns; any other code: throws with the end of the build's log (`.tmp/tools.log`).
 */
export async function waitForTools(root: string, timeoutMs = 900_000): Promise<void> {
  const statusFile = join(root, '.tmp', 'tools.status');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!existsSync(statusFile)) return;
    const status = readFileSync(statusFile, 'utf8').trim();
    const running = /^running (\d+)$/.exec(status);
    if (running) {
      if (!isAlive(Number(running[1]))) return;
      if (Date.now() > deadline) throw new Error(`the test tools were still building after ${timeoutMs} ms (${statusFile})`);
      await sleep(500);
      continue;
    }
    if (status === '0') return;
    const logFile = join(root, '.tmp', 'tools.log');
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '(no log)';
    throw new Error(`building the test tools failed (exit ${status}):\n${log}`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive but not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
