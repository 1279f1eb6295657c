import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestartablePostgres, testInfra, expectMessage } from '@bda/test-support';
import type { RecordedEvent } from '@bda/observer';
import { replayEvents } from '../../scripts/lib/replay-events';
import type { ServiceName } from '../../scripts/lib/service-process';
import { EXPECTED_TIPS, loadFixture } from '../support/fixtures';
import { RECEIPT_TIME_COLUMNS, tableChecksums } from '../support/table-checksums';
import { TestSystem } from '../support/test-system';

/**
 * PostgreSQL — the one the indexer writes to and the api reads from — is stopped for a few seconds while a node
 * streams events, then started again on the same data directory and port. The shared test server cannot be stopped
 * (other files use it), so this file runs a PostgreSQL of its own for the systems that go through the outage.
 *
 * The stop meets work in flight on purpose: just before it, every table of the system's database is locked, so the
 * api's reads of the probed paths and the indexer's next batch are waiting inside PostgreSQL when it goes down (a
 * server lost under load; without the locks, whether a query happens to be running at that instant is luck).
 */

const FIXTURE = 'mainnet-reorg-scenario1.tsv';
/** How long PostgreSQL stays down (at least; the checks made meanwhile may stretch it). */
const OUTAGE_MS = 4_000;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The fixture's events as the replay tool reads them, pausing before the events at the given indexes: `reached(i)`
 * resolves when the replay got there (everything before it answered 200), `resume(i)` lets it go on. A paused feed
 * has no POST in flight, so PostgreSQL is never stopped in the middle of an intake request of the test's making.
 */
class PausingFeed {
  private readonly pauses = new Map<number, { reached: Deferred; resume: Deferred }>();

  constructor(
    readonly events: RecordedEvent[],
    pauseAt: number[],
  ) {
    for (const at of pauseAt) this.pauses.set(at, { reached: deferred(), resume: deferred() });
  }

  reached(at: number): Promise<void> {
    return this.pauses.get(at)!.reached.promise;
  }

  resume(at: number): void {
    this.pauses.get(at)!.resume.resolve();
  }

  resumeAll(): void {
    for (const p of this.pauses.values()) p.resume.resolve();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    for (const [i, event] of this.events.entries()) {
      const pause = this.pauses.get(i);
      if (pause) {
        pause.reached.resolve();
        await pause.resume.promise;
      }
      yield event;
    }
  }
}

/**
 * Records every exit of the named services of `sys` (an exit during the outage is a finding), with the last lines
 * the service logged.
 */
function watchExits(sys: TestSystem, names: ServiceName[]): string[] {
  const exits: string[] = [];
  for (const name of names) {
    const p = sys.procs.get(name)!;
    void p.exited.then((code) => {
      exits.push(
        `${name} exited (code ${code}, signal ${p.child.signalCode}); its last lines:\n${sys.logs
          .filter((l) => l.startsWith(name))
          .slice(-60)
          .join('\n')}`,
      );
    });
  }
  return exits;
}

function isAlive(sys: TestSystem, name: ServiceName): boolean {
  const p = sys.procs.get(name);
  return p !== undefined && p.child.exitCode === null && p.child.signalCode === null;
}

interface Answer {
  path: string;
  status: number;
  contentType: string;
  body: unknown;
  text: string;
}

/** GET `path`; no answer at all (the process is gone) is status 0. */
async function get(base: string, path: string): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(base + path);
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    return { path, status: 0, contentType: '', body: undefined, text: `no answer: ${cause?.message ?? String(err)}` };
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { path, status: res.status, contentType: res.headers.get('content-type') ?? '', body, text };
}

/** POSTs a recorded event to the observer, as the replay tool does; no answer at all is status 0. */
async function post(observerUrl: string, event: RecordedEvent): Promise<Answer> {
  const path = `POST ${event.path}`;
  try {
    const res = await fetch(observerUrl + event.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: event.body,
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { path, status: res.status, contentType: res.headers.get('content-type') ?? '', body, text };
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    return { path, status: 0, contentType: '', body: undefined, text: `no answer: ${cause?.message ?? String(err)}` };
  }
}

/** `path status` → how many times, e.g. `/extended 503: 180`. */
function countAnswers(answers: Answer[]): string {
  const seen = new Map<string, number>();
  for (const a of answers) seen.set(`${a.path} ${a.status}`, (seen.get(`${a.path} ${a.status}`) ?? 0) + 1);
  return [...seen].map(([k, n]) => `${k}: ${n}`).join(', ');
}

/** What the api answered while the database was down, kept for the report (printed once per case). */
function report(label: string, answers: Answer[]): void {
  console.log(
    `${label}:\n${answers.map((a) => `  ${a.path.startsWith('POST') ? '' : 'GET '}${a.path} → ${a.status} ${a.contentType} ${a.text.slice(0, 200)}`).join('\n')}`,
  );
}

/** The read endpoints probed during the outage: express routes, and a plain node:http route with its own pool. */
const PROBED_PATHS = ['/extended', '/extended/v2/blocks', '/extended/v1/tx/0x' + '11'.repeat(32), '/runes/v1/etchings'];

/** The probed reads answer as usual (200, or 404 for the made-up transaction). */
async function expectReadsWork(sys: TestSystem): Promise<void> {
  const statuses = await Promise.all(PROBED_PATHS.map(async (path) => [path, (await get(sys.apiUrl, path)).status]));
  expect(statuses).toEqual(PROBED_PATHS.map((path) => [path, path.includes('/tx/') ? 404 : 200]));
}

/**
 * Asserts the answer is the JSON "database unavailable" error. Soft: the case goes on, so that a failure here is
 * reported together with what became of the services and of the data.
 */
function expectUnavailable(a: Answer): void {
  expect({ path: a.path, status: a.status, json: a.contentType.startsWith('application/json'), body: a.body }).toEqual({
    path: a.path,
    status: 503,
    json: true,
    body: { error: 'service_unavailable', message: expect.any(String) },
  });
}

/**
 * Reads the probed paths over and over (one loop per path) until `stop`, across the stop and the start of
 * PostgreSQL, and keeps every answer.
 */
function keepReading(base: string): { stop(): Promise<Answer[]> } {
  let running = true;
  const answers: Answer[] = [];
  const loops = PROBED_PATHS.map(async (path) => {
    while (running) {
      answers.push(await get(base, path));
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/**
 * Each answer is what that read gives with the database there (200; 404 for the made-up transaction) or the JSON
 * "database unavailable" error: never a 500, never anything but JSON, never no answer at all. (A read waiting in
 * PostgreSQL when it stops may still be answered 200: the backend holding the locks dies first, and a waiting read
 * can get its rows out before its own backend ends.) Soft: the case goes on, so that a failure here is reported
 * together with what became of the services and of the data.
 */
function expectNormalOrUnavailable(what: string, answers: Answer[], sys: TestSystem): void {
  const odd = answers.filter((a) => {
    const normal = a.status === (a.path.includes('/tx/') ? 404 : 200);
    const unavailable = a.status === 503 && (a.body as { error?: string } | undefined)?.error === 'service_unavailable';
    return !(a.contentType.startsWith('application/json') && (normal || unavailable));
  });
  // Each kind of odd answer once (a dead api gives hundreds of the same), with how many there were.
  const kinds = new Map<string, number>();
  for (const a of odd) {
    const line = `${what}: GET ${a.path} → ${a.status} ${a.contentType} ${a.text.slice(0, 300)}`;
    kinds.set(line, (kinds.get(line) ?? 0) + 1);
  }
  // What the api logged of its failures goes with the assertion: the cause of a 500 is there.
  const apiErrors = sys.logs.filter((l) => l.startsWith('api') && /"level":(50|60)/.test(l)).map((l) => l.slice(0, 1500));
  expectMessage(`the api's error log lines:\n${apiErrors.join('\n')}`, () =>
    expect([...kinds].map(([line, n]) => `${line} (×${n})`)).toEqual([]),
  );
}

/**
 * Opens a transaction holding ACCESS EXCLUSIVE locks on every table of the `public` schema of `databaseUrl`: every
 * statement of the api and of the indexer on them waits until the transaction ends (here: until the server stops).
 * Retried when PostgreSQL picks it as a deadlock victim against a batch of the indexer.
 */
async function lockEveryTable(databaseUrl: string): Promise<pg.Client> {
  for (;;) {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'outage-test-locks' });
    client.on('error', () => {}); // the stop of the server cuts this connection too
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ list: string }>(
        `SELECT string_agg(format('%I', tablename), ', ') AS list FROM pg_tables WHERE schemaname = 'public'`,
      );
      await client.query(`LOCK TABLE ${rows[0]!.list} IN ACCESS EXCLUSIVE MODE`);
      return client;
    } catch (err) {
      await client.end().catch(() => {});
      if ((err as { code?: string }).code !== '40P01') throw err;
    }
  }
}

/** Waits until at least `n` sessions whose application name is like `pattern` wait for a lock. */
async function waitForLockWaiters(sys: TestSystem, pattern: string, n: number): Promise<void> {
  for (;;) {
    const { rows } = await sys.db.raw<{ rows: Array<{ n: number }> }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name LIKE ?`,
      [pattern],
    );
    if (rows[0]!.n >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

let server: RestartablePostgres;
beforeAll(async () => {
  server = await RestartablePostgres.create(join(import.meta.dirname, '..', '..', '.tmp', `pg-outage-${process.pid}`));
});
afterAll(async () => {
  await server?.remove();
});

describe('PostgreSQL stopped and started again under the indexer and the api, over the Kafka bus', () => {
  let outage: TestSystem;
  let steady: TestSystem;
  let feed: PausingFeed | undefined;
  const replayAbort = new AbortController();
  beforeAll(async () => {
    await server.start();
    const kafkaBrokers = testInfra().kafkaBrokers;
    outage = await TestSystem.start({
      bus: 'kafka',
      serverUrl: server.url,
      kafkaBrokers,
      services: ['indexer', 'observer', 'api'],
    });
    // Reads the same topics into the shared PostgreSQL, undisturbed: the same envelopes, so even receipt times match.
    steady = await TestSystem.start({
      bus: 'kafka',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers,
      services: ['indexer'],
      shareBusWith: outage,
    });
  });
  afterAll(async () => {
    replayAbort.abort();
    feed?.resumeAll();
    await server.start(); // a failed case may have left it stopped; the services stop more cleanly with it up
    await steady?.stop();
    await outage?.stop();
  });

  it('keeps the indexer and the api up, answers 503 JSON meanwhile, and ends with the tables of an undisturbed indexer', async () => {
    const events = loadFixture(FIXTURE);
    // PostgreSQL goes down while the stream flows: after the 40th event the tables are locked, the stream goes on
    // (over Kafka the observer does not need PostgreSQL) and the indexer's next batch waits in PostgreSQL when it
    // stops. The feed pauses at the 100th event until PostgreSQL is back.
    const [down, up] = [40, 100];
    feed = new PausingFeed(events, [down, up]);
    const exits = watchExits(outage, ['indexer', 'api', 'observer']);
    let retries = 0;
    const replay = replayEvents(feed, {
      observerUrl: outage.observerUrl,
      maxRetryMs: 120_000,
      signal: replayAbort.signal,
      onRetry: () => {
        retries += 1;
      },
    });
    void replay.catch(() => {}); // awaited below; a rejection must not go unhandled while the test waits elsewhere

    await feed.reached(down);
    // The api has read the database before the outage: its pools hold connections the stop will cut.
    await expectReadsWork(outage);
    await lockEveryTable(outage.databaseUrl);
    const cut = PROBED_PATHS.map((path) => get(outage.apiUrl, path));
    await waitForLockWaiters(outage, 'bda-api%', PROBED_PATHS.length);
    feed.resume(down);
    await waitForLockWaiters(outage, 'indexer', 1);
    const reading = keepReading(outage.apiUrl);
    await server.stop();
    const stoppedAt = Date.now();
    const cutAnswers = await Promise.all(cut);

    await feed.reached(up);
    const during: Answer[] = [];
    for (const path of PROBED_PATHS) during.push(await get(outage.apiUrl, path));
    const indexerStatus = await get(outage.indexerUrl, '/status');
    report('over the Kafka bus: reads in flight when PostgreSQL stopped', cutAnswers);
    report('over the Kafka bus: while PostgreSQL is down', [...during, indexerStatus]);
    expectNormalOrUnavailable('in flight when PostgreSQL stopped', cutAnswers, outage);
    for (const a of [...during, indexerStatus]) expectUnavailable(a);
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
    expectMessage('no service may exit while PostgreSQL is down', () => expect(exits).toEqual([]));
    expectMessage('the api is alive', () => expect(isAlive(outage, 'api')).toBe(true));

    await server.start();
    // A service that died is started again, as a supervisor would (the exit is reported above): what matters next
    // is whether anything was lost or doubled.
    for (const name of ['indexer', 'api'] as const) if (!isAlive(outage, name)) await outage.startService(name);
    feed.resume(up);
    const summary = await replay;
    expect(summary.events).toBe(events.length);
    expect(retries).toBe(0); // the observer never refused: the Kafka intake does not touch PostgreSQL

    await steady.waitForCaughtUp();
    await outage.waitForCaughtUp();
    const across = await reading.stop();
    expectNormalOrUnavailable('across the outage', across, outage);
    console.log(`reads across the outage: ${countAnswers(across)}`);
    expectMessage('some reads were answered 503', () => expect(across.some((a) => a.status === 503)).toBe(true));
    const [expected, actual] = [await tableChecksums(steady.db), await tableChecksums(outage.db)];
    expect(actual).toEqual(expected);
    expect(await outage.db('dead_letters').select('topic', 'position', 'reason')).toEqual(
      await steady.db('dead_letters').select('topic', 'position', 'reason'),
    );
    expect(Number((await outage.db('blocks').count({ n: '*' }))[0]!.n)).toBe(50);

    const tip = EXPECTED_TIPS[FIXTURE]!;
    const status = await get(outage.apiUrl, '/extended');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ chain_tip: { block_height: tip.height, index_block_hash: tip.indexBlockHash } });
    const blocks = await get(outage.apiUrl, '/extended/v2/blocks?limit=1');
    const canonical = Number((await steady.db('blocks').where({ canonical: true }).count({ n: '*' }))[0]!.n);
    expect(blocks.body).toMatchObject({
      total: canonical,
      results: [{ height: tip.height, index_block_hash: tip.indexBlockHash }],
    });
    expect(exits).toEqual([]);
  }, 180_000);
});

describe('PostgreSQL stopped and started again under the embedded PostgreSQL bus', () => {
  let outage: TestSystem;
  let clean: TestSystem;
  let feed: PausingFeed | undefined;
  const replayAbort = new AbortController();
  beforeAll(async () => {
    await server.start();
    const kafkaBrokers = testInfra().kafkaBrokers;
    outage = await TestSystem.start({
      bus: 'postgres',
      serverUrl: server.url,
      kafkaBrokers,
      services: ['indexer', 'observer', 'api'],
    });
    clean = await TestSystem.start({
      bus: 'postgres',
      serverUrl: testInfra().databaseUrl,
      kafkaBrokers,
      services: ['indexer', 'observer', 'api'],
    });
  });
  afterAll(async () => {
    replayAbort.abort();
    feed?.resumeAll();
    await server.start();
    await clean?.stop();
    await outage?.stop();
  });

  it('answers 503 while PostgreSQL is stopped, and loses nothing once it is back', async () => {
    const events = loadFixture(FIXTURE);
    // After the 60th event the tables are locked; events 60 to 69 still reach the log (not locked), and the indexer's
    // batch of them waits in PostgreSQL when it stops. The feed is paused at the 70th then: no POST is in flight.
    const [locked, down] = [60, 70];
    feed = new PausingFeed(events, [locked, down]);
    const exits = watchExits(outage, ['indexer', 'api', 'observer']);
    let retries = 0;
    const replay = replayEvents(feed, {
      observerUrl: outage.observerUrl,
      maxRetryMs: 120_000,
      signal: replayAbort.signal,
      onRetry: () => {
        retries += 1;
      },
    });
    void replay.catch(() => {});
    // The reference: the same events, replayed undisturbed into a system on the shared PostgreSQL.
    const cleanReplay = replayEvents(events, { observerUrl: clean.observerUrl, maxRetryMs: 60_000 });

    await feed.reached(locked);
    await expectReadsWork(outage);
    await lockEveryTable(outage.databaseUrl);
    const cut = PROBED_PATHS.map((path) => get(outage.apiUrl, path));
    await waitForLockWaiters(outage, 'bda-api%', PROBED_PATHS.length);
    feed.resume(locked);
    await feed.reached(down);
    await waitForLockWaiters(outage, 'indexer', 1);
    const reading = keepReading(outage.apiUrl);
    await server.stop();
    const stoppedAt = Date.now();
    const cutAnswers = await Promise.all(cut);
    // The bus lives in the stopped server: the observer cannot make an event durable and must say so.
    const refused = await post(outage.observerUrl, events[down]!);
    const during: Answer[] = [];
    for (const path of PROBED_PATHS) during.push(await get(outage.apiUrl, path));
    const indexerStatus = await get(outage.indexerUrl, '/status');
    report('over the PostgreSQL bus: reads in flight when PostgreSQL stopped', cutAnswers);
    report('over the PostgreSQL bus: while PostgreSQL is down', [refused, ...during, indexerStatus]);
    expectNormalOrUnavailable('in flight when PostgreSQL stopped', cutAnswers, outage);
    for (const a of [refused, ...during, indexerStatus]) expectUnavailable(a);

    // The replay tool keeps retrying the refused event, as a node does.
    feed.resume(down);
    while (retries < 3) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
    expectMessage('no service may exit while PostgreSQL is down', () => expect(exits).toEqual([]));
    expectMessage('the api is alive', () => expect(isAlive(outage, 'api')).toBe(true));
    expectMessage('the observer is alive', () => expect(isAlive(outage, 'observer')).toBe(true));

    await server.start();
    for (const name of ['indexer', 'observer', 'api'] as const) if (!isAlive(outage, name)) await outage.startService(name);
    const summary = await replay;
    expect(summary.events).toBe(events.length);
    expect(summary.retries).toBeGreaterThanOrEqual(3);
    expect((await cleanReplay).events).toBe(events.length);

    await clean.waitForCaughtUp();
    await outage.waitForCaughtUp();
    const across = await reading.stop();
    expectNormalOrUnavailable('across the outage', across, outage);
    console.log(`reads across the outage: ${countAnswers(across)}`);
    expectMessage('some reads were answered 503', () => expect(across.some((a) => a.status === 503)).toBe(true));
    // Nothing refused was kept and nothing accepted was lost: the log holds each event exactly once. (No POST was in
    // flight when PostgreSQL stopped, so not even a retried append whose answer was lost can explain a duplicate.)
    const schema = `bus_${outage.topicPrefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}`;
    const { rows } = await outage.db.raw<{ rows: Array<{ n: number }> }>(`SELECT count(*)::int AS n FROM ${schema}.log`);
    expect(rows).toEqual([{ n: events.length }]);

    // The reference system received the events at other moments, and in the outage system the refused events were
    // stamped when they were finally accepted: the envelopes' receipt times differ between the two logs (a second
    // system cannot share a log kept in the server being stopped). Everything else must be equal: every table, with
    // only the receipt-time columns left out, and the read endpoints' answers.
    expect(await tableChecksums(outage.db, RECEIPT_TIME_COLUMNS)).toEqual(await tableChecksums(clean.db, RECEIPT_TIME_COLUMNS));
    expect(await outage.db('dead_letters').select('topic', 'position', 'reason')).toEqual(
      await clean.db('dead_letters').select('topic', 'position', 'reason'),
    );

    const tip = EXPECTED_TIPS[FIXTURE]!;
    const status = await get(outage.apiUrl, '/extended');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ chain_tip: { block_height: tip.height, index_block_hash: tip.indexBlockHash } });
    expect(status.body).toEqual((await get(clean.apiUrl, '/extended')).body);
    for (const offset of [0, 30]) {
      const path = `/extended/v2/blocks?limit=30&offset=${offset}`;
      const [a, b] = [await get(outage.apiUrl, path), await get(clean.apiUrl, path)];
      expect({ path, status: a.status, body: a.body }).toEqual({ path, status: 200, body: b.body });
    }
    // A few transactions of canonical blocks, and some of the blocks the fork left behind (whatever the api answers for
    // those, both systems must answer the same).
    const txs = await clean.db('txs').select<Array<{ tx_id: string; canonical: boolean }>>('tx_id', 'canonical').orderBy('tx_id');
    const picked = [...txs.filter((t) => t.canonical).slice(0, 4), ...txs.filter((t) => !t.canonical).slice(0, 3)];
    expect(picked.filter((t) => !t.canonical).length).toBeGreaterThan(0);
    for (const { tx_id, canonical } of picked) {
      const path = `/extended/v1/tx/${tx_id}`;
      const [a, b] = [await get(outage.apiUrl, path), await get(clean.apiUrl, path)];
      if (canonical) expect(b.status).toBe(200);
      expect({ path, status: a.status, body: a.body }).toEqual({ path, status: b.status, body: b.body });
    }
    expect(exits).toEqual([]);
  }, 180_000);
});
