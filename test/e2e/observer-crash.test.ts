import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testInfra, expectMessage } from '@bda/test-support';
import { createBus, TOPICS, type BusRecord } from '@bda/bus';
import { createLogger } from '@bda/common';
import { replayEvents } from '../../scripts/lib/replay-events';
import { loadFixture } from '../support/fixtures';
import { RECEIPT_TIME_COLUMNS, tableChecksums } from '../support/table-checksums';
import { TestSystem } from '../support/test-system';

/**
 * The observer answers 200 only once an event is durable on the bus, and a node retries every POST until it gets
 * 200: so an observer SIGKILLed at any moment loses nothing, and at worst publishes an event twice (its 200 was lost
 * to the crash), which the indexer must absorb. One system is fed the recorded events undisturbed; the other gets the
 * same events while its observer is killed mid-stream and restarted on the same port, again and again. Both must end
 * with the same tables and the same API answers.
 *
 * The crashed system is fed through `LossyLink`, a relay standing for the network between the node and the observer:
 * it passes every request and answer through unchanged, but can be told to kill the observer right after it
 * answered 200 and to drop that answer (the connection is reset instead). That is the one moment of a crash that
 * produces a duplicate (the event is durable, the node never learns it); a kill at a random moment rarely hits it.
 */

const logger = createLogger('observer-crash-test', 'silent');
const EVENTS = [...loadFixture('epoch-3-transition.tsv'), ...loadFixture('mainnet-reorg-scenario1.tsv')];
/** Kills at random moments, and kills that drop the 200 of a just-published event. */
const RANDOM_KILLS = 3;
const ANSWER_LOST_KILLS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The relay between the replaying "node" and the observer of the crashed system. */
class LossyLink {
  private server!: Server;
  private onNextAnswer?: () => Promise<void>;
  /** Answers 200 the observer gave that the node never received. */
  answersLost = 0;

  constructor(private readonly target: () => string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.relay(req).then(
        async (answer) => {
          if (answer && answer.status === 200 && this.onNextAnswer) {
            const hook = this.onNextAnswer;
            this.onNextAnswer = undefined;
            await hook();
            this.answersLost += 1;
            res.socket?.destroy();
            return;
          }
          if (!answer) {
            // The observer refused the connection or dropped it: the node sees its connection reset.
            res.socket?.destroy();
            return;
          }
          res.writeHead(answer.status, { 'content-type': answer.contentType });
          res.end(answer.body);
        },
        () => res.socket?.destroy(),
      );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once the next 200 was held back and `hook` (the kill) ran; the node then sees a reset connection. */
  loseNextAnswer(hook: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.onNextAnswer = () => hook().then(resolve, reject);
    });
  }

  private async relay(req: IncomingMessage): Promise<{ status: number; contentType: string; body: Buffer } | null> {
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const body = Buffer.concat(chunks);
    return new Promise((resolve) => {
      const up = request(
        `${this.target()}${req.url ?? '/'}`,
        {
          method: req.method,
          agent: false,
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json', 'content-length': body.length },
        },
        (upRes) => {
          const parts: Buffer[] = [];
          upRes.on('data', (c: Buffer) => parts.push(c));
          upRes.on('end', () =>
            resolve({
              status: upRes.statusCode ?? 0,
              contentType: upRes.headers['content-type'] ?? 'application/json',
              body: Buffer.concat(parts),
            }),
          );
          upRes.on('error', () => resolve(null));
        },
      );
      up.on('error', () => resolve(null));
      up.end(body);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Every record of the system's `stacks.node-events` topic, read from the bus itself. */
async function readNodeEventsTopic(sys: TestSystem, bus: 'kafka' | 'postgres'): Promise<BusRecord[]> {
  const b = createBus({
    kafkaBrokers: bus === 'kafka' ? testInfra().kafkaBrokers.split(',') : [],
    databaseUrl: sys.busDatabaseUrl,
    clientId: 'observer-crash-test',
    logger,
    topicPrefix: sys.topicPrefix,
  });
  try {
    const consumer = b.consumer(`reader-${randomBytes(4).toString('hex')}`);
    const head = await consumer.headPosition(TOPICS.stacksNodeEvents);
    const got: BusRecord[] = [];
    await consumer.start({
      topic: TOPICS.stacksNodeEvents,
      lastApplied: async () => got.at(-1)?.position ?? null,
      handleBatch: async (records) => {
        got.push(...records);
      },
    });
    const deadline = Date.now() + 90_000;
    while ((got.at(-1)?.position ?? -1n) < head && Date.now() < deadline) await sleep(50);
    await consumer.stop();
    return got;
  } finally {
    await b.close();
  }
}

/** An envelope as the observer wrote it (`encodeEnvelope`): path, receipt time and the body text exactly as posted. */
function splitEnvelope(value: Buffer): { path: string; receivedAt: string; body: string } {
  const text = value.toString('utf8');
  const m = /^\{"path":("(?:[^"\\]|\\.)*"),"received_at":("[^"]*"),"body":/.exec(text);
  if (!m) throw new Error(`not an envelope: ${text.slice(0, 120)}`);
  return { path: JSON.parse(m[1]!) as string, receivedAt: JSON.parse(m[2]!) as string, body: text.slice(m[0].length, -1) };
}

/**
 * Matches the records of the bus against the events the node sent: every event must be there, in order; an extra
 * record is allowed only as a repeat of the event just before it (a retry of a POST whose 200 was lost).
 */
function matchBusToEvents(records: BusRecord[]): { repeats: number; missing: string[]; unexpected: string[] } {
  let i = 0;
  let repeats = 0;
  const missing: string[] = [];
  const unexpected: string[] = [];
  const same = (r: { path: string; body: string }, k: number) => EVENTS[k]!.path === r.path && EVENTS[k]!.body === r.body;
  const skipTo = (j: number) => {
    for (; i < j; i++) missing.push(`event #${i} (${EVENTS[i]!.path})`);
  };
  for (const rec of records) {
    const r = splitEnvelope(rec.value);
    if (i < EVENTS.length && same(r, i)) i += 1;
    else if (i > 0 && same(r, i - 1)) repeats += 1;
    else {
      let j = i + 1;
      while (j < EVENTS.length && !same(r, j)) j += 1;
      if (j < EVENTS.length) {
        skipTo(j);
        i = j + 1;
      } else unexpected.push(`position ${rec.position}: ${r.path} ${r.body.slice(0, 60)}… (after event #${i - 1})`);
    }
  }
  skipTo(EVENTS.length);
  return { repeats, missing, unexpected };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies are compared whole
async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

/** The receipt time of a mempool transaction is the wall clock of the observer that received it: left out. */
function withoutReceiptTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutReceiptTimes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'receipt_time' && k !== 'receipt_time_iso')
      .map(([k, v]) => [k, withoutReceiptTimes(v)]),
  );
}

/** What the API answers about the whole chain: status, every page of blocks, a sample of transactions, the mempool. */
async function apiAnswers(sys: TestSystem, txIds: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out['/extended'] = await getJson(`${sys.apiUrl}/extended`);
  for (let offset = 0; ; offset += 30) {
    const page = await getJson(`${sys.apiUrl}/extended/v2/blocks?limit=30&offset=${offset}`);
    out[`/extended/v2/blocks?offset=${offset}`] = page;
    if (page.status !== 200 || page.body.results.length === 0 || offset > 1000) break;
  }
  // Ordered by fee, ties by tx id: an order that does not depend on receipt times.
  for (let offset = 0; ; offset += 50) {
    const page = await getJson(`${sys.apiUrl}/extended/v1/tx/mempool?order_by=fee&limit=50&offset=${offset}`);
    out[`/extended/v1/tx/mempool?offset=${offset}`] = withoutReceiptTimes(page);
    if (page.status !== 200 || page.body.results.length === 0 || offset > 5000) break;
  }
  for (const id of txIds) out[`/extended/v1/tx/${id}`] = withoutReceiptTimes(await getJson(`${sys.apiUrl}/extended/v1/tx/${id}`));
  return out;
}

async function rowCount(sys: TestSystem, table: string): Promise<number> {
  return Number((await sys.db(table).count({ n: '*' }))[0]!.n);
}

describe.each(['kafka', 'postgres'] as const)('an observer killed at random points over the %s bus', (bus) => {
  let steady: TestSystem;
  let crashy: TestSystem;
  let link: LossyLink;
  beforeAll(async () => {
    const serverUrl = testInfra().databaseUrl;
    const kafkaBrokers = testInfra().kafkaBrokers;
    const services = ['indexer', 'observer', 'api'] as const;
    [steady, crashy] = await Promise.all([
      TestSystem.start({ bus, serverUrl, kafkaBrokers, services: [...services] }),
      TestSystem.start({ bus, serverUrl, kafkaBrokers, services: [...services] }),
    ]);
    link = new LossyLink(() => crashy.observerUrl);
    await link.start();
  });
  afterAll(async () => {
    await link?.stop();
    await crashy?.stop();
    await steady?.stop();
  });

  it('ends with the tables and API answers of an uninterrupted replay when the observer is killed mid-stream', async () => {
    // The reference: the same events, nothing killed.
    const clean = await replayEvents(EVENTS, { observerUrl: steady.observerUrl, maxRetryMs: 60_000 });
    expect(clean).toMatchObject({ events: EVENTS.length, retries: 0 });

    // Kill points: distinct event counts spread over the stream, each kill either at a random moment just after
    // that many events were accepted, or on the next 200 (dropped).
    const points = new Set<number>();
    while (points.size < RANDOM_KILLS + ANSWER_LOST_KILLS) points.add(5 + Math.floor(Math.random() * (EVENTS.length - 45)));
    const modes = [
      ...Array<'random'>(RANDOM_KILLS).fill('random'),
      ...Array<'answer-lost'>(ANSWER_LOST_KILLS).fill('answer-lost'),
    ].sort(() => Math.random() - 0.5);
    const plan = [...points].sort((a, b) => a - b).map((at, k) => ({ at, mode: modes[k]! }));

    let accepted = 0;
    let replayDone = false;
    let retries = 0;
    const kills: Array<{ at: number; mode: string; acceptedAtKill: number; midReplay: boolean }> = [];
    const observerPort = crashy.ports.observer;
    const abort = new AbortController();
    const replay = replayEvents(EVENTS, {
      observerUrl: link.url,
      maxRetryMs: 120_000,
      signal: abort.signal,
      onProgress: (done) => {
        accepted = done;
      },
      onRetry: () => {
        retries += 1;
      },
    }).finally(() => {
      replayDone = true;
    });
    const killer = (async () => {
      for (const step of plan) {
        while (accepted < step.at && !replayDone) await sleep(1);
        if (replayDone) return;
        if (step.mode === 'random') {
          await sleep(Math.random() * 10);
          await crashy.killService('observer');
        } else {
          await link.loseNextAnswer(() => crashy.killService('observer'));
        }
        kills.push({ ...step, acceptedAtKill: accepted, midReplay: !replayDone });
        await crashy.startService('observer');
        // Restarted where the node (here, the link) posts: the same port.
        expect(crashy.ports.observer).toBe(observerPort);
      }
    })().catch((err: unknown) => {
      abort.abort();
      throw err;
    });
    const [summary] = await Promise.all([replay, killer]);
    const context = JSON.stringify({ plan, kills, retries, answersLost: link.answersLost });

    // The test did what it claims: every kill hit the stream while it was flowing, and the node had to retry.
    expectMessage(`events accepted: ${context}`, () => expect(summary.events).toBe(EVENTS.length));
    expectMessage(`kills mid-replay: ${context}`, () =>
      expect(kills.filter((k) => k.midReplay).length).toBe(RANDOM_KILLS + ANSWER_LOST_KILLS),
    );
    expectMessage(`answers lost: ${context}`, () => expect(link.answersLost).toBe(ANSWER_LOST_KILLS));
    expectMessage(`retries: ${context}`, () => expect(retries).toBeGreaterThanOrEqual(kills.length));

    await steady.waitForCaughtUp();
    await crashy.waitForCaughtUp();

    // The bus: every event, in order; the uninterrupted one exactly once each, the crashed one with a repeat for
    // each lost 200 and no more repeats than kills.
    const [steadyRecords, crashyRecords] = [await readNodeEventsTopic(steady, bus), await readNodeEventsTopic(crashy, bus)];
    expect(matchBusToEvents(steadyRecords)).toEqual({ repeats: 0, missing: [], unexpected: [] });
    const crashyMatch = matchBusToEvents(crashyRecords);
    expectMessage(`bus of the killed system: ${context}`, () =>
      expect({ missing: crashyMatch.missing, unexpected: crashyMatch.unexpected }).toEqual({ missing: [], unexpected: [] }),
    );
    expectMessage(`repeats on the bus: ${context}`, () => expect(crashyMatch.repeats).toBeGreaterThanOrEqual(ANSWER_LOST_KILLS));
    expectMessage(`repeats on the bus: ${context}`, () => expect(crashyMatch.repeats).toBeLessThanOrEqual(kills.length));
    expect(crashyRecords.length).toBe(EVENTS.length + crashyMatch.repeats);
    // The crashed system's indexer consumed all of it, repeats included.
    const applied = await crashy.db('consumer_positions').where({ topic: TOPICS.stacksNodeEvents }).first<{ position: string }>();
    expect(BigInt(applied!.position)).toBe(crashyRecords.at(-1)!.position);

    // Nothing failed to apply (a repeat is not an error).
    expect(await crashy.db('dead_letters').select('position', 'path', 'reason')).toEqual([]);
    expect(await steady.db('dead_letters').select('position', 'path', 'reason')).toEqual([]);

    // Same tables, row for row: counts and contents, the observer's receipt times aside.
    for (const table of ['blocks', 'txs', 'events', 'mempool_txs'])
      await expectMessage(table, async () => expect(await rowCount(steady, table)).toBeGreaterThan(0));
    expect(await rowCount(steady, 'blocks')).toBeGreaterThan(50);
    const [a, b] = [await tableChecksums(steady.db, RECEIPT_TIME_COLUMNS), await tableChecksums(crashy.db, RECEIPT_TIME_COLUMNS)];
    const counts = (sums: Record<string, string>) =>
      Object.fromEntries(Object.entries(sums).map(([t, v]) => [t, v.split(':')[0]]));
    expectMessage(`row counts: ${context}`, () => expect(counts(b)).toEqual(counts(a)));
    expectMessage(`table checksums: ${context}`, () => expect(b).toEqual(a));

    // Receipt times differ, but in each system they follow arrival order: no two mempool transactions swap places.
    const times = async (sys: TestSystem) =>
      new Map(
        (await sys.db('mempool_txs').select<Array<{ tx_id: string; receipt_time: string }>>('tx_id', 'receipt_time')).map((r) => [
          r.tx_id,
          r.receipt_time,
        ]),
      );
    const [ta, tb] = [await times(steady), await times(crashy)];
    const ids = [...ta.keys()].sort();
    const swapped: string[] = [];
    for (const x of ids) {
      for (const y of ids) {
        if (ta.get(x)! < ta.get(y)! && tb.get(x)! > tb.get(y)!) swapped.push(`${x} before ${y}`);
      }
    }
    expect(swapped).toEqual([]);

    // Same API answers: chain tip, every page of blocks, the mempool, and transactions mined and pending.
    const minedIds = (await steady.db('txs').where({ canonical: true }).distinct('tx_id').orderBy('tx_id')).map(
      (r: { tx_id: string }) => r.tx_id,
    );
    const sample = new Set([
      ...minedIds.filter((_, k) => k % Math.max(1, Math.floor(minedIds.length / 60)) === 0),
      ...ids.filter((_, k) => k % Math.max(1, Math.floor(ids.length / 30)) === 0),
    ]);
    const [apiA, apiB] = [await apiAnswers(steady, [...sample]), await apiAnswers(crashy, [...sample])];
    expect((apiA['/extended'] as { status: number }).status).toBe(200);
    expect(Object.keys(apiA).length).toBeGreaterThan(sample.size + 2);
    expect(apiB).toEqual(apiA);
  }, 300_000);
});
