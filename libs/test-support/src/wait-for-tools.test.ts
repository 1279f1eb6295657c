import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { waitForTools } from './wait-for-tools';

describe('waitForTools', () => {
  let root: string;
  const status = (text: string) => writeFileSync(join(root, '.tmp', 'tools.status'), text);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wait-for-tools-'));
    mkdirSync(join(root, '.tmp'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('returns at once when no build is on record (a file run by hand)', async () => {
    await expect(waitForTools(root, 1_000)).resolves.toBeUndefined();
  });

  it('returns when the build ended with 0', async () => {
    status('0\n');
    await expect(waitForTools(root, 1_000)).resolves.toBeUndefined();
  });

  it('throws with the end of the log when the build failed', async () => {
    status('2\n');
    writeFileSync(join(root, '.tmp', 'tools.log'), 'go: module not found\n');
    await expect(waitForTools(root, 1_000)).rejects.toThrow(/exit 2[\s\S]*go: module not found/);
  });

  it('waits while a live process builds, and returns once it writes 0', async () => {
    status(`running ${process.pid}\n`);
    let done = false;
    const waiting = waitForTools(root, 10_000).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 1_200));
    expect(done).toBe(false);
    status('0\n');
    await waiting;
    expect(done).toBe(true);
  });

  it('gives up waiting after its timeout', async () => {
    status(`running ${process.pid}\n`);
    await expect(waitForTools(root, 600)).rejects.toThrow(/still building/);
  });

  it('returns when the build on record belongs to a process that is gone (an interrupted make test)', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    status(`running ${gone}\n`);
    await expect(waitForTools(root, 1_000)).resolves.toBeUndefined();
  });
});
