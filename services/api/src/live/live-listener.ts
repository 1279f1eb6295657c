import type { Knex } from 'knex';
import type { Logger } from 'pino';
import pg from 'pg';
import { LIVE_CHANNEL, parseLiveAnnouncement, type LiveAnnouncement } from './live-announcements';

/** Canonical blocks above a height, lowest first (what a listener that was away catches up with). */
const BLOCKS_ABOVE_SQL = `SELECT index_block_hash, block_height FROM blocks
  WHERE canonical = true AND block_height > $1 ORDER BY block_height LIMIT $2`;

/** At most this many blocks are caught up after a reconnection; a longer outage is the REST API's to fill. */
const CATCH_UP_LIMIT = 1000;

/**
 * The api replica's `LISTEN` on the indexer's announcements (ADR 0025): one dedicated connection (not from a pool,
 * which would hand it back and lose the subscription). When the connection is lost, it reconnects with a growing
 * delay, and announces the canonical blocks above the last one it announced (at most 1,000) before listening on:
 * notifications sent while it was away are not replayed by PostgreSQL. Mempool changes missed then are not caught up.
 */
export class LiveListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: {
      connectionString: string;
      db: Knex;
      logger: Logger;
      /** Receives each announcement in order. */
      onAnnouncement: (a: LiveAnnouncement) => void;
      /** The highest block announced so far (null: none). */
      lastBlockHeight: () => number | null;
      maxRetryMs: number;
    },
  ) {}

  /** Connects and listens; resolves once listening (or once the first attempt failed: it keeps trying). */
  async start(): Promise<void> {
    await this.connect(false);
  }

  private async connect(catchUp: boolean): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.opts.connectionString,
      application_name: 'bda-api-live',
      connectionTimeoutMillis: 5_000,
    });
    client.on('notification', (msg) => {
      if (msg.channel !== LIVE_CHANNEL) return;
      const a = parseLiveAnnouncement(msg.payload);
      if (a) this.opts.onAnnouncement(a);
      else this.opts.logger.warn({ payload: msg.payload?.slice(0, 200) }, 'live announcement ignored: unknown shape');
    });
    client.on('error', (err) => {
      this.opts.logger.warn({ err }, 'live listener connection failed');
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
      this.client = client;
      this.retryMs = 250;
      if (catchUp) await this.catchUp();
    } catch (err) {
      this.opts.logger.warn({ err }, 'live listener could not listen; retrying');
      this.lost(client);
    }
  }

  private async catchUp(): Promise<void> {
    const last = this.opts.lastBlockHeight();
    if (last === null) return;
    const rows = await this.opts.db.raw<{ rows: Array<{ index_block_hash: string; block_height: number }> }>(
      BLOCKS_ABOVE_SQL.replace('$1', '?').replace('$2', '?'),
      [last, CATCH_UP_LIMIT],
    );
    for (const r of rows.rows)
      this.opts.onAnnouncement({ type: 'block', index_block_hash: r.index_block_hash, block_height: r.block_height });
  }

  private lost(client: pg.Client): void {
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.client === client) this.client = undefined;
    else if (this.client !== undefined) return;
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect(true);
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, this.opts.maxRetryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
