import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AccessWriter, type WriteFd } from './access-writer';

/** Resolves after the writer's flush of the current turn (setImmediate callbacks run in order). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function errno(code: string): Error {
  return Object.assign(new Error(code), { code });
}

/** A destination that records each write's bytes; `refuse` decides per call what happens instead of a full write. */
function recorder(refuse: (call: number, buf: Buffer) => number | Error | undefined = () => undefined) {
  const writes: string[] = [];
  let calls = 0;
  const writeFd: WriteFd = (_fd, buf) => {
    const r = refuse(calls++, buf);
    if (r instanceof Error) throw r;
    const n = r ?? buf.length;
    writes.push(buf.subarray(0, n).toString('utf8'));
    return n;
  };
  return { writes, writeFd, calls: () => calls };
}

const line = (i: number, pad = 0) => `{"n":${i},"p":"${'x'.repeat(pad)}"}\n`;

describe('AccessWriter', () => {
  it('writes the lines of one turn together after it, in order, nothing before the turn ends', async () => {
    const dest = recorder();
    const w = new AccessWriter({ fd: 99, writeFd: dest.writeFd });
    const lines = [line(1), line(2), line(3)];
    for (const l of lines) w.write(l);
    expect(dest.writes).toEqual([]);
    await nextTurn();
    expect(dest.writes).toEqual([lines.join('')]);
    w.write(line(4));
    await nextTurn();
    expect(dest.writes).toEqual([lines.join(''), line(4)]);
  });

  it('never writes more than maxWrite bytes at once, and only whole lines, counting bytes (not characters)', async () => {
    const dest = recorder();
    const w = new AccessWriter({ fd: 99, maxWrite: 100, writeFd: dest.writeFd });
    // Lines of 25 characters and 35 bytes: four would fit in 100 characters, two fit in 100 bytes.
    const lines = Array.from({ length: 7 }, (_, i) => `{"n":${i},"p":"${'é'.repeat(10)}"}\n`);
    expect([lines[0]!.length, Buffer.byteLength(lines[0]!)]).toEqual([25, 35]);
    for (const l of lines) w.write(l);
    await nextTurn();
    expect(dest.writes).toEqual([lines[0]! + lines[1]!, lines[2]! + lines[3]!, lines[4]! + lines[5]!, lines[6]!]);
  });

  it('keeps the lines a full non-blocking destination refused (EAGAIN) and writes them, in order, on a later try', async () => {
    let secondTry: () => void = () => {};
    const retried = new Promise<void>((resolve) => (secondTry = resolve));
    const dest = recorder((call) => {
      if (call === 0) return errno('EAGAIN');
      if (call === 1) secondTry();
      return undefined;
    });
    const w = new AccessWriter({ fd: 99, retryMs: 1, writeFd: dest.writeFd });
    w.write(line(1));
    w.write(line(2));
    await nextTurn();
    expect(dest.writes).toEqual([]);
    w.write(line(3)); // waits for the retry, behind the refused ones
    await retried;
    expect(dest.writes.join('')).toBe(line(1) + line(2) + line(3));
  });

  it('writes the end of a partly taken chunk first, then the lines after it', () => {
    const dest = recorder((call, buf) => (call === 0 ? Math.floor(buf.length / 2) : undefined));
    const w = new AccessWriter({ fd: 99, maxWrite: 30, writeFd: dest.writeFd });
    const lines = [line(1, 10), line(2, 10), line(3, 10)];
    for (const l of lines) w.write(l);
    w.flushSync();
    expect(dest.writes.join('')).toBe(lines.join(''));
    expect(dest.writes.length).toBe(4); // half of the first line, its other half, then one line per write
  });

  it('drops the held lines when the destination fails otherwise (EPIPE), says so once, and goes on', async () => {
    const errors: Error[] = [];
    const dest = recorder((call) => (call < 2 ? errno('EPIPE') : undefined));
    const w = new AccessWriter({ fd: 99, writeFd: dest.writeFd, onError: (err) => errors.push(err) });
    w.write(line(1));
    await nextTurn();
    w.write(line(2));
    await nextTurn();
    w.write(line(3));
    await nextTurn();
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['EPIPE']);
    expect(dest.writes).toEqual([line(3)]);
  });

  it('writes to a real file descriptor, and flushSync writes what is held at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'access-writer-'));
    try {
      const file = join(dir, 'access.log');
      const fd = openSync(file, 'a');
      const w = new AccessWriter({ fd });
      const lines = Array.from({ length: 50 }, (_, i) => line(i, 100));
      for (const l of lines) w.write(l);
      w.flushSync();
      closeSync(fd);
      expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
