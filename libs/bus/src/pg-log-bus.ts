import { gzip as gzipCb, gunzip as gunzipCb } from 'node:zlib';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from 'pino';
import {
  BusUnavailableError,
  type Bus,
  type BusConsumer,
  type BusProducer,
  type BusRecord,
  type ConsumeOptions,
  type OutgoingRecord,
} from './bus';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

export interface PgLogBusOptions {
  /** PostgreSQL connection URL of the database holding the log. */
  connectionString: string;
  logger: Logger;
  /** Schema of the log table (created on `ensureTopics`). */
  schema?: string;
  /** How often a consumer polls when no notification arrives (ms). */
  pollIntervalMs?: number;
  /** Pool size for producers. */
  maxConnections?: number;
}

/**
 * The embedded default bus: a durable, ordered log in PostgreSQL.
 *
 * Positions come from a sequence, drawn while holding a per-topic transaction-level advisory lock,
 * so positions become visible in increasing order (no record can appear later *behind* one already
 * read). Payloads are gzip-compressed `bytea`, so bodies with `\u0000` escapes and blocks of tens of MB
 * are stored as they came. Consumers poll and are woken by `NOTIFY`.
 */
export class PgLogBus implements Bus {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly schema: string;
  private readonly table: string;

  constructor(private readonly opts: PgLogBusOptions) {
    this.schema = opts.schema ?? 'bus';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.schema)) throw new Error(`invalid bus schema name "${this.schema}"`);
    this.table = `${this.schema}.log`;
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: opts.maxConnections ?? 10,
      connectionTimeoutMillis: 5_000,
    });
    this.pool.on('error', (err) => opts.logger.warn({ err }, 'bus pool connection error'));
  }

  async ensureTopics(_topics: string[]): Promise<void> {
    const client = await this.pool.connect();
    // A checked-out client's errors reach nobody else (see the api's runes pool): a connection lost here must fail
    // this call, not the process.
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${this.table}:ddl`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.table} (
          topic text NOT NULL,
          position bigint NOT NULL,
          key text NOT NULL,
          value bytea NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (topic, position)
        )`);
      await client.query(`CREATE SEQUENCE IF NOT EXISTS ${this.schema}.log_position`);
      // One round trip per publish: lock the topic, draw positions, insert, notify, all in the statement's
      // own transaction (the lock is held until it commits, so positions become visible in order).
      await client.query(`
        CREATE OR REPLACE FUNCTION ${this.schema}.append(p_topic text, p_channel text, p_keys text[], p_values bytea[])
        RETURNS void LANGUAGE plpgsql AS $fn$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext('${this.table}:' || p_topic));
          INSERT INTO ${this.table} (topic, position, key, value)
          SELECT p_topic, nextval('${this.schema}.log_position'), k, v
          FROM unnest(p_keys, p_values) WITH ORDINALITY AS t(k, v, ord) ORDER BY ord;
          PERFORM pg_notify(p_channel, '');
        END
        $fn$`);
      await client.query(
        `COMMENT ON TABLE ${this.table} IS 'The embedded bus: one ordered log per topic; value is a gzip-compressed envelope'`,
      );
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`${this.table}:ddl`]);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  producer(): BusProducer {
    return new PgLogProducer(this.pool, this.schema, this.opts.logger);
  }

  consumer(_groupId: string): BusConsumer {
    return new PgLogConsumer(this.pool, this.opts, this.table);
  }

  async lastRecord(topic: string): Promise<BusRecord | null> {
    let rows: Array<{ position: string; key: string; value: Buffer }>;
    try {
      ({ rows } = await this.pool.query<{ position: string; key: string; value: Buffer }>(
        `SELECT position, key, value FROM ${this.table} WHERE topic = $1 ORDER BY position DESC LIMIT 1`,
        [topic],
      ));
    } catch (err) {
      // Like Kafka's missing topic: a log nobody created yet is empty.
      if ((err as { code?: string }).code === '42P01') return null;
      throw new BusUnavailableError(`cannot read the bus log: ${(err as Error).message}`, { cause: err });
    }
    const row = rows[0];
    return row ? { topic, position: BigInt(row.position), key: row.key, value: await gunzip(row.value) } : null;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function channelFor(topic: string): string {
  return `bus_${topic.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

class PgLogProducer implements BusProducer {
  private healthy = true;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly logger: Logger,
  ) {}

  async connect(): Promise<void> {
    const client = await this.pool.connect().catch((err: unknown) => {
      this.healthy = false;
      throw new BusUnavailableError('cannot reach the PostgreSQL bus', { cause: err });
    });
    client.release();
    this.healthy = true;
  }

  async publish(topic: string, records: OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    const compressed = await Promise.all(records.map((m) => gzip(m.value, { level: 1 })));
    try {
      await this.pool.query(`SELECT ${this.schema}.append($1, $2, $3, $4)`, [
        topic,
        channelFor(topic),
        records.map((m) => m.key),
        compressed,
      ]);
      this.healthy = true;
    } catch (err) {
      this.healthy = false;
      this.logger.warn({ err, topic }, 'bus publish failed');
      throw new BusUnavailableError('the PostgreSQL bus did not accept the message', { cause: err });
    }
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  async disconnect(): Promise<void> {}
}

class PgLogConsumer implements BusConsumer {
  private running = false;
  private loop?: Promise<void>;
  private listener?: pg.Client;
  private wake?: () => void;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: PgLogBusOptions,
    private readonly table: string,
  ) {}

  async start(options: ConsumeOptions): Promise<void> {
    if (this.running) throw new Error('consumer already started');
    this.running = true;
    await this.listen(options.topic);
    this.loop = this.run(options);
  }

  private async listen(topic: string): Promise<void> {
    try {
      const client = new pg.Client({ connectionString: this.opts.connectionString });
      client.on('error', () => {
        this.listener = undefined;
      });
      await client.connect();
      await client.query(`LISTEN ${channelFor(topic)}`);
      client.on('notification', () => this.wake?.());
      this.listener = client;
    } catch (err) {
      this.opts.logger.warn({ err }, 'bus LISTEN failed; polling only');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(options: ConsumeOptions): Promise<void> {
    const maxBatch = options.maxBatch ?? 200;
    const poll = this.opts.pollIntervalMs ?? 1_000;
    let after: bigint | null = null;
    let backoff = 250;
    while (this.running) {
      try {
        if (after === null) after = (await options.lastApplied()) ?? -1n;
        const { rows } = await this.pool.query<{ position: string; key: string; value: Buffer }>(
          `SELECT position, key, value FROM ${this.table}
           WHERE topic = $1 AND position > $2 ORDER BY position LIMIT $3`,
          [options.topic, after.toString(), maxBatch],
        );
        if (rows.length === 0) {
          if (!this.listener && this.running) await this.listen(options.topic);
          await this.sleep(poll);
          continue;
        }
        const records: BusRecord[] = await Promise.all(
          rows.map(async (r) => ({
            topic: options.topic,
            position: BigInt(r.position),
            key: r.key,
            value: await gunzip(r.value),
          })),
        );
        await options.handleBatch(records);
        after = records[records.length - 1]!.position;
        backoff = 250;
      } catch (err) {
        this.opts.logger.error({ err, topic: options.topic }, 'consume failed; retrying the same records');
        after = null; // ask the owner of the position again: it knows what was really applied
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }

  async headPosition(topic: string): Promise<bigint> {
    const { rows } = await this.pool.query<{ max: string | null }>(
      `SELECT max(position) AS max FROM ${this.table} WHERE topic = $1`,
      [topic],
    );
    return rows[0]?.max == null ? -1n : BigInt(rows[0].max);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
  }
}
