import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { AnswerCache, AnswerKeeper, answerKey, wantsFresh } from './answer-cache';

const answer = (body: string, epoch = 1) => ({
  status: 200,
  statusText: 'OK',
  headers: ['content-type', 'application/json'],
  body: Buffer.from(body),
  epoch,
  storedAt: 0,
});
/** What one entry counts: 200 of overhead, the key, the body, the status text, the header names and values. */
const cost = (key: string, body: string) =>
  200 + key.length + body.length + 'OK'.length + 'content-type'.length + 'application/json'.length;

const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;

describe('AnswerCache', () => {
  it('counts its bytes and lets the least recently used go first', () => {
    const seen: number[] = [];
    const cache = new AnswerCache(cost('a', 'x'.repeat(100)) * 2 + 10, (b) => seen.push(b));
    cache.set('a', answer('x'.repeat(100)));
    cache.set('b', answer('y'.repeat(100)));
    expect(cache.bytes).toBe(cost('a', 'x'.repeat(100)) * 2);
    cache.get('a'); // now b is the least recently used
    cache.set('c', answer('z'.repeat(100)));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.body.toString()).toBe('x'.repeat(100));
    expect(cache.get('c')?.body.toString()).toBe('z'.repeat(100));
    expect(cache.count).toBe(2);
    cache.clear();
    expect(cache.bytes).toBe(0);
    expect(seen[seen.length - 1]).toBe(0);
  });

  it('replaces an entry under the same key and keeps nothing larger than itself', () => {
    const cache = new AnswerCache(1000);
    cache.set('a', answer('1'));
    cache.set('a', answer('22'));
    expect(cache.count).toBe(1);
    expect(cache.bytes).toBe(cost('a', '22'));
    cache.set('big', answer('x'.repeat(1000)));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')?.body.toString()).toBe('22');
    cache.delete('a');
    expect(cache.bytes).toBe(0);
  });

  it('admits a key from its second miss on, one let go at once, and forgets the misses when emptied', () => {
    const cache = new AnswerCache(1000);
    expect([cache.admits('a'), cache.admits('a'), cache.admits('a')]).toEqual([false, true, true]);
    // An answer kept, then let go (too old, another epoch): its key was read before, it is admitted at once.
    cache.set('b', answer('1'));
    expect(cache.admits('b')).toBe(true);
    cache.delete('b');
    expect(cache.admits('b')).toBe(true);
    // A fence empties the cache: every key starts over.
    cache.clear();
    expect([cache.admits('a'), cache.admits('b')]).toEqual([false, false]);
  });
});

describe('answerKey and wantsFresh', () => {
  it('tells reads apart by method, target, validator, Cache-Control and Accept-Encoding only', () => {
    const base = answerKey(req('GET', { accept: 'a' }), '/x');
    expect(answerKey(req('GET', { accept: 'b', 'user-agent': 'u' }), '/x')).toBe(base);
    expect(answerKey(req('HEAD', {}), '/x')).not.toBe(base);
    expect(answerKey(req('GET', {}), '/y')).not.toBe(base);
    expect(answerKey(req('GET', { 'if-none-match': 'W/"1"' }), '/x')).not.toBe(base);
    expect(answerKey(req('GET', { 'cache-control': 'max-age=0' }), '/x')).not.toBe(base);
    expect(answerKey(req('GET', { 'accept-encoding': 'gzip' }), '/x')).not.toBe(base);
  });

  it('sees a client asking for a fresh answer', () => {
    expect(wantsFresh(req('GET', {}))).toBe(false);
    expect(wantsFresh(req('GET', { 'cache-control': 'max-age=60' }))).toBe(false);
    expect(wantsFresh(req('GET', { 'cache-control': 'No-Cache' }))).toBe(true);
    expect(wantsFresh(req('GET', { 'cache-control': 'max-age=0, no-store' }))).toBe(true);
    expect(wantsFresh(req('GET', { pragma: 'no-cache' }))).toBe(true);
  });
});

describe('AnswerKeeper', () => {
  let serving: number | undefined = 5;
  const keep = (cache: AnswerCache, status: number, headers: string[], epoch: string | undefined, chunks: string[]) => {
    const k = new AnswerKeeper(cache, 'k', { entryMaxBytes: 10, servingEpoch: () => serving });
    k.head(status, 'S', headers, epoch);
    for (const c of chunks) k.data(Buffer.from(c));
    k.end();
    return cache.get('k');
  };

  it('keeps a whole answer of the serving epoch, its body joined', () => {
    serving = 5;
    const kept = keep(new AnswerCache(10_000), 200, ['etag', 'W/"5"'], '5', ['abc', 'def']);
    expect(kept).toMatchObject({ status: 200, statusText: 'S', headers: ['etag', 'W/"5"'], epoch: 5 });
    expect(kept?.body.toString()).toBe('abcdef');
    // A 304 and a 404 are answers of their epoch too.
    expect(keep(new AnswerCache(10_000), 304, [], '5', [])?.status).toBe(304);
    expect(keep(new AnswerCache(10_000), 404, [], '5', ['{}'])?.status).toBe(404);
  });

  it('keeps nothing that may not be kept', () => {
    serving = 5;
    const none = (status: number, headers: string[], epoch: string | undefined, chunks: string[]) =>
      expect(keep(new AnswerCache(10_000), status, headers, epoch, chunks)).toBeUndefined();
    none(503, [], '5', ['x']);
    none(200, [], undefined, ['x']);
    none(200, [], 'abc', ['x']);
    none(200, [], '4', ['x']);
    none(200, ['Set-Cookie', 'a=b'], '5', ['x']);
    none(200, ['Cache-Control', 'max-age=5, private'], '5', ['x']);
    none(200, ['cache-control', 'no-store'], '5', ['x']);
    none(200, [], '5', ['123456', '78901']); // 11 bytes, over the entry limit of 10
    serving = undefined;
    none(200, [], '5', ['x']);
  });

  it('compares the epoch when the answer is complete, not when it began', () => {
    serving = 5;
    const cache = new AnswerCache(10_000);
    const k = new AnswerKeeper(cache, 'k', { entryMaxBytes: 10, servingEpoch: () => serving });
    k.head(200, 'OK', [], '5');
    k.data(Buffer.from('x'));
    serving = 6; // a fence came while the body was on its way
    k.end();
    expect(cache.get('k')).toBeUndefined();
  });
});
