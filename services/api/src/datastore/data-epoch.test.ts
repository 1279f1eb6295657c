import { describe, expect, it } from '@jest/globals';
import { LatestDataEpoch } from './data-epoch';

/** A read the test settles by hand. */
function manualReads(): { read: () => Promise<string>; pending: Array<{ resolve(v: string): void; reject(e: Error): void }> } {
  const pending: Array<{ resolve(v: string): void; reject(e: Error): void }> = [];
  return { read: () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject })), pending };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('LatestDataEpoch', () => {
  it('labels nothing until a first read has completed, and then the value of the last completed read', async () => {
    const { read, pending } = manualReads();
    const epoch = new LatestDataEpoch(read, 0);
    expect(epoch.current()).toBeUndefined();
    expect(pending).toHaveLength(1);
    // A read under way: no second one, and still nothing to label with.
    expect(epoch.current()).toBeUndefined();
    expect(pending).toHaveLength(1);
    pending[0]!.resolve('7');
    await settled();
    // The completed read's value; this call starts the next read, whose value only the calls after it see.
    expect(epoch.current()).toBe('7');
    expect(pending).toHaveLength(2);
    pending[1]!.resolve('8');
    await settled();
    expect(epoch.current()).toBe('8');
  });

  it('keeps the last value when a read fails (it was read before, which is all a label needs)', async () => {
    const { read, pending } = manualReads();
    const epoch = new LatestDataEpoch(read, 0);
    epoch.current();
    pending[0]!.resolve('5');
    await settled();
    expect(epoch.current()).toBe('5');
    pending[1]!.reject(new Error('connection lost'));
    await settled();
    expect(epoch.current()).toBe('5');
    expect(pending).toHaveLength(3);
  });

  it('starts at most one read per interval', async () => {
    const { read, pending } = manualReads();
    const epoch = new LatestDataEpoch(read, 60_000);
    epoch.current();
    pending[0]!.resolve('1');
    await settled();
    for (let i = 0; i < 10; i++) expect(epoch.current()).toBe('1');
    expect(pending).toHaveLength(1);
  });
});
