import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { AnswerCache, answerKey } from './answer-cache';
import type { UpstreamChoice } from './choose-upstream';
import type { ForwardContext, Forwarder } from './forward';
import { SameTurnForwards, type KeptAnswers } from './same-turn-forwards';

/** A response that records what was written to it. */
function recorder() {
  const written: { status?: number; headers?: string[]; body?: Buffer } = {};
  const res = {
    destroyed: false,
    headersSent: false,
    writeHead(status: number, _text: string, headers: string[]) {
      written.status = status;
      written.headers = headers;
      this.headersSent = true;
      return this;
    },
    end(body: Buffer) {
      written.body = body;
      return this;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}

/** Which requests reached the forwarder, and with which headers. */
function upstream() {
  const sent: string[][] = [];
  const forwarder = {
    forward: (_req: unknown, _res: unknown, _url: string, _route: unknown, headers: string[]) => {
      sent.push(headers);
      return Promise.resolve();
    },
  } as unknown as Forwarder;
  const choice: UpstreamChoice = { target: 'api', forwarder, route: { retry: true, bodyLimit: 0 }, url: '/extended' };
  return { choice, sent };
}

const req = { method: 'GET', headers: {} } as unknown as IncomingMessage;
const ctx = (): ForwardContext => ({ tries: 0, responseHeaders: ['x-request-id', 'mine'] });

describe('SameTurnForwards with kept answers', () => {
  let serving: number | undefined = 3;
  const results: string[] = [];
  const setup = (storedAgoMs: number, epoch: number) => {
    const cache = new AnswerCache(1_000_000);
    cache.set(answerKey(req, '/extended'), {
      status: 200,
      statusText: 'OK',
      headers: ['content-type', 'application/json', 'x-request-id', 'upstream'],
      body: Buffer.from('{"kept":true}'),
      epoch,
      storedAt: performance.now() - storedAgoMs,
    });
    const kept: KeptAnswers = {
      cache,
      servingEpoch: () => serving,
      maxAgeMs: 5_000,
      entryMaxBytes: 1_000,
      onResult: (r) => results.push(r),
    };
    return new SameTurnForwards({ share: false, maxBytes: 1_000_000, kept });
  };

  it('writes a kept answer of the serving epoch at once, with the client’s own headers, making no forwarded headers', async () => {
    serving = 3;
    const { res, written } = recorder();
    const { choice, sent } = upstream();
    let made = 0;
    await setup(10, 3).forward(req, res, choice, () => (made++, []), ctx());
    expect(sent).toEqual([]);
    expect(made).toBe(0);
    expect(written).toEqual({
      status: 200,
      headers: ['content-type', 'application/json', 'x-request-id', 'mine'],
      body: Buffer.from('{"kept":true}'),
    });
  });

  it('forwards, asking for the epoch, when the kept answer is of another epoch or too old', async () => {
    const cases: Array<[number, number, number | undefined]> = [
      [10, 2, 3], // an older epoch than the one served
      [6_000, 3, 3], // older than GATEWAY_ANSWER_CACHE_MAX_AGE_MS
    ];
    for (const [ago, epoch, now] of cases) {
      serving = now;
      const { res, written } = recorder();
      const { choice, sent } = upstream();
      await setup(ago, epoch).forward(req, res, choice, () => ['accept', '*/*'], ctx());
      expect(written).toEqual({});
      expect(sent).toEqual([['accept', '*/*', 'x-bda-want-data-epoch', '1']]);
    }
  });

  it('forwards without asking for the epoch when the holder has no lease (nothing may be served or kept)', async () => {
    serving = undefined;
    results.length = 0;
    const { res, written } = recorder();
    const { choice, sent } = upstream();
    await setup(10, 3).forward(req, res, choice, () => ['accept', '*/*'], ctx());
    expect(written).toEqual({});
    expect(sent).toEqual([['accept', '*/*']]);
    expect(results).toEqual(['miss']);
  });

  it('neither serves nor asks for the epoch when the client wants a fresh answer', async () => {
    serving = 3;
    results.length = 0;
    const fresh = { method: 'GET', headers: { pragma: 'no-cache' } } as unknown as IncomingMessage;
    const { res, written } = recorder();
    const { choice, sent } = upstream();
    await setup(10, 3).forward(fresh, res, choice, () => [], ctx());
    expect(written).toEqual({});
    expect(sent).toEqual([[]]);
    expect(results).toEqual(['bypass']);
  });
});
