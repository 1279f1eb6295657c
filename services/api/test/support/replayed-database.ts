/**
 * Databases holding a recorded fixture as the real system indexed it, for tests of read endpoints.
 *
 * The first time a run asks for a fixture, it is replayed through the real observer and indexer (each its own
 * process, on the PostgreSQL-backed bus, as in production) into a database of its own; that database then becomes a
 * template, and every caller gets a fresh copy of it (`CREATE DATABASE … TEMPLATE`, a file copy taking milliseconds).
 * A test file may write to its copy freely. The replay itself is the system under test of the e2e suite
 * (test/e2e/fixture-replay.test.ts checks what it leaves behind); here it is only done once per run and fixture.
 *
 * Templates are named after the run (`testInfra().runId`), so a run never reuses another run's indexing, even on a
 * long-lived server given in DATABASE_URL. Jest runs integration files one at a time; an advisory lock still keeps
 * two callers from replaying the same fixture at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, freePorts, testInfra } from '@bda/test-support';
import { replayEvents } from '../../../../scripts/lib/replay-events';
import {
  ROOT,
  startService,
  stopService,
  waitForHttp,
  type ServiceName,
  type ServiceProcess,
} from '../../../../scripts/lib/service-process';

const FIXTURE_DIR = join(ROOT, 'test', 'fixtures', 'stacks-node-events');

/** A recorded node event: one line of a fixture file. */
export interface RecordedEvent {
  id: string;
  receivedAt: string;
  path: string;
  body: string;
}

/** All events of a recorded fixture file, in order (format: its PROVENANCE.md). */
export function loadRecordedEvents(name: string): RecordedEvent[] {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const cols = line.split('\t');
      return { id: cols[0]!, receivedAt: cols[1]!, path: cols[2]!, body: cols.slice(3).join('\t') };
    });
}

/** Name of the run's template database for `fixture` (at most 63 bytes, as PostgreSQL allows). */
function templateName(fixture: string): string {
  const digest = createHash('sha256').update(fixture).digest('hex').slice(0, 8);
  const readable = fixture
    .replace(/\.tsv$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  return `tpl_${testInfra().runId}_${readable}_${digest}`;
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(serverUrl);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The URL of a new database on the server of `serverUrl` holding everything the indexer wrote for the recorded
 * `fixture` (a file of test/fixtures/stacks-node-events/), replayed in id order: migrated, at the fixture's tip.
 */
export async function replayedDatabase(serverUrl: string, fixture: string): Promise<string> {
  const template = templateName(fixture);
  return withAdmin(serverUrl, async (admin) => {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount === 0) {
        const work = await createTestDatabase(serverUrl, 'replay');
        await replayInto(work, fixture);
        await admin.query(`ALTER DATABASE ${new URL(work).pathname.slice(1)} RENAME TO ${template}`);
      }
      const copy = `fx_${randomBytes(5).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${template}`);
      return withDatabase(serverUrl, copy);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
  });
}

/** Replays `fixture` through an indexer and an observer on `databaseUrl` (its own bus), then stops both. */
async function replayInto(databaseUrl: string, fixture: string): Promise<void> {
  const [observerPort, indexerPort] = (await freePorts(2)) as [number, number];
  const prefix = `r${randomBytes(4).toString('hex')}.`;
  const common = {
    DATABASE_URL: databaseUrl,
    BUS_DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: '',
    BUS_TOPIC_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    // The template is the data as indexed, whatever Redis the test run has: its indexer does not fence (ADR 0048).
    REDIS_URL: '',
  };
  const logs: string[] = [];
  const procs: ServiceProcess[] = [];
  const start = async (name: ServiceName, env: NodeJS.ProcessEnv, health: string) => {
    const p = startService(name, env, (n, line) => {
      logs.push(`${n} ${line}`);
      if (logs.length > 2000) logs.splice(0, 500);
    });
    procs.push(p);
    await waitForHttp(health, 120_000, () => p.child.exitCode === null && p.child.signalCode === null);
  };
  try {
    const indexerUrl = `http://127.0.0.1:${indexerPort}`;
    await start(
      'indexer',
      { ...common, INDEXER_PORT: String(indexerPort), INDEXER_GROUP_ID: `indexer-${prefix}` },
      `${indexerUrl}/readyz`,
    );
    const observerUrl = `http://127.0.0.1:${observerPort}`;
    await start(
      'observer',
      { ...common, OBSERVER_PORT: String(observerPort), OBSERVER_HOST: '127.0.0.1', OBSERVER_INDEXER_URL: indexerUrl },
      `${observerUrl}/healthz`,
    );
    await replayEvents(loadRecordedEvents(fixture), { observerUrl, maxRetryMs: 30_000 });
    await waitForApplied(indexerUrl);
  } catch (err) {
    throw new Error(`replaying ${fixture} failed: ${(err as Error).message}\n${logs.slice(-30).join('\n')}`);
  } finally {
    // Observer first (intake), then the indexer: the template must have no connections left.
    for (const p of procs.reverse()) await stopService(p);
  }
}

/** Until the indexer's `/status` shows lag 0 on every topic it consumes, with something applied. */
async function waitForApplied(indexerUrl: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const body = (await (await fetch(`${indexerUrl}/status`)).json()) as {
        topics: Record<string, { head: string; lag: string }>;
      };
      const topics = Object.values(body.topics);
      last = JSON.stringify(body.topics);
      if (topics.length > 0 && topics.every((t) => t.lag === '0') && topics.some((t) => t.head !== '-1')) return;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`indexer did not catch up within ${timeoutMs} ms (last status ${last})`);
}
