import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { withTimeout } from '@bda/common';
import { TOPICS } from '@bda/bus';
import type { TopicStatus } from './indexer';

export interface IndexerGaugeDeps {
  db: Knex;
  metrics: Registry;
  logger: Logger;
  /** Per topic: the last applied position and the bus head (`Indexer.status`). */
  status: () => Promise<Record<string, TopicStatus>>;
  /** How long one reading may take before the scrape goes on without it (ms). Default 5 000. */
  timeoutMs?: number;
}

interface Reading {
  topics: Record<string, TopicStatus>;
  positions: Array<{ topic: string; updated_at: Date }>;
  deadLetters: Array<{ topic: string; n: string }>;
  parked: string;
  parkedDropped: string;
  stacksTip: number | null;
  bitcoinTip: number | null;
}

/**
 * What an operator alerts on, read when `/metrics` is scraped and never on the apply path: how many records each
 * topic is behind the bus head, how long since its position last moved, the chain tips, the blocks parked waiting
 * for a parent, and the dead letters stored. One reading (a handful of primary-key and index lookups, plus the bus
 * heads) serves every gauge of a scrape. When the database or the bus cannot be read, the gauges have no samples
 * for that scrape (absence is what an alert on a stuck indexer should also catch) and the scrape itself still
 * answers.
 */
export function registerIndexerGauges(deps: IndexerGaugeDeps): void {
  let pending: Promise<Reading | null> | undefined;
  const read = (): Promise<Reading | null> => {
    // The gauges of one scrape are collected together: they share the reading in flight.
    pending ??= readOnce(deps).finally(() => setTimeout(() => (pending = undefined), 0));
    return pending;
  };

  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge<string>, r: Reading) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [deps.metrics],
      async collect() {
        this.reset();
        const reading = await read();
        if (reading) fill(this, reading);
      },
    });

  gauge('indexer_lag_records', 'Records on the bus not applied yet, by topic', ['topic'], (g, r) => {
    for (const [topic, s] of Object.entries(r.topics)) g.set({ topic }, Number(s.lag));
  });
  gauge(
    'indexer_position_updated_timestamp_seconds',
    'When the stored position of a topic last moved (Unix seconds); with a lag above 0, a stalled indexer',
    ['topic'],
    (g, r) => {
      for (const p of r.positions) g.set({ topic: p.topic }, p.updated_at.getTime() / 1000);
    },
  );
  gauge(
    'indexer_chain_tip_height',
    'Height of the canonical tip, by chain (stacks, bitcoin: the rune ledger)',
    ['chain'],
    (g, r) => {
      if (r.stacksTip !== null) g.set({ chain: 'stacks' }, r.stacksTip);
      if (r.bitcoinTip !== null) g.set({ chain: 'bitcoin' }, r.bitcoinTip);
    },
  );
  // Labelled even though only Stacks blocks park: a gauge without labels always shows a sample (0), also when the
  // reading failed.
  gauge('indexer_parked_blocks', 'Blocks waiting for their parent to arrive, by chain', ['chain'], (g, r) => {
    g.set({ chain: 'stacks' }, Number(r.parked));
  });
  gauge(
    'indexer_parked_dropped_stored',
    'Parked blocks dropped to the dead letters because the parked set was over its bounds (all time), by chain',
    ['chain'],
    (g, r) => {
      g.set({ chain: 'stacks' }, Number(r.parkedDropped));
    },
  );
  gauge(
    'indexer_dead_letters_stored',
    'Dead letters in the database, by topic (all time, unlike the counter)',
    ['topic'],
    (g, r) => {
      // 0 for every consumed topic without any, so that an alert on an increase has a series to start from.
      for (const topic of Object.keys(r.topics)) g.set({ topic }, 0);
      for (const d of r.deadLetters) g.set({ topic: d.topic }, Number(d.n));
    },
  );
}

async function readOnce(deps: IndexerGaugeDeps): Promise<Reading | null> {
  const { db } = deps;
  try {
    return await withTimeout(deps.timeoutMs ?? 5_000, async () => {
      const [topics, positions, deadLetters, [counts]] = await Promise.all([
        deps.status(),
        db('consumer_positions').select<Array<{ topic: string; updated_at: Date }>>('topic', 'updated_at'),
        db('dead_letters').select('topic').count({ n: '*' }).groupBy('topic') as unknown as Promise<
          Array<{ topic: string; n: string }>
        >,
        db
          .select(
            db.raw('(SELECT count(*) FROM parked_blocks) AS parked'),
            // Dropped parked blocks are the dead letters with negative positions (see `parkBlock`).
            db.raw('(SELECT count(*) FROM dead_letters WHERE topic = ? AND position < 0) AS parked_dropped', [
              TOPICS.stacksNodeEvents,
            ]),
            db.raw('(SELECT block_height FROM chain_tip) AS stacks_tip'),
            db.raw('(SELECT max(block_height) FROM rune_blocks) AS bitcoin_tip'),
          )
          .then(
            (rows) =>
              rows as Array<{ parked: string; parked_dropped: string; stacks_tip: number | null; bitcoin_tip: number | null }>,
          ),
      ]);
      return {
        topics,
        positions,
        deadLetters,
        parked: counts!.parked,
        parkedDropped: counts!.parked_dropped,
        stacksTip: counts!.stacks_tip,
        bitcoinTip: counts!.bitcoin_tip,
      };
    });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'indexer gauges: cannot read the positions for /metrics');
    return null;
  }
}
