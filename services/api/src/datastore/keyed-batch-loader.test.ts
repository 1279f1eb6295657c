import { describe, expect, it } from '@jest/globals';
import { KeyedBatchLoader } from './keyed-batch-loader';

/** A fetch that records each batch of keys and answers `value:<key>` for keys not in `missing`. */
function recordingFetch(missing: string[] = []) {
  const batches: string[][] = [];
  const fetch = async (keys: string[]) => {
    batches.push(keys);
    return new Map(keys.filter((k) => !missing.includes(k)).map((k) => [k, `value:${k}`]));
  };
  return { batches, fetch };
}

describe('KeyedBatchLoader', () => {
  it('answers the loads of one turn with one fetch of their distinct keys', async () => {
    const { batches, fetch } = recordingFetch(['b']);
    const loader = new KeyedBatchLoader(fetch);
    const answers = await Promise.all([loader.load('a'), loader.load('b'), loader.load('a'), loader.load('c')]);
    expect(answers).toEqual(['value:a', undefined, 'value:a', 'value:c']);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('sends a load of a later turn in a batch of its own', async () => {
    const { batches, fetch } = recordingFetch();
    const loader = new KeyedBatchLoader(fetch);
    expect(await loader.load('a')).toBe('value:a');
    expect(await loader.load('b')).toBe('value:b');
    expect(batches).toEqual([['a'], ['b']]);
  });

  it('splits more keys than maxBatch into several fetches', async () => {
    const { batches, fetch } = recordingFetch();
    const loader = new KeyedBatchLoader(fetch, 2);
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((k) => loader.load(k)));
    expect(answers).toEqual(['value:a', 'value:b', 'value:c', 'value:d', 'value:e']);
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('fails every load of a batch whose fetch fails, and only that batch', async () => {
    let calls = 0;
    const loader = new KeyedBatchLoader<string>(async (keys) => {
      calls++;
      if (keys.includes('bad')) throw new Error('connection lost');
      return new Map(keys.map((k) => [k, k]));
    }, 2);
    const results = await Promise.allSettled(['bad', 'x', 'y'].map((k) => loader.load(k)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('connection lost'));
    expect(calls).toBe(2);
    // The loader keeps working after a failed batch.
    expect(await loader.load('x')).toBe('x');
  });

  it('turns a fetch that throws synchronously into rejected loads', async () => {
    const loader = new KeyedBatchLoader<string>(() => {
      throw new Error('bad statement');
    });
    await expect(loader.load('a')).rejects.toThrow('bad statement');
  });
});
